package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	"github.com/boundedkit/bounded/tools"
)

type envelope struct {
	Results    []tools.CodeItem   `json:"results"`
	Pagination bounded.PageInfo   `json:"pagination"`
	Truncated  bool               `json:"truncated"`
	Truncation bounded.Truncation `json:"truncation"`
	Hint       string             `json:"hint"`
	Next       json.RawMessage    `json:"next"`
}

func search(t *testing.T, args ...string) (envelope, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("codesearch %q: %v\n%s", args, err, stderr.String())
	}
	var env envelope
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("codesearch %q: not an envelope: %v\n%s", args, err, stdout.String())
	}
	return env, strings.TrimSpace(stdout.String())
}

// tree writes a source tree: 12 Go files of 100 lines each, file i
// mentioning "alpha" in every chunk and "beta" in the chunks of odd files.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 12 {
		var b strings.Builder
		for l := range 100 {
			switch {
			case l%40 == 3:
				fmt.Fprintf(&b, "// alpha %d\n", i)
			case l%40 == 7 && i%2 == 1:
				fmt.Fprintf(&b, "// beta %d\n", i)
			default:
				fmt.Fprintf(&b, "x%d := %d // filler line\n", l, l)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"notes.md": "alpha beta in markdown\n", "bin.go": "alpha\x00beta\n", ".hidden/x.go": "alpha beta\n"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSearch(t *testing.T) {
	dir := tree(t)
	env, _ := search(t, "-root", dir, "-limit", "50", "-budget", "40000", "-concise", "alpha", "beta")
	// Chunks with both words (score 1) first: the markdown note and the odd
	// files' chunks, by path and line; then those with alpha only (0.5).
	if env.Pagination.Total != 37 || len(env.Results) != 37 {
		t.Fatalf("total %d, %d results; want 37 (12 files × 3 chunks + the note)", env.Pagination.Total, len(env.Results))
	}
	var got []string
	for _, r := range env.Results[:4] {
		got = append(got, fmt.Sprintf("%s:%d %.1f", r.FilePath, r.StartLine, r.Score))
	}
	if want := []string{"f01.go:1 1.0", "f01.go:41 1.0", "f01.go:81 1.0", "f03.go:1 1.0"}; !slices.Equal(got, want) {
		t.Errorf("first results %q, want %q", got, want)
	}
	for i, r := range env.Results {
		if i > 0 && r.Score > env.Results[i-1].Score {
			t.Fatalf("result %d scores %v after %v: not most similar first", i, r.Score, env.Results[i-1].Score)
		}
		if r.EndLine-r.StartLine+1 > 40 || r.Content == nil {
			t.Errorf("chunk %s:%d-%d", r.FilePath, r.StartLine, r.EndLine)
		}
	}
	if c := env.Results[1]; c.ContextBefore != "" || c.ID != "" {
		t.Errorf("concise result has detailed fields: %+v", c)
	}

	// The same search within 3,000 characters: cut at a chunk boundary;
	// following next (by -offset) returns the rest exactly once.
	var walked []string
	for offset := 0; ; {
		env, out := search(t, "-root", dir, "-limit", "50", "-budget", "3000", "-offset", fmt.Sprint(offset), "alpha", "beta")
		if n := utf8.RuneCountInString(out); n > 3000 {
			t.Fatalf("%d characters, over the budget of 3,000", n)
		}
		for _, r := range env.Results {
			walked = append(walked, fmt.Sprintf("%s:%d", r.FilePath, r.StartLine))
			if r.ContextBefore == "" && r.StartLine > 1 {
				t.Errorf("%s:%d has no context before", r.FilePath, r.StartLine)
			}
		}
		if !env.Pagination.HasMore {
			break
		}
		if !env.Truncated || !strings.Contains(env.Hint, fmt.Sprintf("offset=%d", env.Pagination.NextOffset)) {
			t.Fatalf("a page of 50 under 37 results ends early only by a budget cut: %+v, hint %q", env.Truncation, env.Hint)
		}
		offset = env.Pagination.NextOffset
	}
	var want []string
	for _, r := range env.Results {
		want = append(want, fmt.Sprintf("%s:%d", r.FilePath, r.StartLine))
	}
	if !slices.Equal(walked, want) {
		t.Errorf("walk under a budget:\ngot  %q\nwant %q", walked, want)
	}
}

func TestSQLiteAndFilters(t *testing.T) {
	dir := tree(t)
	db := filepath.Join(t.TempDir(), "code.db")
	env, _ := search(t, "-root", dir, "-db", db, "-lang", "markdown", "beta")
	if len(env.Results) != 1 || env.Results[0].FilePath != "notes.md" || env.Results[0].Language != "markdown" {
		t.Errorf("markdown search: %+v", env.Results)
	}
	env, _ = search(t, "-root", dir, "-db", db, "-path", "f1", "beta")
	for _, r := range env.Results {
		if !strings.HasPrefix(r.FilePath, "f1") {
			t.Errorf("path filter f1 returned %s", r.FilePath)
		}
	}
	if len(env.Results) != 3 { // f11.go, three chunks
		t.Errorf("beta under f1: %d results, want 3", len(env.Results))
	}
}

// TestThisRepository searches the default tree, the repository itself.
func TestThisRepository(t *testing.T) {
	env, _ := search(t, "ApplyWindow", "MaxLines")
	if len(env.Results) == 0 || !slices.ContainsFunc(env.Results, func(c tools.CodeItem) bool { return c.FilePath == "window.go" }) {
		t.Errorf("no chunk of window.go for ApplyWindow MaxLines: %+v", env.Pagination)
	}
}

func TestFile(t *testing.T) {
	text := strings.Repeat("line\n", 95)
	chunks := index.File("a.go", "go", text, index.Options{Lines: 40, Context: 5})
	if len(chunks) != 3 || chunks[2].StartLine != 81 || chunks[2].EndLine != 95 ||
		strings.Count(chunks[1].ContextBefore, "\n") != 5 || strings.Count(chunks[1].ContextAfter, "\n") != 5 || chunks[2].ContextAfter != "" {
		t.Errorf("chunks of 95 lines: %+v", chunks)
	}
	var joined string
	for _, c := range chunks {
		joined += c.Content
	}
	if joined != text {
		t.Error("chunks do not add up to the file")
	}
}
