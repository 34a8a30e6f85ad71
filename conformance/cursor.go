package conformance

import (
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
)

// checkCursorWalks walks queries by NextCursor, in lockstep with
// memrepo's own cursor walk, for page sizes 2 and the default: every
// page (items and page info, cursors compared by presence) equals
// memrepo's, the cursor walk's pages sit at the offsets of the offset walk,
// and the items are the whole answer, each once. From the last page it
// walks back by PrevCursor to the first: the same pages, in reverse. It
// walks the queries share gives it: every walkable query in the deep run.
func checkCursorWalks[T any](t TB, s *suite, m *method[T], st, ref Store, fulls *fullCache[T]) {
	// The share of the first walkable query, as the count and cursor-at
	// checks read it.
	for _, i := range fulls.share(t, s, m, st, 0, false) {
		q := m.queries[i]
		full, _ := fulls.walkable(t, s, m, i, st)
		for _, size := range []int{2, 0} {
			fwd, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size, Count: bounded.CountExact}, len(full), func(pi bounded.PageInfo) string { return pi.NextCursor })
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
			back, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size, Cursor: last.Page.PrevCursor, Count: bounded.CountExact}, len(full), func(pi bounded.PageInfo) string { return pi.PrevCursor })
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
// store's pages, every one read with start's count strategy. It fails when a
// page differs, a cursor is missing on one side, or the walk does not end.
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
		rp = bounded.Page{Limit: start.Limit, Cursor: rc, Count: start.Count, CountCap: start.CountCap}
		sp = bounded.Page{Limit: start.Limit, Cursor: sc, Count: start.Count, CountCap: start.CountCap}
	}
}

// checkCounts asks the first query for pages under each count strategy,
// walking by offset and by cursor, and compares every page with memrepo's:
// a capped count under, at and over the total, and no count at all. Pages
// at and past the end must report the exact total under every strategy.
// The walks are in pages of 3, of the default size for answers over 30
// items, and in the default run (not the deep one) of 7 for answers of 13
// to 30.
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
	size := 3
	switch {
	case n > 30:
		size = m.limits.Default
	case n > 12 && !deeptest.On():
		// Pages of 7: two or more, so some is not the last.
		size = min(7, m.limits.Max)
	}
	for _, c := range strategies {
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
		// Back from the last page by PrevCursor, counting the same way: a
		// page read backward is the reverse order's, whatever the count.
		last := pages[len(pages)-1]
		if len(pages) < 2 || last.Page.PrevCursor == "" {
			continue
		}
		back, ok := cursorWalk(t, s, m, q, st, ref, bounded.Page{Limit: size, Cursor: last.Page.PrevCursor, Count: c.mode, CountCap: c.cap}, n,
			func(pi bounded.PageInfo) string { return pi.PrevCursor })
		if !ok {
			continue
		}
		slices.Reverse(back)
		got = nil
		for _, pg := range back {
			got = append(got, pg.Items...)
		}
		exactlyOnce(t, s, at+" walked back by PrevCursor", m.key, full[:n-len(last.Items)], got)
	}
}

