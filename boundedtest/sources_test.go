package boundedtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// item is the test data: sorted by Score descending, ties by ID.
type item struct {
	ID    int64  `json:"id"`
	Score int64  `json:"score"`
	Body  string `json:"body"`
}

func itemKeys(it item) []any { return []any{it.Score, it.ID} }

func compareItems(a, b item) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// items returns n items in order, in ties of four, with bodies of varying
// length (some long enough for a budget to clip).
func items(n int) []item {
	out := make([]item, n)
	for i := range out {
		out[i] = item{ID: int64(i * 10), Score: int64(100 - i/4), Body: fmt.Sprintf("item %d %s", i, strings.Repeat("é", i%11*3))}
	}
	return out
}

func sliceOf(want []item) bounded.Source[item] { return bounded.FromSlice(want) }

func keyedOf(want []item) bounded.Source[item] {
	return bounded.FromSlice(want).WithKeys(itemKeys, true)
}

// funcOf is a FromFunc source: a LIMIT/OFFSET query and a count.
func funcOf(want []item) bounded.Source[item] {
	return bounded.FromFunc(func(_ context.Context, r driver.Request) ([]item, int, error) {
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit, len(want))], len(want), nil
	})
}

// uncountedOf is a FromFunc source that does not count: it reads one item
// past the page instead.
func uncountedOf(want []item) bounded.Source[item] {
	return bounded.FromFunc(func(_ context.Context, r driver.Request) ([]item, int, error) {
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit+1, len(want))], -1, nil
	})
}

// wrap is a Source that changes the requests and rows of another.
type wrap struct {
	src bounded.Source[item]
	req func(r driver.Request) driver.Request
	// rows, when set, changes the rows read for r.
	rows func(r driver.Request, rows driver.Rows[item]) driver.Rows[item]
}

func (w wrap) Fetch(ctx context.Context, r driver.Request) (driver.Rows[item], error) {
	if w.req != nil {
		r = w.req(r)
	}
	rows, err := w.src.Fetch(ctx, r)
	if err == nil && w.rows != nil {
		rows = w.rows(r, rows)
	}
	return rows, err
}

// shiftOffsets starts every page at an offset past 0 delta items late (an
// off-by-one OFFSET): +1 skips an item between pages, -1 repeats one.
func shiftOffsets(src bounded.Source[item], delta int) bounded.Source[item] {
	return wrap{src: src, req: func(r driver.Request) driver.Request {
		if r.At == nil && r.Offset > 0 {
			r.Offset += delta
		}
		return r
	}}
}

// miscount counts one item too many (a COUNT that joins a row twice).
func miscount(src bounded.Source[item]) bounded.Source[item] {
	return wrap{src: src, rows: func(_ driver.Request, rows driver.Rows[item]) driver.Rows[item] {
		if rows.Count >= 0 {
			rows.Count++
		}
		return rows
	}}
}

// capAtCap returns a capped count of exactly the cap when more items
// match, where the cap plus one is due: the total then looks exact.
func capAtCap(src bounded.Source[item]) bounded.Source[item] {
	return wrap{src: src, rows: func(r driver.Request, rows driver.Rows[item]) driver.Rows[item] {
		if r.Count == bounded.CountCapped && rows.Count > r.CountCap {
			rows.Count = r.CountCap
		}
		return rows
	}}
}

// lastPagePastEnd answers an offset past the end with the last page.
func lastPagePastEnd(want []item) bounded.Source[item] {
	return wrap{src: bounded.FromSlice(want), req: func(r driver.Request) driver.Request {
		if r.At == nil && r.Offset >= len(want) {
			r.Offset = max(0, len(want)-r.Limit)
		}
		return r
	}}
}

// unstableTies orders ties by ID descending on every other call (an ORDER
// BY without its tie-breaker, which the engine resolves as it likes).
type unstableTies struct {
	mu      sync.Mutex
	calls   int
	asc     bounded.Source[item]
	flipped bounded.Source[item]
}

