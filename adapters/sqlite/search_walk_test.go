package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// TestSearchNotesWalk checks SearchNotes' walk in result order, which
// serves the queries the FTS5 index finds in too many notes, against
// memrepo on the conformance fixture: a store that walks every query the
// index finds in more than one note pages exactly as memrepo does, forward
// and backward by cursor and by offset, under every count strategy, for
// queries found in titles and contents both, in titles only, in contents
// only, and with the title branch read through the index or walked (two
// stores walk the queries found in more than three notes, and read up to
// three titles through the index: one whose titles' index was filled when
// it was opened, one whose whole note index was).
func TestSearchNotesWalk(t *testing.T) {
	ctx := context.Background()
	// The fixture, and notes holding "walkabout" in two titles and five
	// contents, some updated at the same time.
	notes := conformance.Notes(conformance.Seed)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, title := range []string{"Walkabout", "The WALKABOUT plan", "x", "y", "z", "w", "v"} {
		content := "nothing here"
		if i >= 2 {
			content = fmt.Sprintf("a walkabout, day %d", i)
		}
		notes = append(notes, ports.Note{ID: fmt.Sprintf("walk/%d", i), Title: title, Content: content, UpdatedAt: at.Add(time.Duration(i/2) * time.Hour)})
	}
	mem := memrepo.New()
	for _, n := range notes {
		if err := mem.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	walk, db, err := sqlite.Open(ctx, filepath.Join(dir, "walk.db"), func(d *sqlstore.Dialect) { d.BroadNotes = 1 })
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, n := range notes {
		if err := walk.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	walks := []ports.Notes{walk}
	for i := 1; i <= 2; i++ {
		// Copies of the database made before the titles' index, or with
		// no note index: opening them fills what is missing.
		path := filepath.Join(dir, fmt.Sprintf("walk%d.db", i))
		if _, err := db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
			t.Fatal(err)
		}
		broad := func(d *sqlstore.Dialect) { d.BroadNotes = 3 }
		_, cdb, err := sqlite.Open(ctx, path, broad)
		if err != nil {
			t.Fatal(err)
		}
		defer cdb.Close()
		if err := dropNoteIndex(ctx, cdb, i == 2); err != nil {
			t.Fatal(err)
		}
		w, err := sqlite.New(ctx, cdb, broad)
		if err != nil {
			t.Fatal(err)
		}
		walks = append(walks, w)
	}
	// The default run walks fewer queries, page sizes and offsets, and
	// the copies only the queries of "walkabout" (deeptest).
	deep := deeptest.On()
	sizes, offsets := []int{1, 4}, []int{2}
	if deep {
		sizes, offsets = []int{1, 3, 7}, []int{1, 2, 5}
	}
	for _, q := range walkQueries(t, notes, deep) {
		stores := walks
		if !deep && q != "walkabout" && q != "ALKA" {
			stores = walks[:1]
		}
		for _, count := range []bounded.Page{{}, {Count: bounded.CountCapped, CountCap: 4}, {Count: bounded.CountNone}} {
			for _, size := range sizes {
				p := count
				p.Limit = size
				name := fmt.Sprintf("%q, %d a page, count %v", q, size, count.Count)
				search := func(s ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
					return s.SearchNotes(ctx, q, p)
				}
				want := walkBoth(t, name, mem, p, search)
				for i, walk := range stores {
					got := walkBoth(t, name, walk, p, search)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s, store %d (-memrepo +sqlite):\n%s", name, i, diff)
					}
					for _, off := range offsets {
						p.Offset = off
						w, werr := search(mem, p)
						g, gerr := search(walk, p)
						if diff := cmp.Diff(pageView(w, werr), pageView(g, gerr)); diff != "" {
							t.Errorf("%s, store %d, offset %d (-memrepo +sqlite):\n%s", name, i, off, diff)
						}
					}
					p.Offset = 0
				}
			}
		}
	}
}

