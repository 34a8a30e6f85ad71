package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/tools"
)

// TestMain keeps the tests' databases in a temporary cache directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "notes-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// os.UserCacheDir reads these (Linux, macOS, Windows).
	for _, v := range []string{"XDG_CACHE_HOME", "HOME", "LocalAppData"} {
		os.Setenv(v, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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

// summaryRE matches the import's one-line summary on stderr.
var summaryRE = regexp.MustCompile(`^notes: .+ in .+\.db: \d+ notes? \(\d+ added, \d+ changed, \d+ relinked, \d+ removed\), .+ in [0-9.]+[µm]?s\n$`)

func ids(env envelope) []string {
	var out []string
	for _, r := range env.Results {
		out = append(out, r["id"].(string))
	}
	return out
}

// TestREADMECommand is the README's command on the demo vault, run from
// an empty working directory, which it leaves empty.
func TestREADMECommand(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	env, _, stderr := runTool(t, "search_by_links", `{"hasLinksTo":["Home"]}`)
	if !summaryRE.MatchString(stderr) || !strings.Contains(stderr, " 30 notes (") || !strings.Contains(stderr, " 1 broken link ") {
		t.Errorf("stderr is not the summary of the demo vault's import:\n%s", stderr)
	}
	if files, err := os.ReadDir(wd); err != nil || len(files) > 0 {
		t.Errorf("the working directory holds %v (%v)", files, err)
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

// TestLongNote reads the 826-line incident log by following next
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
		if env.Next == nil {
			break
		}
		args = string(env.Next)
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

// cacheFiles returns the database files in the test cache directory.
func cacheFiles(t *testing.T) []string {
	t.Helper()
	dir, _ := os.UserCacheDir()
	files, err := filepath.Glob(filepath.Join(dir, "bounded", "notes", "*.db"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDatabaseKept imports a vault by three calls, from an empty working
// directory: the database stays in the cache directory, one per vault,
// and each call imports only what changed.
func TestDatabaseKept(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	root := writeVault(t, map[string]string{
		"my vault/Home.md":        "# Home\n[[a]] ![[pic.png]]\n",
		"my vault/a.md":           "[[Home]]\n",
		"my vault/pic.png":        "png",
		"elsewhere/my vault/x.md": "x\n",
	})
	dir, other := filepath.Join(root, "my vault"), filepath.Join(root, "elsewhere", "my vault")
	before := len(cacheFiles(t))
	for i, c := range []struct {
		dir, change, want string
	}{
		{dir, "", " 2 notes (2 added, 0 changed, 0 relinked, 0 removed), 1 attachment, 2 links, 1 embed, 0 broken links "},
		{dir, "", " 2 notes (0 added, 0 changed, 0 relinked, 0 removed), "},
		{dir, "a.md", " 2 notes (0 added, 1 changed, 0 relinked, 0 removed), "},
		{other, "", " 1 note (1 added, 0 changed, 0 relinked, 0 removed), "},
	} {
		if c.change != "" {
			if err := os.WriteFile(filepath.Join(c.dir, c.change), []byte("[[Home]] and more\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, _, stderr := runTool(t, "-vault", c.dir, "list_notes")
		if !summaryRE.MatchString(stderr) || !strings.Contains(stderr, c.want) || !strings.HasPrefix(stderr, "notes: "+c.dir+" in ") {
			t.Errorf("call %d: stderr %q, want a summary with %q", i+1, stderr, c.want)
		}
	}
	files := cacheFiles(t)
	if len(files)-before != 2 {
		t.Errorf("the cache holds %q: want one more database for each vault", files)
	}
	for _, f := range files {
		if !strings.HasPrefix(filepath.Base(f), "my vault-") && !strings.HasPrefix(filepath.Base(f), "demo-vault-") {
			t.Errorf("database %s is not named after its vault", f)
		}
	}
	if entries, err := os.ReadDir(wd); err != nil || len(entries) > 0 {
		t.Errorf("the working directory holds %v (%v)", entries, err)
	}

	// -db puts the database where it says, and nothing in the cache.
	db := filepath.Join(t.TempDir(), "notes.db")
	runTool(t, "-vault", dir, "-db", db, "list_notes")
	if _, err := os.Stat(db); err != nil || len(cacheFiles(t)) != len(files) {
		t.Errorf("-db %s: %v; cache %q", db, err, cacheFiles(t))
	}
}

func TestQuiet(t *testing.T) {
	dir := writeVault(t, map[string]string{"Home.md": "# Home\n", "latin1.md": "caf\xe9\n"})
	_, _, stderr := runTool(t, "-q", "-vault", dir, "list_notes")
	if want := "notes: skipped " + filepath.Join(dir, "latin1.md") + ": not valid UTF-8\n"; stderr != want {
		t.Errorf("-q: stderr %q, want only %q", stderr, want)
	}
	if _, _, stderr := runTool(t, "-q", "list_notes"); stderr != "" {
		t.Errorf("-q on the demo vault: stderr %q", stderr)
	}
}

// TestVaultErrors calls with vaults that cannot be read: the error names
// the vault.
func TestVaultErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no such vault")
	notDir := filepath.Join(dir, "note.md")
	if err := os.WriteFile(notDir, []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ dir, want string }{
		{missing, "vault " + missing + ": no such file or directory"},
		{notDir, "vault " + notDir + ": not a directory"},
	}
	if os.Geteuid() != 0 { // root reads any folder
		locked := filepath.Join(dir, "locked")
		if err := os.Mkdir(locked, 0o000); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(locked, 0o755) })
		cases = append(cases, struct{ dir, want string }{locked, "vault " + locked + ": permission denied"})
	} else {
		t.Log("running as root: the unreadable vault is not tried")
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"-vault", c.dir, "list_notes"}, &stdout, &stderr)
		if err == nil || err.Error() != c.want {
			t.Errorf("-vault %s: error %v, want %q", c.dir, err, c.want)
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	for _, c := range []struct {
		pr   vault.Progress
		want string
	}{
		{vault.Progress{Stage: "scan", Done: 300, Elapsed: 50 * time.Millisecond}, ""}, // too early
		{vault.Progress{Stage: "scan", Done: 5000, Elapsed: 250 * time.Millisecond}, "\rnotes: scanning files: 5,000 (20,000/s)\x1b[K"},
		{vault.Progress{Stage: "scan", Done: 6000, Elapsed: 300 * time.Millisecond}, ""}, // too soon after
		{vault.Progress{Stage: "write", Done: 1200, Total: 3000, Elapsed: 400 * time.Millisecond}, "\rnotes: writing notes: 1,200 of 3,000 (3,000/s)\x1b[K"},
	} {
		b.Reset()
		p.report(c.pr)
		if b.String() != c.want {
			t.Errorf("report(%+v) wrote %q, want %q", c.pr, b.String(), c.want)
		}
	}
	b.Reset()
	p.clear()
	if b.String() != "\r\x1b[K" {
		t.Errorf("clear wrote %q", b.String())
	}
	b.Reset()
	(&progress{w: &b}).clear()
	if b.Len() > 0 {
		t.Errorf("clear without progress wrote %q", b.String())
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(&b) || isTerminal(f) {
		t.Error("a buffer or a file is a terminal")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
