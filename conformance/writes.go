package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// Cursor walks under concurrent writes: a store that pages by keyset keeps
// a walk exact while items are written between its pages. Between every two
// pages of a walk by NextCursor, the checks insert one item that sorts
// before the walk's position and one that sorts after it and, where the
// port can delete, delete one item not yet reached and, every other page,
// one already returned. Every item that exists throughout the walk must come back
// exactly once, every item inserted after the position exactly once, no
// item twice, and no deleted item after its deletion. (An offset walk
// fails this: a deletion behind it skips an item, an insertion behind it
// repeats one.)
//
// Then, on the same store, a walk whose every page is cut as a budget cuts
// it ([bounded.Fit]): it keeps the first 1, 2 or 3 items of a page of 4 and
// continues by the page's [bounded.Paged.CursorAt] of the items kept, while
// one item is inserted behind the walk, deleted behind it or inserted ahead
// of it between every other two pages: every item that exists throughout
// comes back exactly once, and every item inserted ahead exactly once.
//
// Subtests are named "CursorWrites/<method>" and "CursorWrites/<method>/cut".

// writeWalk is one method walked under writes.
type writeWalk struct {
	name string
	port port
	// load writes the initial items and returns their ids.
	load func(ctx context.Context, s Store) ([]string, error)
	// fetch reads one page.
	fetch func(ctx context.Context, s Store, p bounded.Page) (walkPage, error)
	// insert writes the k-th new item, sorting first (behind the walk:
	// before every item so far) or last (ahead of it: after every item so
	// far, for k at most 99, or from 500 on), and returns its id.
	insert func(ctx context.Context, s Store, k int, last bool) (string, error)
	// remove deletes an item, or is nil when the port cannot.
	remove func(ctx context.Context, s Store, id string) error
}

// walkPage is one page of a walk under writes.
type walkPage struct {
	ids      []string // the items' ids
	info     bounded.PageInfo
	cursorAt func(n int) (string, error) // the page's CursorAt
}

// walkPageOf is the walkPage of pg, with id the id of an item.
func walkPageOf[T any](pg bounded.Paged[T], err error, id func(T) string) (walkPage, error) {
	w := walkPage{info: pg.Page, cursorAt: pg.CursorAt}
	for _, it := range pg.Items {
		w.ids = append(w.ids, id(it))
	}
	return w, err
}

var writeBase = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

