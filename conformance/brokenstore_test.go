package conformance

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// Deliberately broken stores: each wraps memrepo and breaks one method in
// one way. The suite must report failures for every one of them.

// skipping drops an item between pages: a page at an offset past 0 starts
// one item late (an off-by-one OFFSET), while claiming the offset asked.
type skipping struct{ *memrepo.Store }

func (b skipping) Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if p.Offset == 0 {
		pg, err := b.Store.Backlinks(ctx, id, p)
		pg.Page.NextCursor, pg.Page.PrevCursor = "", ""
		return pg, err
	}
	q := p
	q.Offset++
	pg, err := b.Store.Backlinks(ctx, id, q)
	pg.Page.Offset = p.Offset
	if pg.Page.HasMore {
		pg.Page.NextOffset = p.Offset + pg.Page.Returned
	}
	// A store without cursors: walks follow the broken offsets.
	pg.Page.NextCursor, pg.Page.PrevCursor = "", ""
	return pg, err
}

// repeating repeats an item between pages: a page at an offset past 0
// starts one item early.
type repeating struct{ *memrepo.Store }

func (b repeating) SearchNodes(ctx context.Context, nq ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
	if p.Offset == 0 {
		pg, err := b.Store.SearchNodes(ctx, nq, p)
		pg.Page.NextCursor, pg.Page.PrevCursor = "", ""
		return pg, err
	}
	q := p
	q.Offset--
	pg, err := b.Store.SearchNodes(ctx, nq, q)
	pg.Page.Offset = p.Offset
	if pg.Page.HasMore {
		pg.Page.NextOffset = p.Offset + pg.Page.Returned
	}
	// A store without cursors: walks follow the broken offsets.
	pg.Page.NextCursor, pg.Page.PrevCursor = "", ""
	return pg, err
}

// miscounting reports one item more than there are (a COUNT that joins a
// row too many).
type miscounting struct{ *memrepo.Store }

func (b miscounting) ResponseHistory(ctx context.Context, endpoint string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	pg, err := b.Store.ResponseHistory(ctx, endpoint, p)
	pg.Page.Total++
	return pg, err
}

// endless always says more items follow, even past the end.
type endless struct{ *memrepo.Store }

func (b endless) Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	pg, err := b.Store.Children(ctx, id, p)
	if err == nil {
		pg.Page.HasMore, pg.Page.NextOffset = true, pg.Page.Offset+pg.Page.Limit
	}
	return pg, err
}

// noFolders knows no folders: Children of an ID that names no note is
// ErrNotFound, as when the hierarchy came only from notes.
type noFolders struct{ *memrepo.Store }

func (b noFolders) Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if _, err := b.Store.GetNote(ctx, id, bounded.Window{MaxLines: 1}); err != nil {
		return bounded.Paged[ports.NoteRef]{}, err
	}
	return b.Store.Children(ctx, id, p)
}

// exactNames resolves a name only to the node of that exact ID.
type exactNames struct{ *memrepo.Store }

func (b exactNames) ResolveNotes(ctx context.Context, names []string) ([]ports.Resolution, error) {
	out, err := b.Store.ResolveNotes(ctx, names)
	for i, r := range out {
		if r.ID != r.Name {
			out[i] = ports.Resolution{Name: r.Name}
		}
	}
	return out, err
}

// cursorSkipping skips the first item after every cursor of Parents (a
// keyset predicate of >= where > was meant, the other way round).
type cursorSkipping struct{ *memrepo.Store }

func (b cursorSkipping) Parents(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if p.Cursor == "" {
		return b.Store.Parents(ctx, id, p)
	}
	q := p
	q.Limit = effective(ports.ParentsLimits, p) + 1
	pg, err := b.Store.Parents(ctx, id, q)
	if err != nil || len(pg.Items) == 0 {
		return pg, err
	}
	pg.Items = pg.Items[1:]
	pg.Page.Returned--
	pg.Page.Limit--
	pg.Page.NextOffset--
	return pg, nil
}

