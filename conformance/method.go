package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
)

// runMethod runs the checks every paged method gets, each as a subtest of
// one named after the method:
//
//   - pagesize=1, 2, 3, 7, default, max(N): queries walked by offset
//     and compared with memrepo page by page (each walkable query at two
//     of the sizes, every query at every size in the deep run: see
//     share);
//   - clamp: a limit over the maximum is clamped and reported;
//   - full-read: the whole answer, read in pages of the maximum, is
//     memrepo's;
//   - exactly-once/offset, page-number, hint, all: walks that follow the
//     store's own answers return the whole answer, each item once;
//   - totals: every page's Total, HasMore and NextOffset;
//   - past-end: offsets at and far past the end;
//   - bad-page: negative and overflowing limits and offsets, a garbage
//     cursor;
//   - cursor: walks by NextCursor and back by PrevCursor, page by page
//     against memrepo's own cursor walk (needs Harness.Cursors);
//   - cursor-at: the cursors of Paged.CursorAt, which a budget's cut
//     continues by, lead to memrepo's pages (needs Harness.Cursors);
//   - count: pages under each count strategy (capped under, at and over
//     the total; none), by offset and by cursor;
//   - errors: the method's own bad input;
//   - edges: an empty store, and data whose answer is empty, one item,
//     exactly a page, or items tied on every sort key but the id.
//
// st and ref hold the port's main fixture; the method's subtests only read
// them. Edges open stores of their own.
func runMethod[T any](t TB, s *suite, m method[T], st, ref Store) {
	t.Run(m.name, func(t TB) {
		fulls := &fullCache[T]{}
		for c, ps := range pageSizes(m.limits) {
			t.Run(ps.name, func(t TB) {
				// c+1: the cursor walks, in pages of 2, take share 0.
				for _, i := range fulls.share(t, s, &m, st, c+1, true) {
					compareWalk(t, s, &m, m.queries[i], st, ref, ps.limit)
				}
			})
		}
		t.Run("clamp", func(t TB) { checkClamp(t, s, &m, st, ref) })
		t.Run("full-read", func(t TB) {
			for _, q := range m.queries {
				fullReads(t, s, &m, q, st, ref)
			}
		})
		t.Run("exactly-once", func(t TB) { checkExactlyOnce(t, s, &m, st, fulls) })
		t.Run("totals", func(t TB) { checkTotals(t, s, &m, st, fulls) })
		t.Run("past-end", func(t TB) { checkPastEnd(t, s, &m, st, ref) })
		t.Run("bad-page", func(t TB) { checkBadPage(t, &m, st) })
		t.Run("cursor", func(t TB) {
			if !s.h.Cursors {
				t.Skipf("%s: the harness does not declare the capability Cursors: skipping NextCursor walks", s.store())
			}
			checkCursorWalks(t, s, &m, st, ref, fulls)
		})
		t.Run("cursor-at", func(t TB) {
			if !s.h.Cursors {
				t.Skipf("%s: the harness does not declare the capability Cursors: skipping the checks of CursorAt", s.store())
			}
			checkCursorAt(t, s, &m, st, ref, fulls)
		})
		t.Run("count", func(t TB) { checkCounts(t, s, &m, st, ref, fulls) })
		if len(m.errs) > 0 {
			t.Run("errors", func(t TB) { runErrCases(t, st, m.errs) })
		}
		if m.sized != nil {
			t.Run("edges", func(t TB) { checkEdges(t, s, &m) })
		}
	})
}

// checkClamp asks every query for one item more than the maximum, at the
// start and one item in: the page must be memrepo's, Clamped, with the
// requested limit reported and the maximum applied.
func checkClamp[T any](t TB, s *suite, m *method[T], st, ref Store) {
	for i, q := range m.queries {
		for _, off := range []int{0, 1} {
			if off > 0 && i > 0 {
				break
			}
			p := bounded.Page{Limit: m.limits.Max + 1, Offset: off}
			_, sp, ok := comparePage(t, s, m, q, st, ref, p)
			if !ok {
				continue
			}
			if info := sp.Page; !info.Clamped || info.RequestedLimit != p.Limit || info.Limit != m.limits.Max {
				t.Errorf("%s: Clamped %v, RequestedLimit %d, Limit %d; want true, %d, %d",
					m.label(q, p), info.Clamped, info.RequestedLimit, info.Limit, p.Limit, m.limits.Max)
			}
		}
	}
}