func writeWalks() []writeWalk {
	noteAt := func(id string, at time.Time, title string) ports.Note {
		return ports.Note{ID: id, Title: title, Content: "walked under writes", UpdatedAt: at, Tags: []string{"w"},
			Links: []ports.Link{{Target: "hub"}}, Parents: []string{"hub"}}
	}
	refIDs := func(pg bounded.Paged[ports.NoteRef], err error) (walkPage, error) {
		return walkPageOf(pg, err, noteRefKey)
	}
	loadNotes := func(ctx context.Context, s Store) ([]string, error) {
		if err := s.Notes.PutNote(ctx, ports.Note{ID: "hub", Title: "hub", UpdatedAt: writeBase}); err != nil {
			return nil, err
		}
		var ids []string
		for i := range 24 {
			id := fmt.Sprintf("w/%02d", i)
			// Ties in threes on UpdatedAt and title: the id breaks them.
			if err := s.Notes.PutNote(ctx, noteAt(id, writeBase.Add(time.Duration(i/3)*time.Hour), fmt.Sprintf("title %02d", i/3))); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	insertNote := func(ctx context.Context, s Store, k int, last bool) (string, error) {
		id := fmt.Sprintf("new/%02d/first", k)
		at, title := writeBase.Add(1000*time.Hour+time.Duration(k)*time.Minute), "a title"
		if last {
			id = fmt.Sprintf("new/%02d/last", k)
			at, title = writeBase.Add(-1000*time.Hour-time.Duration(k)*time.Minute), "z title"
		}
		return id, s.Notes.PutNote(ctx, noteAt(id, at, title))
	}
	children := func(ctx context.Context, s Store, k int, last bool) (string, error) {
		// Children sorts by title ascending, the others by time descending.
		id := fmt.Sprintf("new/%02d/first", k)
		at, title := writeBase.Add(-1000*time.Hour), fmt.Sprintf("a title %03d", 999-k)
		if last {
			id = fmt.Sprintf("new/%02d/last", k)
			at, title = writeBase.Add(1000*time.Hour), "z title"
		}
		return id, s.Notes.PutNote(ctx, noteAt(id, at, title))
	}
	removeNote := func(ctx context.Context, s Store, id string) error { return s.Notes.DeleteNote(ctx, id) }
	return []writeWalk{
		{name: "ListNotes", port: notesPort, load: loadNotes, insert: insertNote, remove: removeNote,
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				return refIDs(s.Notes.ListNotes(ctx, ports.ListFilter{Tag: "w"}, p))
			}},
		{name: "Backlinks", port: notesPort, load: loadNotes, insert: insertNote, remove: removeNote,
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				return refIDs(s.Notes.Backlinks(ctx, "hub", p))
			}},
		{name: "Children", port: notesPort, load: loadNotes, insert: children, remove: removeNote,
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				return refIDs(s.Notes.Children(ctx, "hub", p))
			}},
		{name: "ResponseHistory", port: historyPort,
			load: func(ctx context.Context, s Store) ([]string, error) {
				var ids []string
				for i := range 24 {
					id := fmt.Sprintf("run/%02d", i)
					if err := s.History.RecordRun(ctx, ports.Run{ID: id, EndpointID: "ep", StartedAt: writeBase.Add(time.Duration(i/3) * time.Minute), Body: "b"}); err != nil {
						return nil, err
					}
					ids = append(ids, id)
				}
				return ids, nil
			},
			insert: func(ctx context.Context, s Store, k int, last bool) (string, error) {
				id, at := fmt.Sprintf("new/%02d/first", k), writeBase.Add(1000*time.Hour+time.Duration(k)*time.Minute)
				if last {
					// Older than every run so far: after the walk's position.
					id, at = fmt.Sprintf("new/%02d/last", k), writeBase.Add(-1000*time.Hour-time.Duration(k)*time.Minute)
				}
				return id, s.History.RecordRun(ctx, ports.Run{ID: id, EndpointID: "ep", StartedAt: at, Body: "b"})
			},
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				pg, err := s.History.ResponseHistory(ctx, "ep", p)
				return walkPageOf(pg, err, func(r ports.RunView) string { return r.ID })
			}},
		{name: "SearchNodes", port: knowledgePort,
			load: func(ctx context.Context, s Store) ([]string, error) {
				var ids []string
				for i := range 24 {
					id := fmt.Sprintf("entity %02d", i)
					if err := s.Knowledge.PutEntity(ctx, ports.Entity{Name: id, Type: "walked", UpdatedAt: writeBase.Add(time.Duration(i/3) * time.Minute)}); err != nil {
						return nil, err
					}
					ids = append(ids, id)
				}
				return ids, nil
			},
			insert: func(ctx context.Context, s Store, k int, last bool) (string, error) {
				id, at := fmt.Sprintf("new %02d first", k), writeBase.Add(1000*time.Hour+time.Duration(k)*time.Minute)
				if last {
					id, at = fmt.Sprintf("new %02d last", k), writeBase.Add(-1000*time.Hour-time.Duration(k)*time.Minute)
				}
				return id, s.Knowledge.PutEntity(ctx, ports.Entity{Name: id, Type: "walked", UpdatedAt: at})
			},
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				pg, err := s.Knowledge.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"walked"}}, p)
				return walkPageOf(pg, err, func(m ports.NodeMatch) string { return m.Name })
			}},
		{name: "SearchCode", port: codePort,
			load: func(ctx context.Context, s Store) ([]string, error) {
				var ids []string
				var chunks []ports.Chunk
				for i := range 24 {
					id := fmt.Sprintf("chunk/%02d", i)
					// Scores 1/2 and 1: ties on score, then path and line.
					content := "walked"
					if i%2 == 0 {
						content = "walked under writes"
					}
					chunks = append(chunks, ports.Chunk{ID: id, FilePath: fmt.Sprintf("f%d.go", i/4), StartLine: 1 + i%4, EndLine: 1 + i%4, Content: content})
					ids = append(ids, id)
				}
				return ids, s.Code.PutChunks(ctx, chunks)
			},
			insert: func(ctx context.Context, s Store, k int, last bool) (string, error) {
				id, content, path := fmt.Sprintf("new/%02d/first", k), "walked under writes", fmt.Sprintf("a%03d.go", 999-k)
				if last {
					id, content, path = fmt.Sprintf("new/%02d/last", k), "walked", "z.go"
				}
				return id, s.Code.PutChunks(ctx, []ports.Chunk{{ID: id, FilePath: path, StartLine: 1, EndLine: 1, Content: content}})
			},
			fetch: func(ctx context.Context, s Store, p bounded.Page) (walkPage, error) {
				pg, err := s.Code.SearchCode(ctx, ports.CodeQuery{Query: "walked under"}, p)
				return walkPageOf(pg, err, func(m ports.CodeMatch) string { return m.ID })
			}},
	}
}

