package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

type envelope struct {
	Results    []map[string]any   `json:"results"`
	Pagination bounded.PageInfo   `json:"pagination"`
	Truncated  bool               `json:"truncated"`
	Truncation bounded.Truncation `json:"truncation"`
	Hint       string             `json:"hint"`
	Next       json.RawMessage    `json:"next"`
	// ContentMetadata is get_note's line window.
	ContentMetadata *bounded.WindowInfo `json:"contentMetadata"`
}

// runTool runs the program and decodes its response.
func runTool(t *testing.T, args ...string) (envelope, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("notes %q: %v\nstderr: %s", args, err, stderr.String())
	}
	var env envelope
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("notes %q: output is not one envelope: %v\n%s", args, err, stdout.String())
	}
	return env, stdout.String(), stderr.String()
}

func ids(env envelope) []string {
	var out []string
	for _, r := range env.Results {
		out = append(out, r["id"].(string))
	}
	return out
}

// TestREADMECommand is the README's command on the demo vault.
func TestREADMECommand(t *testing.T) {
	env, _, stderr := runTool(t, "search_by_links", `{"hasLinksTo":["Home"]}`)
	if stderr != "" {
		t.Errorf("the demo vault imports with messages:\n%s", stderr)
	}
	got := ids(env)
	if env.Pagination.Total != 21 || len(got) != 21 || got[0] != "Inbox" || !slices.Contains(got, "projects/atlas/design") || env.Pagination.HasMore {
		t.Errorf("notes linking to Home: total %d, %q", env.Pagination.Total, got)
	}
	if !strings.Contains(env.Hint, "Found 21 results") {
		t.Errorf("hint %q", env.Hint)
	}
}