// checkCursorAt checks [bounded.Paged.CursorAt], the cursor a budget's cut
// continues by, on three pages of 3 items of the first query: the first
// page (read by offset), the second (read by its NextCursor) and the first
// again (read back by the second's PrevCursor). Each page must equal
// memrepo's page at its offset; its CursorAt(n), for n = 1, the middle and
// the page's length, must lead to memrepo's page of 3 items at Offset+n;
// CursorAt(len(Items)) to the page NextCursor leads to; CursorAt(0) of the
// page read by NextCursor must be that cursor; and CursorAt(0) of the
// others and CursorAt(len(Items)+1) must be errors.
func checkCursorAt[T any](t TB, s *suite, m *method[T], st, ref Store, fulls *fullCache[T]) {
	q, full, ok := firstWalkable(t, s, m, st, fulls)
	if !ok {
		return
	}
	const size = 3
	at := func(p bounded.Page) string { return m.label(q, p) }
	fetch := func(p bounded.Page) (bounded.Paged[T], bool) {
		t.Helper()
		pg, err := q.fetch(t.Context(), st, p)
		if err != nil {
			t.Errorf("%s: %v", at(p), err)
			return pg, false
		}
		return pg, true
	}
	// same reports whether got, read with p, is memrepo's page of size
	// items at offset off.
	same := func(p bounded.Page, got bounded.Paged[T], off int, what string) bool {
		t.Helper()
		want := refPage(t, m, q, ref, bounded.Page{Limit: size, Offset: off})
		// The same page, read from a cursor, says so.
		want.Page.AfterCursor = p.Cursor != ""
		if d := s.diff(emptyNil(want), emptyNil(got)); d != "" {
			t.Errorf("%s: %s differs from memrepo's page at offset %d (-memrepo +%s):\n%s", at(p), what, off, s.store(), d)
			return false
		}
		return true
	}
	first := bounded.Page{Limit: size}
	p1, ok := fetch(first)
	if !ok || !same(first, p1, 0, "the page") {
		return
	}
	pages := []pageRead[T]{{first, p1}}
	if len(full) > size && p1.Page.NextCursor != "" {
		second := bounded.Page{Limit: size, Cursor: p1.Page.NextCursor}
		if p2, ok := fetch(second); ok && same(second, p2, size, "the page read by NextCursor") {
			pages = append(pages, pageRead[T]{second, p2})
			if p2.Page.PrevCursor != "" {
				back := bounded.Page{Limit: size, Cursor: p2.Page.PrevCursor}
				if pb, ok := fetch(back); ok && same(back, pb, 0, "the page read back by PrevCursor") {
					pages = append(pages, pageRead[T]{back, pb})
				}
			}
		}
	}
	for _, bp := range pages {
		n := len(bp.pg.Items)
		if bp.pg.CursorAt == nil {
			t.Errorf("%s: a page of %d items has no CursorAt", at(bp.p), n)
			continue
		}
		bad := []int{0, n + 1}
		if bp.p.Cursor != "" && bp.p.Cursor == p1.Page.NextCursor {
			// A page read forward by cursor starts at that cursor.
			bad = bad[1:]
			if c, err := bp.pg.CursorAt(0); err != nil || c != bp.p.Cursor {
				t.Errorf("%s: CursorAt(0) = %q, %v; want the cursor the page was read by", at(bp.p), c, err)
			}
		}
		for _, bad := range bad {
			if _, err := bp.pg.CursorAt(bad); err == nil {
				t.Errorf("%s: CursorAt(%d) of a page of %d items: no error", at(bp.p), bad, n)
			}
		}
		for _, k := range slices.Compact([]int{1, (n + 1) / 2, n}) {
			c, err := bp.pg.CursorAt(k)
			if err != nil || c == "" {
				t.Errorf("%s: CursorAt(%d) = %q, %v; want a cursor", at(bp.p), k, c, err)
				continue
			}
			next := bounded.Page{Limit: size, Cursor: c}
			got, ok := fetch(next)
			if !ok || !same(next, got, bp.pg.Page.Offset+k, fmt.Sprintf("the page after %d of the %d items of %s, read by its CursorAt(%d),", k, n, at(bp.p), k)) {
				continue
			}
			if k == n && bp.pg.Page.HasMore {
				// The page NextCursor leads to: for the first page, read
				// either way, the second, read already.
				var want bounded.Paged[T]
				ok := len(pages) > 1 && bp.pg.Page.Offset == 0
				if ok {
					want = pages[1].pg
				} else {
					want, ok = fetch(bounded.Page{Limit: size, Cursor: bp.pg.Page.NextCursor})
				}
				if ok {
					if d := s.diff(emptyNil(want), emptyNil(got)); d != "" {
						t.Errorf("%s: CursorAt(%d) of a page of %d items leads elsewhere than its NextCursor (-NextCursor +CursorAt):\n%s", at(bp.p), k, n, d)
					}
				}
			}
		}
	}
}

// pageRead is a page a check read, with the request it read it by.
type pageRead[T any] struct {
	p  bounded.Page
	pg bounded.Paged[T]
}

// firstWalkable returns the first of m's queries whose answer has at least
// two items, and that answer.
func firstWalkable[T any](t TB, s *suite, m *method[T], st Store, fulls *fullCache[T]) (query[T], []T, bool) {
	for i, q := range m.queries {
		if full, ok := fulls.walkable(t, s, m, i, st); ok {
			return q, full, true
		}
	}
	return query[T]{}, nil, false
}