// runCursorWrites runs the walks under writes, each on a store of its own.
func (s *suite) runCursorWrites(t TB) {
	t.Run("CursorWrites", func(t TB) {
		if !s.h.Cursors {
			t.Skipf("%s: the harness does not declare the capability Cursors: skipping cursor walks under writes", s.store())
		}
		for _, w := range writeWalks() {
			t.Run(w.name, func(t TB) {
				st := s.h.New(t)
				if !st.has(w.port) {
					t.Skipf("%s: Store.%s is nil", s.store(), w.port)
				}
				checkWalkUnderWrites(t, w, st)
				t.Run("cut", func(t TB) { checkCutWalkUnderWrites(t, w, st) })
			})
		}
	})
}

func checkWalkUnderWrites(t TB, w writeWalk, st Store) {
	ctx := t.Context()
	initial, err := w.load(ctx, st)
	if err != nil {
		t.Fatalf("%s: load: %v", w.name, err)
	}
	deleted := map[string]bool{}
	ahead := map[string]bool{}
	returned := map[string]int{}
	var order []string
	p := bounded.Page{Limit: 3}
	for step := 0; ; step++ {
		if step > 40 {
			t.Fatalf("%s: the walk under writes did not end after %d pages", w.name, step)
		}
		pg, err := w.fetch(ctx, st, p)
		if err != nil {
			t.Fatalf("%s(page %d): %v", w.name, step, err)
		}
		ids, info := pg.ids, pg.info
		for _, id := range ids {
			returned[id]++
			order = append(order, id)
			if deleted[id] {
				t.Errorf("%s: %s returned after it was deleted", w.name, id)
			}
		}
		if !info.HasMore {
			break
		}
		if info.NextCursor == "" {
			t.Fatalf("%s(page %d): HasMore without a NextCursor", w.name, step)
		}
		// Writes between the pages.
		if _, err := w.insert(ctx, st, step, false); err != nil {
			t.Fatalf("%s: insert: %v", w.name, err)
		}
		id, err := w.insert(ctx, st, step, true)
		if err != nil {
			t.Fatalf("%s: insert: %v", w.name, err)
		}
		ahead[id] = true
		if w.remove != nil {
			// Deleting behind the walk every other page only, so that
			// inserts and deletes behind it do not cancel out.
			behind := ""
			if step%2 == 1 {
				behind = ids[0]
			}
			var next string
			for _, c := range initial {
				if returned[c] == 0 && !deleted[c] {
					next = c // an item not reached yet
				}
			}
			for _, d := range []string{behind, next} {
				if d == "" || deleted[d] {
					continue
				}
				if err := w.remove(ctx, st, d); err != nil {
					t.Fatalf("%s: delete %s: %v", w.name, d, err)
				}
				deleted[d] = true
			}
		}
		p = bounded.Page{Limit: 3, Cursor: info.NextCursor}
	}
	bad := walkFaults(returned, initial, deleted, ahead)
	if len(bad) > 0 {
		t.Errorf("%s walked by NextCursor (pages of 3) while items were inserted and deleted between pages: %s\nwalk: %s",
			w.name, strings.Join(bad, "; "), strings.Join(order, " "))
	}
}