// walkQueries returns queries of four characters taken from the
// fixture's titles and contents, each found in several notes: some in
// titles and contents both (among them some in one to three titles), some
// in titles only, and some in contents only (one of each kind unless
// deep), plus queries with no match, one match, and the two to three
// titles of "walkabout".
func walkQueries(t *testing.T, notes []ports.Note, deep bool) []string {
	t.Helper()
	var both, few, titles, contents []string
	seen := map[string]bool{}
	for _, n := range notes {
		for _, text := range []string{n.Title, n.Content} {
			r := []rune(ports.Fold(text))
			for i := 0; i+4 <= len(r); i++ {
				q := string(r[i : i+4])
				if seen[q] || strings.TrimSpace(q) != q {
					continue
				}
				seen[q] = true
				var inTitle, inContent int
				for _, m := range notes {
					switch {
					case strings.Contains(ports.Fold(m.Title), q):
						inTitle++
					case strings.Contains(ports.Fold(m.Content), q):
						inContent++
					}
				}
				switch {
				case inTitle >= 1 && inTitle <= 3 && inContent >= 2 && len(few) < 2:
					few = append(few, q)
				case inTitle >= 2 && inContent >= 2 && len(both) < 4:
					both = append(both, q)
				case inTitle >= 3 && inContent == 0 && len(titles) < 2:
					titles = append(titles, q)
				case inTitle == 0 && inContent >= 3 && len(contents) < 2:
					contents = append(contents, q)
				}
			}
		}
	}
	if len(both) < 2 || len(titles) == 0 || len(contents) == 0 {
		t.Fatalf("the fixture has too few queries: %q in titles and contents, %q in titles, %q in contents", both, titles, contents)
	}
	fixed := []string{"no such text", notes[0].ID, "walkabout", "ALKA"}
	if !deep {
		return slices.Concat(both[:1], few[:min(len(few), 1)], titles[:1], contents[:1], fixed)
	}
	return slices.Concat(both, few, titles, contents, fixed)
}

// walkedPage is what a walk compares of a page: its items' ids and its
// info but for the cursors' values.
type walkedPage struct {
	IDs        []string
	Info       bounded.PageInfo
	Next, Prev bool
	CursorAt   bool
	Err        string
}

func pageView(pg bounded.Paged[ports.NoteRef], err error) walkedPage {
	v := walkedPage{Info: pg.Page, Next: pg.Page.NextCursor != "", Prev: pg.Page.PrevCursor != "", CursorAt: pg.CursorAt != nil}
	v.Info.NextCursor, v.Info.PrevCursor = "", ""
	for _, it := range pg.Items {
		v.IDs = append(v.IDs, it.ID)
	}
	if err != nil {
		v.Err = err.Error()
	}
	return v
}

// walkBoth walks search from the first page p to the last by NextCursor,
// then back to the first by PrevCursor, and returns every page read.
func walkBoth(t *testing.T, name string, s ports.Notes, p bounded.Page,
	search func(ports.Notes, bounded.Page) (bounded.Paged[ports.NoteRef], error)) []walkedPage {
	t.Helper()
	var pages []walkedPage
	pg, err := search(s, p)
	pages = append(pages, pageView(pg, err))
	for _, dir := range []struct {
		name   string
		cursor func(bounded.PageInfo) string
	}{
		{"forward", func(pi bounded.PageInfo) string { return pi.NextCursor }},
		{"backward", func(pi bounded.PageInfo) string { return pi.PrevCursor }},
	} {
		for i := 0; err == nil && dir.cursor(pg.Page) != ""; i++ {
			if i > 200 {
				t.Fatalf("%s: over 200 pages %s", name, dir.name)
			}
			q := p
			q.Cursor = dir.cursor(pg.Page)
			pg, err = search(s, q)
			pages = append(pages, pageView(pg, err))
		}
	}
	return pages
}
