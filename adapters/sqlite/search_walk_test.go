package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
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
		adaptertest.SameWalks(t, fmt.Sprintf("%q", q), sizes, offsets, ports.Notes(mem), stores,
			func(s ports.Notes) func(bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return func(p bounded.Page) (bounded.Paged[ports.NoteRef], error) { return s.SearchNotes(ctx, q, p) }
			}, noteID)
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

func noteID(n ports.NoteRef) string { return n.ID }

// TestSearchCodeWalk checks SearchCode's walk of the chunks in result
// order against memrepo ([adaptertest.CodeWalk]).
func TestSearchCodeWalk(t *testing.T) {
	adaptertest.CodeWalk(t, func(t *testing.T, broad int) ports.Code {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "code.db"), func(d *sqlstore.Dialect) { d.BroadCode = broad })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s
	})
}

// TestSearchFuzzyWalk checks fuzzy SearchNodes against memrepo
// ([adaptertest.FuzzyWalk]).
func TestSearchFuzzyWalk(t *testing.T) {
	adaptertest.FuzzyWalk(t, func(t *testing.T, broad int) ports.Knowledge {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fuzzy.db"), func(d *sqlstore.Dialect) { d.BroadFuzzy = broad })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s
	})
}

func TestTrigramMigration(t *testing.T) {
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	adaptertest.TrigramMigration(t, db, sqlite.Dialect.Text, func(db *bun.DB) (ports.Knowledge, error) { return sqlite.New(context.Background(), db) })
}