// fullCache holds the store's whole answers of a method's queries, read
// once for the walks of several subtests.
type fullCache[T any] struct {
	items map[int][]T
	errs  map[int]error
}

// get returns the whole answer of the i-th query q read from st (once),
// reporting a failure to read it.
func (c *fullCache[T]) get(t TB, s *suite, m *method[T], i int, st Store) ([]T, bool) {
	t.Helper()
	if c.items == nil {
		c.items, c.errs = map[int][]T{}, map[int]error{}
	}
	items, ok := c.items[i]
	err := c.errs[i]
	if !ok && err == nil {
		items, err = fullRead(t, m, m.queries[i], st, s.store())
		c.items[i], c.errs[i] = items, err
	}
	if err != nil {
		t.Errorf("%v", err)
		return nil, false
	}
	return items, true
}

// walkable returns the store's whole answer of the i-th query when it has
// at least two items (shorter answers are left to the edges).
func (c *fullCache[T]) walkable(t TB, s *suite, m *method[T], i int, st Store) ([]T, bool) {
	t.Helper()
	full, ok := c.get(t, s, m, i, st)
	return full, ok && len(full) >= 2
}

// crossing is how many ways the default run shares a method's walkable
// queries among the walks of one kind (see share).
const crossing = 6

// share returns the indexes of the queries that the check-th walk of a
// kind (a page size, a way of walking) walks: in the deep run (see
// [DeepEnv]) every query; in the default run one in crossing of the
// walkable queries, a different share for each walk, so that every
// walkable query is walked by some walks of each kind and every walk
// walks some query. With short, the queries of fewer than two items (a
// call or two each) are walked by every walk.
func (c *fullCache[T]) share(t TB, s *suite, m *method[T], st Store, check int, short bool) []int {
	t.Helper()
	var walkable, out []int
	for i := range m.queries {
		if _, ok := c.walkable(t, s, m, i, st); ok {
			walkable = append(walkable, i)
		} else if short {
			out = append(out, i)
		}
	}
	stride := min(deeptest.Size(crossing, 1), len(walkable))
	for rank, i := range walkable {
		if rank%stride == check%stride {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// checkExactlyOnce walks queries four ways, each following only the
// store's answers, and checks each walk returns the store's whole answer
// (one read in pages of the maximum) with every item exactly once. Each
// way walks the queries share gives it: every walkable query in the deep
// run.
func checkExactlyOnce[T any](t TB, s *suite, m *method[T], st Store, fulls *fullCache[T]) {
	byOffset := func(size int) func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error) {
		return func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error) {
			return bounded.Page{Limit: size, Offset: pg.Page.NextOffset, Count: bounded.CountExact}, pg.Page.HasMore, nil
		}
	}
	t.Run("offset", func(t TB) {
		for _, i := range fulls.share(t, s, m, st, 0, false) {
			q := m.queries[i]
			full, _ := fulls.walkable(t, s, m, i, st)
			const size = 4
			start := bounded.Page{Limit: size, Count: bounded.CountExact}
			got, ok := walkOf(t, m, q, st, len(full), start, stepCap(len(full), size), byOffset(size))
			if ok {
				exactlyOnce(t, s, m.label(q, start)+" walked by NextOffset", m.key, full, got)
			}
		}
	})
	t.Run("page-number", func(t TB) {
		for _, i := range fulls.share(t, s, m, st, 1, false) {
			q := m.queries[i]
			full, _ := fulls.walkable(t, s, m, i, st)
			for _, size := range []int{7, 0, m.limits.Max + 1} {
				start, err := m.limits.FromPageNumber(0, size)
				if err != nil {
					t.Fatalf("FromPageNumber(0, %d): %v", size, err)
				}
				k := 0
				next := func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error) {
					if !pg.Page.HasMore {
						return p, false, nil
					}
					k++
					np, err := m.limits.FromPageNumber(k, size)
					return np, true, err
				}
				got, ok := walkOf(t, m, q, st, len(full), start, stepCap(len(full), effective(m.limits, start)), next)
				if ok {
					exactlyOnce(t, s, fmt.Sprintf("%s walked by page number (pageSize %d)", m.label(q, start), size), m.key, full, got)
				}
			}
		}
	})
	t.Run("hint", func(t TB) {
		for _, i := range fulls.share(t, s, m, st, 2, false) {
			q := m.queries[i]
			full, _ := fulls.walkable(t, s, m, i, st)
			call := bounded.Call{Tool: m.tool, Args: q.args, Paging: m.paging, DefaultLimit: m.limits.Default}
			for _, size := range []int{3, m.limits.Default} {
				start := bounded.Page{Limit: size}
				if m.paging == bounded.ByPage {
					var err error
					if start, err = m.limits.FromPageNumber(0, size); err != nil {
						t.Fatalf("FromPageNumber(0, %d): %v", size, err)
					}
				}
				next := func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error) {
					args, more := call.Next(pg.Page)
					if !more {
						return p, false, nil
					}
					np, err := pageFromArgs(call, m.limits, args)
					if err != nil {
						return p, false, fmt.Errorf("hint %q: %w", call.Hint(pg.Page, bounded.HintFull), err)
					}
					return np, true, nil
				}
				got, ok := walkOf(t, m, q, st, len(full), start, stepCap(len(full), effective(m.limits, start)), next)
				if ok {
					exactlyOnce(t, s, m.label(q, start)+" walked by hints", m.key, full, got)
				}
			}
		}
	})
	t.Run("all", func(t TB) {
		for _, i := range fulls.share(t, s, m, st, 3, false) {
			q := m.queries[i]
			full, _ := fulls.walkable(t, s, m, i, st)
			const size = 5
			start := bounded.Page{Limit: size}
			steps, limit := 0, stepCap(len(full), size)
			errCap := errors.New("too many pages")
			fetch := func(ctx context.Context, p bounded.Page) (bounded.Paged[T], error) {
				if steps++; steps > limit {
					return bounded.Paged[T]{}, fmt.Errorf("%w: the walk did not end after %d pages", errCap, limit)
				}
				pg, err := q.fetch(ctx, st, p)
				if err == nil {
					checkInfo(t, m.label(q, p), m.limits, p, pg, len(full))
				}
				return pg, err
			}
			var got []T
			var walkErr error
			for it, err := range bounded.All(t.Context(), start, fetch) {
				if err != nil {
					walkErr = err
					break
				}
				got = append(got, it)
			}
			if walkErr != nil {
				t.Errorf("%s with bounded.All: %v", m.label(q, start), walkErr)
				continue
			}
			exactlyOnce(t, s, m.label(q, start)+" walked by bounded.All", m.key, full, got)
		}
	})
}