func TestDemoVaultTools(t *testing.T) {
	env, _, _ := runTool(t, "find_broken_links")
	var broken []string
	for _, r := range env.Results {
		broken = append(broken, r["sourceId"].(string)+" -> "+r["target"].(string))
	}
	if want := []string{"Home -> Roadmap 2027"}; !slices.Equal(broken, want) {
		t.Errorf("broken links %q, want %q", broken, want)
	}
	env, _, _ = runTool(t, "get_children", `{"id":"projects/atlas"}`)
	if want := []string{"projects/atlas/launch-checklist", "projects/atlas/design", "projects/atlas/meeting-notes"}; !sameSet(ids(env), want) {
		t.Errorf("children of projects/atlas: %q, want %q", ids(env), want)
	}
	env, _, _ = runTool(t, "get_parents", `{"id":"projects/atlas/launch-checklist"}`)
	if want := []string{"projects/atlas", "areas/engineering/on-call"}; !sameSet(ids(env), want) {
		t.Errorf("parents of the launch checklist: %q, want %q (folder and front matter)", ids(env), want)
	}
	env, _, _ = runTool(t, "search_by_links", `{"externalDomains":["go.dev"]}`)
	if want := []string{"Home", "areas/engineering/code-review"}; !sameSet(ids(env), want) {
		t.Errorf("notes linking to go.dev: %q, want %q", ids(env), want)
	}
	env, _, _ = runTool(t, "get_note_links", `{"id":"projects/atlas/design","category":"internal"}`)
	var targets []string
	for _, r := range env.Results {
		targets = append(targets, r["target"].(string))
	}
	if want := []string{"people/grace", "people/linus", "projects/atlas", "Home"}; !slices.Equal(targets, want) {
		t.Errorf("internal links of the design: %q, want %q", targets, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestLongNote reads the 826-line incident log by following nextLines
// within a 4,000-character budget.
func TestLongNote(t *testing.T) {
	args := `{"id":"areas/engineering/incident-log","maxLines":150}`
	var text strings.Builder
	for calls := 0; ; calls++ {
		if calls > 100 {
			t.Fatal("no end after 100 calls")
		}
		env, out, _ := runTool(t, "-budget", "4000", "get_note", args)
		if n := utf8.RuneCountInString(strings.TrimSpace(out)); n > 4000 {
			t.Fatalf("%d characters, over the budget", n)
		}
		r := env.Results[0]
		content := r["content"].(string)
		if r["contentClip"] != nil {
			// The clipped line goes on at charOffset in the next call.
			content = content[:strings.LastIndex(content, "…[truncated ")]
		}
		text.WriteString(content)
		next, ok := r["nextLines"]
		if !ok {
			break
		}
		b, _ := json.Marshal(next)
		args = string(b)
	}
	want, err := os.ReadFile("demo-vault/areas/engineering/incident-log.md")
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != string(want) {
		t.Errorf("reading the note window by window gave %d bytes, want the file's %d", text.Len(), len(want))
	}
}

func writeVault(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBadFilesAndReimport imports a vault with broken files into a
// database file, twice, then after deleting a note.
func TestBadFilesAndReimport(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"Home.md":         "# Home\n",
		"a.md":            "---\ntitle: A\n---\n[[Home]]\n",
		"folder/index.md": "# Folder\n[[Home]]\n",
		"folder/b.md":     "[[a]] and [[Home|home]]\n",
		"broken-yaml.md":  "---\ntitle: : :\n  - [\n---\n",
		"latin1.md":       "caf\xe9\n",
	})
	db := filepath.Join(t.TempDir(), "vault.db")
	for range 2 {
		env, _, stderr := runTool(t, "-vault", dir, "-db", db, "list_notes", `{"detail":"concise"}`)
		for _, name := range []string{"broken-yaml.md", "latin1.md"} {
			if !strings.Contains(stderr, "skipped "+filepath.Join(dir, name)+": ") {
				t.Errorf("stderr does not name %s:\n%s", name, stderr)
			}
		}
		if want := []string{"Home", "a", "folder", "folder/b"}; !sameSet(ids(env), want) {
			t.Errorf("notes %q, want %q", ids(env), want)
		}
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	env, _, _ := runTool(t, "-vault", dir, "-db", db, "get_backlinks", `{"id":"Home"}`)
	if want := []string{"folder", "folder/b"}; !sameSet(ids(env), want) {
		t.Errorf("after deleting a.md, backlinks of Home: %q, want %q", ids(env), want)
	}
	env, _, _ = runTool(t, "-vault", dir, "-db", db, "find_broken_links")
	if len(env.Results) != 1 || env.Results[0]["target"] != "a" {
		t.Errorf("after deleting a.md, broken links: %v; want folder/b's link to a", env.Results)
	}
}

func TestPrivateMode(t *testing.T) {
	for _, call := range [][]string{
		{"get_note", `{"id":"projects/atlas/design"}`},
		{"get_notes", `{"ids":["Home","Inbox"]}`},
		{"get_note_links", `{"id":"Home"}`},
		{"search_notes", `{"query":"storage"}`},
	} {
		_, out, _ := runTool(t, append([]string{"-mode", "private"}, call...)...)
		for _, s := range []string{"Pages of 100 items", "Welcome to the team garden", "https://", `"content"`, `"snippet"`} {
			if strings.Contains(out, s) {
				t.Errorf("private %s returns %q:\n%s", call, s, out)
			}
		}
	}
}

func TestListAndErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-list"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "find_broken_links",
		"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes"} {
		if !strings.Contains(stdout.String(), name+"\n") {
			t.Errorf("-list does not list %s", name)
		}
	}
	err := run(context.Background(), []string{"list_notes", `{"limit":-1}`}, &stdout, &stderr)
	if !errors.Is(err, bounded.ErrInvalidPage) || !errors.Is(err, tools.ErrInvalidArguments) {
		t.Errorf("bad limit: %v", err)
	}
	if err := run(context.Background(), []string{"no_such_tool"}, &stdout, &stderr); !errors.Is(err, tools.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	if err := run(context.Background(), nil, &stdout, &stderr); err == nil {
		t.Error("no tool name: no error")
	}
}