// checkCutWalkUnderWrites walks w on st, whatever it holds, cutting every
// page of 4 items to its first 1, 2 or 3 (in turn) and continuing by the
// page's CursorAt of the items kept, as a walk through [bounded.Fit] under
// a small budget does, while items are written between the pages: before
// the second page one is inserted behind the walk, before the fourth one it
// returned is deleted, before the sixth one is inserted ahead of it, and
// so on. Every item present from the start to the end comes back exactly
// once, every item inserted ahead exactly once, none twice, none after its
// deletion.
func checkCutWalkUnderWrites(t TB, w writeWalk, st Store) {
	ctx := t.Context()
	// The items present now, read whole by offset (nothing is written
	// meanwhile).
	var initial []string
	for p := (bounded.Page{Limit: 20}); ; {
		pg, err := w.fetch(ctx, st, p)
		if err != nil {
			t.Fatalf("%s(%+v): %v", w.name, p, err)
		}
		initial = append(initial, pg.ids...)
		if !pg.info.HasMore || len(initial) > 1000 {
			break
		}
		p.Offset = pg.info.NextOffset
	}
	deleted := map[string]bool{}
	ahead := map[string]bool{}
	returned := map[string]int{}
	var order []string
	p := bounded.Page{Limit: 4}
	for step := 0; ; step++ {
		if step > 3*len(initial)+10 {
			t.Fatalf("%s: the cut walk under writes did not end after %d pages", w.name, step)
		}
		pg, err := w.fetch(ctx, st, p)
		if err != nil {
			t.Fatalf("%s(page %d of the cut walk): %v", w.name, step, err)
		}
		keep := len(pg.ids)
		if keep > 1 {
			keep = 1 + step%(keep-1) // a cut: 1 to keep-1 items kept
		}
		for _, id := range pg.ids[:keep] {
			returned[id]++
			order = append(order, id)
			if deleted[id] {
				t.Errorf("%s: %s returned after it was deleted", w.name, id)
			}
		}
		if keep == len(pg.ids) && !pg.info.HasMore {
			break
		}
		if keep == 0 {
			t.Fatalf("%s(page %d of the cut walk): an empty page says more follow", w.name, step)
		}
		if pg.cursorAt == nil {
			t.Fatalf("%s(page %d of the cut walk): a page of %d items has no CursorAt", w.name, step, len(pg.ids))
		}
		c, err := pg.cursorAt(keep)
		if err != nil {
			t.Fatalf("%s(page %d of the cut walk): CursorAt(%d): %v", w.name, step, keep, err)
		}
		// One write between every other two pages, of each kind in turn.
		switch k := 500 + step; {
		case step%2 == 1:
		case step%6 == 0:
			if _, err := w.insert(ctx, st, k, false); err != nil {
				t.Fatalf("%s: insert: %v", w.name, err)
			}
		case step%6 == 2 && w.remove != nil:
			if err := w.remove(ctx, st, pg.ids[0]); err != nil {
				t.Fatalf("%s: delete %s: %v", w.name, pg.ids[0], err)
			}
			deleted[pg.ids[0]] = true
		default:
			id, err := w.insert(ctx, st, k, true)
			if err != nil {
				t.Fatalf("%s: insert: %v", w.name, err)
			}
			ahead[id] = true
		}
		p = bounded.Page{Limit: 4, Cursor: c}
	}
	bad := walkFaults(returned, initial, deleted, ahead)
	if len(bad) > 0 {
		if len(bad) > 10 {
			bad = append(bad[:10], fmt.Sprintf("... %d more", len(bad)-10))
		}
		t.Errorf("%s walked by CursorAt of pages cut to 1-3 of 4 items while items were inserted and deleted between pages: %s\nwalk: %s",
			w.name, strings.Join(bad, "; "), strings.Join(order, " "))
	}
}

// walkFaults lists what a walk under writes got wrong: an item returned
// more than once, an item present throughout (initial and never deleted)
// or inserted ahead of the walk not returned exactly once. Its order is
// sorted.
func walkFaults(returned map[string]int, initial []string, deleted, ahead map[string]bool) []string {
	var bad []string
	for id, n := range returned {
		if n > 1 {
			bad = append(bad, fmt.Sprintf("%s returned %d times", id, n))
		}
	}
	for _, id := range initial {
		if !deleted[id] && returned[id] != 1 {
			bad = append(bad, fmt.Sprintf("%s, present throughout, returned %d times", id, returned[id]))
		}
	}
	for id := range ahead {
		if returned[id] != 1 {
			bad = append(bad, fmt.Sprintf("%s, inserted ahead of the walk, returned %d times", id, returned[id]))
		}
	}
	slices.Sort(bad)
	return bad
}