// offsetCursors issues cursors that carry only an offset (ListNotes), in
// NextCursor and in CursorAt: a walk by them skips and repeats items when
// others are written between its pages.
type offsetCursors struct{ *memrepo.Store }

func (b offsetCursors) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if p.Cursor != "" {
		off, err := strconv.Atoi(strings.TrimPrefix(p.Cursor, "offset:"))
		if err != nil || !strings.HasPrefix(p.Cursor, "offset:") {
			return bounded.Paged[ports.NoteRef]{}, fmt.Errorf("%w: %q", bounded.ErrInvalidCursor, p.Cursor)
		}
		p = bounded.Page{Limit: p.Limit, Offset: off}
	}
	pg, err := b.Store.ListNotes(ctx, f, p)
	pg.Page.PrevCursor = ""
	if pg.Page.NextCursor != "" {
		pg.Page.NextCursor = "offset:" + strconv.Itoa(pg.Page.NextOffset)
	}
	if pg.CursorAt != nil {
		off := pg.Page.Offset
		pg.CursorAt = func(n int) (string, error) { return "offset:" + strconv.Itoa(off+n), nil }
	}
	return pg, err
}

// shiftCursorAt makes a page's CursorAt(n) issue the cursor after n+delta
// items (kept within the page): one item late or early, the off-by-one of a
// store that takes the keys of the wrong item.
func shiftCursorAt[T any](pg bounded.Paged[T], delta int) bounded.Paged[T] {
	if at := pg.CursorAt; at != nil {
		n := len(pg.Items)
		pg.CursorAt = func(k int) (string, error) {
			if k >= 1 && k <= n {
				k = min(max(k+delta, 1), n)
			}
			return at(k)
		}
	}
	return pg
}

// cursorAtLate issues CursorAt one item late (Backlinks): a walk that
// continues a cut page by it skips an item.
type cursorAtLate struct{ *memrepo.Store }

func (b cursorAtLate) Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	pg, err := b.Store.Backlinks(ctx, id, p)
	return shiftCursorAt(pg, +1), err
}

// cursorAtEarly issues CursorAt one item early (ResponseHistory): a walk
// that continues a cut page by it repeats an item.
type cursorAtEarly struct{ *memrepo.Store }

func (b cursorAtEarly) ResponseHistory(ctx context.Context, endpoint string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	pg, err := b.Store.ResponseHistory(ctx, endpoint, p)
	return shiftCursorAt(pg, -1), err
}

