package vault_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

func file(s string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(s), ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// testVault has a folder hierarchy, every link form, and three files that
// cannot be imported.
func testVault() fstest.MapFS {
	return fstest.MapFS{
		"Home.md": file("---\ntitle: Home Page\ntags: [start, \"#index\"]\nupdated: 2026-02-01\n---\n# Ignored heading\n" +
			"See [[Projects]], [[alpha|the alpha]], [[projects/alpha#Plan]], ![[diagram]], [[#local heading]].\n" +
			"Docs: [Go](https://go.dev/doc/) and <https://example.com/x>, ![img](https://example.com/i.png).\n" +
			"Relative: [beta](projects/beta.md#top). Code: `[[nope]]`\n```\n[[nope either]]\n```\nMissing: [[Nowhere]].\n"),
		"projects/index.md":      file("# Projects Index\n\nUp: [[Home]].\n"),
		"projects/alpha.md":      file("---\nparents: [\"[[Home]]\"]\ncreated: 2026-01-10T08:00:00Z\n---\nAlpha. [[BETA]]\n"),
		"projects/beta.md":       file("---\nparent: alpha\ntags: one, two\n---\nBeta, links [back](../Home.md).\n"),
		"projects/deep/gamma.md": file("Gamma has no front matter and no heading.\n"),
		"diagram.md":             file("# Diagram\n"),
		".obsidian/config.md":    file("not a note"),
		"notes.txt":              file("not a note"),
		"bad-yaml.md":            file("---\ntitle: [unclosed\n---\nbody\n"),
		"unclosed.md":            file("---\ntitle: x\nbody without end\n"),
		"latin1.md":              file("caf\xe9\n"),
		"projects.md":            file("# Same id as projects/index.md\n"),
		"wrong-type.md":          file("---\ntags: {a: 1}\n---\n"),
	}
}

func TestLoad(t *testing.T) {
	notes, failed, err := vault.Load(testVault())
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, fe := range failed {
		bad = append(bad, fe.Path+": "+fe.Err.Error())
	}
	wantBad := []string{
		"bad-yaml.md: front matter: yaml:",
		"latin1.md: not valid UTF-8",
		"projects.md: its note id \"projects\" is taken by projects/index.md",
		"unclosed.md: front matter opened by --- on line 1 is never closed",
		"wrong-type.md: front matter: tags: want a list or a string",
	}
	slices.Sort(bad)
	if len(bad) != len(wantBad) {
		t.Fatalf("failed files:\n%s\nwant %d", strings.Join(bad, "\n"), len(wantBad))
	}
	for i := range bad {
		if !strings.HasPrefix(bad[i], wantBad[i]) {
			t.Errorf("failed file %d: %q, want %q...", i, bad[i], wantBad[i])
		}
	}

	byID := map[string]ports.Note{}
	var ids []string
	for _, n := range notes {
		byID[n.ID] = n.Note
		ids = append(ids, n.ID)
	}
	if want := []string{"Home", "diagram", "projects/alpha", "projects/beta", "projects/deep/gamma", "projects"}; !slices.Equal(ids, want) {
		t.Fatalf("notes %q, want %q", ids, want)
	}

	home := byID["Home"]
	if home.Title != "Home Page" || !slices.Equal(home.Tags, []string{"start", "index"}) || !home.UpdatedAt.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Home: title %q, tags %q, updated %v", home.Title, home.Tags, home.UpdatedAt)
	}
	wantLinks := []ports.Link{
		{Target: "projects"},
		{Target: "projects/alpha", Text: "the alpha"},
		{Target: "projects/alpha", Text: "projects/alpha#Plan"},
		{Target: "diagram"},
		{Target: "https://go.dev/doc/", External: true, Text: "Go"},
		{Target: "https://example.com/x", External: true},
		{Target: "projects/beta", Text: "beta"},
		{Target: "Nowhere"},
	}
	if !slices.Equal(home.Links, wantLinks) {
		t.Errorf("Home links:\ngot  %+v\nwant %+v", home.Links, wantLinks)
	}
	if !strings.HasPrefix(home.Content, "---\ntitle: Home Page") {
		t.Errorf("content is not the file as written: %.40q", home.Content)
	}

	for _, c := range []struct {
		id, title string
		parents   []string
		links     []ports.Link
	}{
		{"projects", "Projects Index", nil, []ports.Link{{Target: "Home"}}},
		{"projects/alpha", "alpha", []string{"Home"}, []ports.Link{{Target: "projects/beta"}}},
		{"projects/beta", "beta", []string{"projects/alpha"}, []ports.Link{{Target: "Home", Text: "back"}}},
		{"projects/deep/gamma", "gamma", nil, nil},
	} {
		n := byID[c.id]
		if n.Title != c.title || !slices.Equal(n.Parents, c.parents) || !slices.Equal(n.Links, c.links) {
			t.Errorf("%s: title %q, parents %q, links %+v; want %q, %q, %+v", c.id, n.Title, n.Parents, n.Links, c.title, c.parents, c.links)
		}
	}
	if b := byID["projects/beta"]; !slices.Equal(b.Tags, []string{"one", "two"}) || !b.UpdatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("beta: tags %q, updated %v (want the file's time)", b.Tags, b.UpdatedAt)
	}
	if a := byID["projects/alpha"]; !a.CreatedAt.Equal(time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("alpha created %v", a.CreatedAt)
	}
}

func listIDs(t *testing.T, store ports.Notes) []string {
	t.Helper()
	var ids []string
	list := func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return store.ListNotes(ctx, ports.ListFilter{}, p)
	}
	for n, err := range bounded.All(context.Background(), bounded.Page{Limit: 2}, list) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestImportMirrorsTheVault(t *testing.T) {
	ctx := context.Background()
	store := memrepo.New()
	fsys := testVault()
	rep, err := vault.Import(ctx, fsys, store)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 6 || rep.Deleted != 0 || len(rep.Errors) != 5 {
		t.Errorf("first import: %+v", rep)
	}
	first := listIDs(t, store)
	again, err := vault.Import(ctx, fsys, store)
	if err != nil {
		t.Fatal(err)
	}
	if again.Imported != 6 || again.Deleted != 0 || !slices.Equal(listIDs(t, store), first) {
		t.Errorf("second import changed the store: %+v, %q then %q", again, first, listIDs(t, store))
	}
	nc, err := store.GetNote(ctx, "Home", bounded.Window{})
	if err != nil || nc.Title != "Home Page" {
		t.Fatalf("Home after two imports: %+v, %v", nc, err)
	}

	// A deleted file's note goes; a file that breaks keeps its stored copy.
	delete(fsys, "diagram.md")
	fsys["projects/deep/gamma.md"] = file("---\ntitle: [\n---\n")
	third, err := vault.Import(ctx, fsys, store)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Home", "projects", "projects/alpha", "projects/beta", "projects/deep/gamma"}
	if got := listIDs(t, store); third.Deleted != 1 || !slices.Equal(got, want) {
		t.Errorf("after deleting diagram.md and breaking gamma: %+v, notes %q, want %q", third, got, want)
	}
}
