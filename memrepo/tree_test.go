package memrepo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// The hierarchy's listers: Children, Parents and Descendants of id.
func childrenOf(id string) lister {
	return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
		return refKeys(s.Children(ctx, id, p))
	}
}

func parentsOf(id string) lister {
	return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
		return refKeys(s.Parents(ctx, id, p))
	}
}

func descendantsOf(id string, depth int) lister {
	return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
		return descKeys(s.Descendants(ctx, id, depth, p))
	}
}

// folderVault is a vault whose hierarchy is mostly folders: en/ has no
// index note, en/Plugins has one ("en/Plugins"), and one note names a
// parent in its front matter.
func folderVault(t *testing.T) *memrepo.Store {
	t.Helper()
	s := memrepo.New()
	for _, n := range []ports.Note{
		{ID: "Home", Title: "Home"},
		{ID: "en/Start", Title: "Start"},
		{ID: "en/Plugins", Title: "Plugins index"},
		{ID: "en/Plugins/Canvas", Title: "Canvas", Tags: []string{"core"}},
		{ID: "en/Plugins/Core plugins/Backlinks", Title: "Backlinks", Parents: []string{"Home", "en/Plugins/Canvas"}},
		{ID: "ja/Plugins/Canvas", Title: "Canvas"},
	} {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestFolders checks that folders are nodes of the hierarchy: children,
// parents and descendants work on folders and notes alike, and a folder's
// index note stands for it.
func TestFolders(t *testing.T) {
	s := folderVault(t)
	children, parents, desc := childrenOf, parentsOf, descendantsOf
	checkList(t, s, []listCase{
		// By title: "Plugins index" (the index note), "Start".
		{"a folder without an index note", children("en"), []string{"en/Plugins", "en/Start"}},
		// "Canvas", "Core plugins" (a folder, titled by its name).
		{"a folder's index note", children("en/Plugins"), []string{"en/Plugins/Canvas", "en/Plugins/Core plugins"}},
		{"a note named as a parent", children("Home"), []string{"en/Plugins/Core plugins/Backlinks"}},
		{"a note in a folder with a parent", children("en/Plugins/Canvas"), []string{"en/Plugins/Core plugins/Backlinks"}},
		{"a note at the root", parents("Home"), nil},
		{"a folder's parent folder", parents("en/Plugins/Core plugins"), []string{"en/Plugins"}},
		{"a note's folder and the parents it names", parents("en/Plugins/Core plugins/Backlinks"),
			[]string{"en/Plugins/Canvas", "en/Plugins/Core plugins", "Home"}},
		{"a top folder", parents("en"), nil},
		{"a folder's descendants", desc("en", 0), []string{"en/Plugins@1", "en/Start@1", "en/Plugins/Canvas@2",
			"en/Plugins/Core plugins@2", "en/Plugins/Core plugins/Backlinks@3"}},
	})
	pg, err := s.Children(ctx, "en/Plugins", bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.NoteRef{
		{ID: "en/Plugins/Canvas", Title: "Canvas", Tags: []string{"core"}},
		{ID: "en/Plugins/Core plugins", Title: "Core plugins", Folder: true},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("Children(en/Plugins) (-want +got):\n%s", diff)
	}
	pg.Items[0].Tags[0] = "changed"
	if again, _ := s.Children(ctx, "en/Plugins", bounded.Page{}); again.Items[0].Tags[0] != "core" {
		t.Errorf("a caller changed the store's tags: %q", again.Items[0].Tags)
	}

	b, err := s.ParentsOf(ctx, []string{"en/Plugins/Core plugins", "nowhere", "ja"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	wantBatch := ports.Batch[ports.NoteRef]{
		Lists: []ports.NoteList[ports.NoteRef]{
			{ID: "en/Plugins/Core plugins", Items: []ports.NoteRef{{ID: "en/Plugins", Title: "Plugins index"}}, Total: 1},
			{ID: "ja", Total: 0},
		},
		Missing: []string{"nowhere"},
	}
	if diff := cmp.Diff(wantBatch, b); diff != "" {
		t.Errorf("ParentsOf (-want +got):\n%s", diff)
	}

	// A folder goes with its last note; its index note leaves a folder.
	for _, id := range []string{"ja/Plugins/Canvas", "en/Plugins"} {
		if err := s.DeleteNote(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	checkErrors(t, s, []errCase{
		{"a folder gone with its notes", func(s *memrepo.Store) error { return ignore(s.Children(ctx, "ja", bounded.Page{})) }, ports.ErrNotFound},
		{"not a node", func(s *memrepo.Store) error { return ignore(s.Parents(ctx, "en/Nowhere", bounded.Page{})) }, ports.ErrNotFound},
	})
	pg, err = s.Children(ctx, "en", bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want = []ports.NoteRef{{ID: "en/Plugins", Title: "Plugins", Folder: true}, {ID: "en/Start", Title: "Start"}}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("Children(en) after deleting the index note (-want +got):\n%s", diff)
	}
}

// TestResolveNotes checks that names resolve as links from the vault root
// do.
func TestResolveNotes(t *testing.T) {
	s := folderVault(t)
	for _, n := range []ports.Note{{ID: "zettel/Idea"}, {ID: "Zettel/idea"}, {ID: "notes.md"}} {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		want ports.Resolution
	}{
		{"en/Plugins/Canvas", ports.Resolution{ID: "en/Plugins/Canvas", Matches: 1}},
		{"en/plugins/canvas", ports.Resolution{ID: "en/Plugins/Canvas", Matches: 1}},
		{" /en/Plugins/Canvas.MD ", ports.Resolution{ID: "en/Plugins/Canvas", Matches: 1}},
		{"Canvas", ports.Resolution{Candidates: []string{"en/Plugins/Canvas", "ja/Plugins/Canvas"}, Matches: 2}},
		{"plugins/canvas", ports.Resolution{Candidates: []string{"en/Plugins/Canvas", "ja/Plugins/Canvas"}, Matches: 2}},
		{"en/Canvas", ports.Resolution{}},
		{"backlinks", ports.Resolution{ID: "en/Plugins/Core plugins/Backlinks", Matches: 1}},
		{"start", ports.Resolution{ID: "en/Start", Matches: 1}},
		// The index note is a note: it stands for its folder.
		{"plugins", ports.Resolution{ID: "en/Plugins", Matches: 1}},
		{"en", ports.Resolution{ID: "en", Folder: true, Matches: 1}},
		{"core plugins", ports.Resolution{ID: "en/Plugins/Core plugins", Folder: true, Matches: 1}},
		{"EN/PLUGINS/CORE PLUGINS", ports.Resolution{ID: "en/Plugins/Core plugins", Folder: true, Matches: 1}},
		// Notes before folders: "ja/Plugins" is a folder, "en/Plugins" a note.
		{"Plugins", ports.Resolution{ID: "en/Plugins", Matches: 1}},
		{"zettel/idea", ports.Resolution{Candidates: []string{"Zettel/idea", "zettel/Idea"}, Matches: 2}},
		{"Zettel/idea", ports.Resolution{ID: "Zettel/idea", Matches: 1}},
		{"notes.md", ports.Resolution{ID: "notes.md", Matches: 1}},
		{"notes", ports.Resolution{}},
		{"Home.md", ports.Resolution{ID: "Home", Matches: 1}},
		{"/", ports.Resolution{}},
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	got, err := s.ResolveNotes(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		c.want.Name = c.name
		if diff := cmp.Diff(c.want, got[i]); diff != "" {
			t.Errorf("ResolveNotes(%q) (-want +got):\n%s", c.name, diff)
		}
	}
	checkErrors(t, s, []errCase{
		{"no names", func(s *memrepo.Store) error { return ignore(s.ResolveNotes(ctx, nil)) }, ports.ErrInvalidQuery},
		{"a blank name", func(s *memrepo.Store) error { return ignore(s.ResolveNotes(ctx, []string{"a", " "})) }, ports.ErrInvalidQuery},
		{"too many names", func(s *memrepo.Store) error {
			return ignore(s.ResolveNotes(ctx, make([]string, ports.MaxGetNotes+1)))
		}, ports.ErrInvalidQuery},
	})
}