// checkTotals walks queries by offset in pages of 7 and of the default
// size and checks every page's metadata against the whole answer's length:
// Total, HasMore false exactly on the last page, NextOffset =
// Offset+Returned. It walks the queries share gives it: every walkable
// query in the deep run.
func checkTotals[T any](t TB, s *suite, m *method[T], st Store, fulls *fullCache[T]) {
	for _, i := range fulls.share(t, s, m, st, 4, false) {
		q := m.queries[i]
		full, _ := fulls.walkable(t, s, m, i, st)
		for _, size := range []int{7, 0} {
			start := bounded.Page{Limit: size}
			walkOf(t, m, q, st, len(full), start, stepCap(len(full), effective(m.limits, start)),
				func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error) {
					return bounded.Page{Limit: size, Offset: pg.Page.NextOffset}, pg.Page.HasMore, nil
				})
		}
	}
}

// checkPastEnd asks every query for pages at the end and far past it: no
// items, HasMore false, the exact total, no error, as memrepo answers.
func checkPastEnd[T any](t TB, s *suite, m *method[T], st, ref Store) {
	for i, q := range m.queries {
		exact := bounded.CountExact
		total := refPage(t, m, q, ref, bounded.Page{Limit: 1, Count: exact}).Page.Total
		pages := []bounded.Page{{Offset: total, Count: exact}, {Limit: 1, Offset: bounded.MaxOffset - 1, Count: exact}}
		if i == 0 {
			pages = append(pages, bounded.Page{Limit: 1, Offset: total + 1, Count: exact}, bounded.Page{Limit: 3, Offset: 1_000_000, Count: exact})
		}
		for _, p := range pages {
			if _, sp, ok := comparePage(t, s, m, q, st, ref, p); ok {
				checkInfo(t, m.label(q, p), m.limits, p, sp, total)
			}
		}
	}
}