func newUnstableTies(want []item) *unstableTies {
	flipped := slices.Clone(want)
	slices.SortStableFunc(flipped, func(a, b item) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return &unstableTies{asc: bounded.FromSlice(want), flipped: bounded.FromSlice(flipped)}
}

func (u *unstableTies) Fetch(ctx context.Context, r driver.Request) (driver.Rows[item], error) {
	u.mu.Lock()
	u.calls++
	odd := u.calls%2 == 1
	u.mu.Unlock()
	if odd {
		return u.flipped.Fetch(ctx, r)
	}
	return u.asc.Fetch(ctx, r)
}

// shiftKeys gives each item the sort keys of the item delta places after
// it: every cursor it issues stands delta items late (+1 skips an item
// after each cursor, -1 repeats one).
func shiftKeys(want []item, delta int) bounded.Source[item] {
	return wrap{src: keyedOf(want), rows: func(_ driver.Request, rows driver.Rows[item]) driver.Rows[item] {
		rows.Keys = func(it item) []any {
			i, _ := slices.BinarySearchFunc(want, it, compareItems)
			return itemKeys(want[min(max(i+delta, 0), len(want)-1)])
		}
		return rows
	}}
}

// forwardOnly ignores the backward flag of a cursor.
func forwardOnly(want []item) bounded.Source[item] {
	return wrap{src: keyedOf(want), req: func(r driver.Request) driver.Request {
		if r.At != nil && r.At.Backward {
			at := *r.At
			at.Backward = false
			r.At = &at
		}
		return r
	}}
}

// anyKeyCount makes do with cursors of any number of keys, padding or
// cutting them to its two.
func anyKeyCount(want []item) bounded.Source[item] {
	return wrap{src: keyedOf(want), req: func(r driver.Request) driver.Request {
		if r.At != nil && len(r.At.Keys) != 2 {
			at := *r.At
			at.Keys = append(slices.Clone(at.Keys), int64(0), int64(0))[:2]
			r.At = &at
		}
		return r
	}}
}

// oneShot is a FromFunc source that neither counts nor reads past its
// page: it never knows that more items follow.
func oneShot(want []item) bounded.Source[item] {
	return bounded.FromFunc(func(_ context.Context, r driver.Request) ([]item, int, error) {
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit, len(want))], -1, nil
	})
}

// untypedRefusal refuses cursors with an error that does not wrap
// bounded.ErrInvalidCursor.
type untypedRefusal struct{ bounded.Source[item] }

func (u untypedRefusal) Fetch(ctx context.Context, r driver.Request) (driver.Rows[item], error) {
	if r.At != nil {
		return driver.Rows[item]{}, errors.New("no cursors here")
	}
	return u.Source.Fetch(ctx, r)
}

// store is a source over items that change while it is read: each Fetch
// reads a copy taken under its lock.
type store struct {
	mu    sync.Mutex
	items []item
	// byOffset pages by the cursor's offset, not its keys (a store whose
	// cursors are offsets in disguise).
	byOffset bool
}

func newStore(want []item) *store { return &store{items: slices.Clone(want)} }

func (s *store) Fetch(ctx context.Context, r driver.Request) (driver.Rows[item], error) {
	s.mu.Lock()
	snap := slices.Clone(s.items)
	s.mu.Unlock()
	if s.byOffset && r.At != nil && !r.At.Backward {
		if len(r.At.Keys) != 2 {
			return driver.Rows[item]{}, fmt.Errorf("%w: %d keys", bounded.ErrInvalidCursor, len(r.At.Keys))
		}
		r.At = nil
	}
	return bounded.FromSlice(snap).WithKeys(itemKeys, true).Fetch(ctx, r)
}

// mutate deletes one item and inserts one at step, at places that move
// with step (before, at and after a walk's position), and returns the
// items held.
func (s *store) mutate(_ context.Context, step int) ([]item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) > 4 {
		i := (step * 7) % len(s.items)
		s.items = slices.Delete(s.items, i, i+1)
	}
	it := item{ID: int64(1000 + step), Score: int64(100 - (step*5)%13), Body: fmt.Sprintf("new %d", step)}
	i, _ := slices.BinarySearchFunc(s.items, it, compareItems)
	s.items = slices.Insert(s.items, i, it)
	return slices.Clone(s.items), nil
}
