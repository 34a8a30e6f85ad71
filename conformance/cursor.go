package conformance

import (
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
)

// checkCursorWalks walks every query by NextCursor, in lockstep with
// memrepo's own cursor walk, for page sizes 2 and the default: every
// page (items and page info, cursors compared by presence) equals
// memrepo's, the cursor walk's pages sit at the offsets of the offset walk,
// and the items are the whole answer, each once. From the last page it
// walks back by PrevCursor to the first: the same pages, in reverse.
func checkCursorWalks[T any](t TB, s *suite, m *method[T], st, ref Store, fulls *fullCache[T]) {
	for i, q := range m.queries {
		full, ok := fulls.walkable(t, s, m, i, st)
		if !ok {
			continue
		}
		for _, size := range []int{2, 0} {
			fwd, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size}, len(full), func(pi bounded.PageInfo) string { return pi.NextCursor })
			if !ok {
				continue
			}
			var got []T
			limit := effective(m.limits, bounded.Page{Limit: size})
			for k, pg := range fwd {
				got = append(got, pg.Items...)
				if pg.Page.Offset != k*limit {
					t.Errorf("%s: cursor page %d sits at offset %d, want %d", m.label(q, bounded.Page{Limit: size}), k, pg.Page.Offset, k*limit)
				}
				if pg.Page.Total != len(full) || pg.Page.TotalKind != bounded.TotalExact {
					t.Errorf("%s: cursor page %d: Total %d (%v), want %d (exact)", m.label(q, bounded.Page{Limit: size}), k, pg.Page.Total, pg.Page.TotalKind, len(full))
				}
			}
			exactlyOnce(t, s, m.label(q, bounded.Page{Limit: size})+" walked by NextCursor", m.key, full, got)
			last := fwd[len(fwd)-1]
			if last.Page.PrevCursor == "" {
				if len(fwd) > 1 {
					t.Errorf("%s: the last of %d cursor pages has no PrevCursor", m.label(q, bounded.Page{Limit: size}), len(fwd))
				}
				continue
			}
			back, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size, Cursor: last.Page.PrevCursor}, len(full), func(pi bounded.PageInfo) string { return pi.PrevCursor })
			if !ok {
				continue
			}
			slices.Reverse(back)
			if len(back) != len(fwd)-1 {
				t.Errorf("%s: %d pages back by PrevCursor from the last, want %d", m.label(q, bounded.Page{Limit: size}), len(back), len(fwd)-1)
				continue
			}
			for k := range back {
				if d := s.diff(emptySlice(fwd[k].Items), emptySlice(back[k].Items)); d != "" {
					t.Errorf("%s: page %d read backward differs from the same page read forward (-forward +backward):\n%s", m.label(q, bounded.Page{Limit: size}), k, d)
				}
				if back[k].Page.Offset != fwd[k].Page.Offset {
					t.Errorf("%s: page %d read backward sits at offset %d, forward at %d", m.label(q, bounded.Page{Limit: size}), k, back[k].Page.Offset, fwd[k].Page.Offset)
				}
			}
		}
	}
}

// cursorWalk follows the cursors next picks from each page, from start, on
// the store and on memrepo in lockstep, comparing every page; it returns the
// store's pages. It fails when a page differs, a cursor is missing on one
// side, or the walk does not end.
func cursorWalk[T any](t TB, s *suite, m *method[T], q query[T], st, ref Store, start bounded.Page, total int, next func(bounded.PageInfo) string) ([]bounded.Paged[T], bool) {
	t.Helper()
	sp, rp := start, start
	var pages []bounded.Paged[T]
	steps := stepCap(total, effective(m.limits, start))
	for step := 0; ; step++ {
		if step >= steps {
			t.Errorf("%s: the cursor walk did not end after %d pages", m.label(q, start), steps)
			return pages, false
		}
		r := refPage(t, m, q, ref, rp)
		g, err := q.fetch(t.Context(), st, sp)
		if err != nil {
			t.Errorf("%s: %v", m.label(q, sp), err)
			return pages, false
		}
		if d := s.diff(emptyNil(r), emptyNil(g)); d != "" {
			t.Errorf("%s (page %d of a cursor walk): page differs from memrepo's page at its own cursor (-memrepo +%s):\n%s", m.label(q, sp), step, s.store(), d)
			return pages, false
		}
		if g.Page.HasMore && g.Page.NextCursor == "" {
			t.Errorf("%s: HasMore without a NextCursor", m.label(q, sp))
			return pages, false
		}
		pages = append(pages, g)
		rc, sc := next(r.Page), next(g.Page)
		if rc == "" {
			return pages, true
		}
		rp = bounded.Page{Limit: start.Limit, Cursor: rc}
		sp = bounded.Page{Limit: start.Limit, Cursor: sc}
	}
}

// checkCounts asks the first query for pages under each count strategy,
// walking by offset and by cursor, and compares every page with memrepo's:
// a capped count under, at and over the total, and no count at all. Pages
// at and past the end must report the exact total under every strategy.
func checkCounts[T any](t TB, s *suite, m *method[T], st, ref Store, fulls *fullCache[T]) {
	if len(m.queries) == 0 {
		return
	}
	q := m.queries[0]
	full, ok := fulls.get(t, s, m, 0, st)
	if !ok {
		return
	}
	n := len(full)
	type strategy struct {
		mode bounded.CountMode
		cap  int
	}
	strategies := []strategy{{bounded.CountNone, 0}, {bounded.CountCapped, 0}, {bounded.CountCapped, n + 1}, {bounded.CountCapped, max(1, n)}}
	if n > 2 {
		strategies = append(strategies, strategy{bounded.CountCapped, n - 1}, strategy{bounded.CountCapped, 2})
	}
	for _, c := range strategies {
		size := 3
		if n > 30 {
			size = m.limits.Default
		}
		p := bounded.Page{Limit: size, Count: c.mode, CountCap: c.cap}
		for step := 0; ; step++ {
			rp, sp, ok := comparePage(t, s, m, q, st, ref, p)
			if !ok || !rp.Page.HasMore || step > n {
				break
			}
			if kind := sp.Page.TotalKind; c.mode == bounded.CountNone && kind == bounded.TotalExact && sp.Page.HasMore {
				t.Errorf("%s: count none gave an exact total on a page that is not the last", m.label(q, p))
			}
			p.Offset = rp.Page.NextOffset
		}
		// Past the end the total is exact whatever the strategy: the hint
		// names the real last page.
		for _, off := range []int{n, n + 5, 1_000_000} {
			pe := bounded.Page{Limit: size, Offset: off, Count: c.mode, CountCap: c.cap}
			if _, sp, ok := comparePage(t, s, m, q, st, ref, pe); ok && off > 0 && (sp.Page.TotalKind != bounded.TotalExact || sp.Page.Total != n) {
				t.Errorf("%s: past the end, total %d (%v), want exactly %d", m.label(q, pe), sp.Page.Total, sp.Page.TotalKind, n)
			}
		}
		at := fmt.Sprintf("%s count %v cap %d", m.label(q, bounded.Page{Limit: size}), c.mode, c.cap)
		if !s.h.Cursors {
			continue
		}
		pages, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size, Count: c.mode, CountCap: c.cap}, n, func(pi bounded.PageInfo) string { return pi.NextCursor })
		if !ok {
			continue
		}
		var got []T
		for _, pg := range pages {
			got = append(got, pg.Items...)
		}
		exactlyOnce(t, s, at+" walked by NextCursor", m.key, full, got)
	}
}