// checkBadPage sends the first query invalid pages: each must fail with
// the documented error, whatever the store.
func checkBadPage[T any](t TB, m *method[T], st Store) {
	if len(m.queries) == 0 {
		return
	}
	q := m.queries[0]
	for _, c := range []struct {
		name string
		p    bounded.Page
		want error
	}{
		{"negative-limit", bounded.Page{Limit: -1}, bounded.ErrInvalidPage},
		{"negative-offset", bounded.Page{Offset: -1}, bounded.ErrInvalidPage},
		{"offset-over-max", bounded.Page{Offset: bounded.MaxOffset + 1}, bounded.ErrInvalidPage},
		{"offset-plus-limit-over-max", bounded.Page{Limit: 2, Offset: bounded.MaxOffset - 1}, bounded.ErrInvalidPage},
		{"min-int-limit", bounded.Page{Limit: -1 << 63}, bounded.ErrInvalidPage},
		{"garbage-cursor", bounded.Page{Cursor: "!not a cursor!"}, bounded.ErrInvalidCursor},
	} {
		t.Run(c.name, func(t TB) {
			_, err := q.fetch(t.Context(), st, c.p)
			expectErr(t, m.label(q, c.p), err, c.want)
		})
	}
}

// checkEdges checks an empty store, and data sets of known sizes whose
// items are all equal on the method's sort keys but the id: empty, one
// item, exactly one page (of 7 items, and of the default size when it is
// small), and ties.
func checkEdges[T any](t TB, s *suite, m *method[T]) {
	sized := func(t TB, n int, sizes ...int) {
		fx, q := m.sized(n)
		st, ref := s.open(t, m.port, fx)
		want, _, ok := fullReads(t, s, m, q, st, ref)
		if len(want) != n {
			t.Fatalf("the fixture of %d items gives memrepo %d (a bug of the suite)", n, len(want))
		}
		if !ok {
			return
		}
		for _, size := range sizes {
			compareWalk(t, s, m, q, st, ref, size)
			p := bounded.Page{Limit: size}
			sp, err := q.fetch(t.Context(), st, p)
			if err != nil {
				t.Errorf("%s: %v", m.label(q, p), err)
				continue
			}
			checkInfo(t, m.label(q, p), m.limits, p, sp, n)
		}
	}
	t.Run("empty-store", func(t TB) {
		// Nothing at all: an empty page, or for a query naming a note the
		// error memrepo returns (ErrNotFound).
		st, ref := s.open(t, m.port, fixture{})
		for _, q := range m.queries {
			p := bounded.Page{}
			rp, rerr := q.fetch(t.Context(), ref, p)
			sp, serr := q.fetch(t.Context(), st, p)
			if !sameErr(t, m.label(q, p), rerr, serr) || rerr != nil {
				continue
			}
			if d := s.diff(emptyNil(rp), emptyNil(sp)); d != "" {
				t.Errorf("%s: page differs from memrepo (-memrepo +%s):\n%s", m.label(q, p), s.store(), d)
				continue
			}
			checkInfo(t, m.label(q, p), m.limits, p, sp, 0)
		}
	})
	t.Run("empty", func(t TB) { sized(t, 0, 0, 1) })
	t.Run("one", func(t TB) { sized(t, 1, 0, 1, 2) })
	t.Run("exactly-a-page", func(t TB) { sized(t, 7, 7) })
	if m.limits.Default <= 20 { // larger ones cost many writes
		t.Run("exactly-a-default-page", func(t TB) { sized(t, m.limits.Default, 0) })
	}
	t.Run("ties", func(t TB) { sized(t, 12, 1, 5, 0) })
}