// allOf reads the whole answer of fetch in pages of max.
func allOf[T any](ctx context.Context, max int, fetch func(p bounded.Page) (bounded.Paged[T], error)) ([]T, error) {
	var out []T
	for it, err := range bounded.All(ctx, bounded.Page{Limit: max}, func(_ context.Context, p bounded.Page) (bounded.Paged[T], error) {
		return fetch(p)
	}) {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// pageOf pages all with l by offset, counting exactly, as a store that got
// the order wrong would.
func pageOf[T any](l bounded.Limits, p bounded.Page, all []T) (bounded.Paged[T], error) {
	if _, err := l.Normalize(p); err != nil {
		return bounded.Paged[T]{}, err
	}
	return bounded.FetchPage(context.Background(), bounded.FromSlice(all), "", bounded.Page{Limit: p.Limit, Offset: p.Offset}, l, driver.Codec{})
}

// tieBreaking orders ListNotes' ties by ID descending instead of
// ascending (an ORDER BY that forgot the direction of its last key).
type tieBreaking struct{ *memrepo.Store }

func (b tieBreaking) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if _, err := b.Store.ListNotes(ctx, f, p); err != nil {
		return bounded.Paged[ports.NoteRef]{}, err
	}
	all, err := allOf(ctx, ports.ListNotesLimits.Max, func(p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return b.Store.ListNotes(ctx, f, p)
	})
	if err != nil {
		return bounded.Paged[ports.NoteRef]{}, err
	}
	slices.SortStableFunc(all, func(a, b ports.NoteRef) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return pageOf(ports.ListNotesLimits, p, all)
}

// wildcards treats % and _ in SearchNotes queries as LIKE wildcards (a
// query passed to LIKE unescaped). It reads the notes once, at its first
// search: the suite does not write after reading.
type wildcards struct {
	*memrepo.Store
	notes *[]ports.NoteContent
}

func (b wildcards) SearchNotes(ctx context.Context, query string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	if _, err := b.Store.SearchNotes(ctx, query, p); err != nil {
		return bounded.Paged[ports.NoteRef]{}, err
	}
	if *b.notes == nil {
		refs, err := allOf(ctx, ports.ListNotesLimits.Max, func(p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return b.Store.ListNotes(ctx, ports.ListFilter{}, p)
		})
		if err != nil {
			return bounded.Paged[ports.NoteRef]{}, err
		}
		for _, ref := range refs {
			n, err := b.Store.GetNote(ctx, ref.ID, bounded.Window{MaxLines: bounded.MaxWindowLines})
			if err != nil {
				return bounded.Paged[ports.NoteRef]{}, err
			}
			*b.notes = append(*b.notes, n)
		}
	}
	var pat strings.Builder
	for _, r := range ports.Fold(query) {
		switch r {
		case '%':
			pat.WriteString("(?s:.*)")
		case '_':
			pat.WriteString("(?s:.)")
		default:
			pat.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re := regexp.MustCompile(pat.String())
	type hit struct {
		ref  ports.NoteRef
		rank int
	}
	var hits []hit
	for _, n := range *b.notes {
		switch {
		case re.MatchString(ports.Fold(n.Title)):
			hits = append(hits, hit{n.NoteRef, 0})
		case re.MatchString(ports.Fold(n.Content)):
			hits = append(hits, hit{n.NoteRef, 1})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.rank, b.rank) })
	all := make([]ports.NoteRef, len(hits))
	for i, h := range hits {
		all[i] = h.ref
	}
	return pageOf(ports.SearchNotesLimits, p, all)
}

// unclamped ignores SearchCode's maximum: it returns as many items as
// asked and does not report a clamp.
type unclamped struct{ *memrepo.Store }

func (b unclamped) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	if p.Limit <= ports.SearchCodeLimits.Max {
		return b.Store.SearchCode(ctx, q, p)
	}
	all, err := allOf(ctx, ports.SearchCodeLimits.Max, func(p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return b.Store.SearchCode(ctx, q, p)
	})
	if err != nil {
		return bounded.Paged[ports.CodeMatch]{}, err
	}
	return pageOf(bounded.Limits{Default: ports.SearchCodeLimits.Default, Max: bounded.MaxOffset}, p, all)
}

// TestBrokenStores runs the suite's tests of the broken method on each
// broken store and checks that it reports failures, in the subtests
// expected to catch the breakage.
func TestBrokenStores(t *testing.T) {
	for _, c := range []struct {
		name string
		// store wraps a new memrepo; the ports it leaves nil are skipped.
		store func(m *memrepo.Store) Store
		// method is the subtree of the suite run, e.g. "Notes/Backlinks".
		method string
		// caughtBy are subtests (below method) that must fail.
		caughtBy []string
	}{
		{
			"skips an item between pages (Backlinks)",
			func(m *memrepo.Store) Store { return Store{Notes: skipping{m}} },
			"Notes/Backlinks",
			[]string{"pagesize=1", "exactly-once/offset", "exactly-once/hint", "exactly-once/all", "edges/ties"},
		},
		{
			"repeats an item between pages (SearchNodes)",
			func(m *memrepo.Store) Store { return Store{Knowledge: repeating{m}} },
			"Knowledge/SearchNodes",
			[]string{"exact/pagesize=2", "fuzzy/exactly-once/page-number", "fuzzy/exactly-once/hint", "exact/edges/ties"},
		},
		{
			"miscounts a total (ResponseHistory)",
			func(m *memrepo.Store) Store { return Store{History: miscounting{m}} },
			"History/ResponseHistory",
			[]string{"pagesize=1", "totals", "past-end", "edges/empty"},
		},
		{
			"breaks ties by ID descending (ListNotes)",
			func(m *memrepo.Store) Store { return Store{Notes: tieBreaking{m}} },
			"Notes/ListNotes",
			[]string{"pagesize=7", "full-read", "edges/ties"},
		},
		{
			"treats LIKE wildcards as wildcards (SearchNotes)",
			func(m *memrepo.Store) Store { return Store{Notes: wildcards{m, new([]ports.NoteContent)}} },
			"Notes/SearchNotes",
			[]string{"pagesize=1", "full-read"},
		},
		{
			"ignores the maximum (SearchCode)",
			func(m *memrepo.Store) Store { return Store{Code: unclamped{m}} },
			"Code/SearchCode",
			[]string{"clamp", "exactly-once/page-number"},
		},
		{
			"skips an item after a cursor (Parents)",
			func(m *memrepo.Store) Store { return Store{Notes: cursorSkipping{m}} },
			"Notes/Parents",
			[]string{"cursor"},
		},
		{
			"pages by offset behind its cursors (ListNotes)",
			func(m *memrepo.Store) Store { return Store{Notes: offsetCursors{m}} },
			"CursorWrites/ListNotes",
			[]string{"", "cut"},
		},
		{
			"issues CursorAt one item late (Backlinks)",
			func(m *memrepo.Store) Store { return Store{Notes: cursorAtLate{m}} },
			"Notes/Backlinks",
			[]string{"cursor-at"},
		},
		{
			"issues CursorAt one item late, walked under writes (Backlinks)",
			func(m *memrepo.Store) Store { return Store{Notes: cursorAtLate{m}} },
			"CursorWrites/Backlinks",
			[]string{"cut"},
		},
		{
			"issues CursorAt one item early (ResponseHistory)",
			func(m *memrepo.Store) Store { return Store{History: cursorAtEarly{m}} },
			"History/ResponseHistory",
			[]string{"cursor-at"},
		},
		{
			"issues CursorAt one item early, walked under writes (ResponseHistory)",
			func(m *memrepo.Store) Store { return Store{History: cursorAtEarly{m}} },
			"CursorWrites/ResponseHistory",
			[]string{"cut"},
		},
		{
			"knows no folders (Children)",
			func(m *memrepo.Store) Store { return Store{Notes: noFolders{m}} },
			"Notes/Children",
			[]string{"pagesize=1", "full-read"},
		},
		{
			"resolves names only as exact IDs (ResolveNotes)",
			func(m *memrepo.Store) Store { return Store{Notes: exactNames{m}} },
			"Notes/ResolveNotes",
			[]string{""},
		},
		{
			"never stops saying more follow (Children)",
			func(m *memrepo.Store) Store { return Store{Notes: endless{m}} },
			"Notes/Children",
			[]string{"pagesize=1", "full-read", "exactly-once/all", "totals", "past-end", "edges/empty"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			only := "broken/" + c.method
			rep := runRecorded("broken", only, Harness{Name: "broken", Cursors: true, New: func(TB) Store { return c.store(memrepo.New()) }})
			if len(rep.failures) == 0 {
				t.Fatalf("the suite reported no failure for a store that %s", c.name)
			}
			failed := rep.failedTests()
			for _, sub := range c.caughtBy {
				if !rep.caughtBy(strings.TrimSuffix(only+"/"+sub, "/")) {
					t.Errorf("%s/%s did not fail; the failing subtests: %v", c.method, sub, failed)
				}
			}
			t.Logf("a store that %s is caught by %d subtests, e.g.:", c.name, len(failed))
			for _, name := range failed[:min(len(failed), 6)] {
				t.Logf("  %s", name)
			}
			for _, f := range rep.failures {
				if strings.HasPrefix(f.test, only+"/"+c.caughtBy[0]) {
					t.Logf("first report of %s:\n%s", f.test, f.msg)
					break
				}
			}
		})
	}
}
