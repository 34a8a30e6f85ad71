package bounded

import (
	"context"
	"fmt"
	"sort"

	"github.com/boundedkit/bounded/driver"
)

// Source is an ordered result set that [Respond] pages over: a slice
// ([FromSlice]), a function around the caller's own query ([FromFunc]), a
// bun query (package bunpage) or a store's method.
type Source[T any] interface {
	// Fetch returns the rows r asks for. r is valid: [FetchPage] built
	// it, so Limit is in [1, Max], Offset and
	// Offset+Limit are at most [MaxOffset], and r.At, when set, is a cursor
	// this source's query issued (its keys not yet checked against the
	// source's key types: a source that cannot use them returns an error
	// wrapping [ErrInvalidCursor]).
	//
	// A forward request reads the Limit items after r.At's keys, or from
	// r.Offset; a backward one (r.Backward) the Limit items before r.At's
	// keys. Either way Rows.Items are in the source's order, and Rows.More
	// says whether an item lies beyond them in the reading direction.
	Fetch(ctx context.Context, r Request) (Rows[T], error)
}

// A ScopedSource is a [Source] whose cursors hold only for the query it
// names: [FetchPage] and [Respond] add CursorScope to a cursor's scope, so
// that a cursor issued for another query is [driver.ErrCursorForeign].
type ScopedSource[T any] interface {
	Source[T]
	CursorScope() string
}

// Rows is what a [Source] returns for one [Request].
type Rows[T any] struct {
	// Items are at most r.Limit items, in the source's order.
	Items []T
	// More reports that an item lies beyond Items in the reading
	// direction: read Limit+1 items to know.
	More bool
	// Count is the count r.Count asks for: the exact number of matching
	// items for [CountExact]; that number, or CountCap+1 when there are
	// more, for [CountCapped]. It is ignored for [CountNone]; a negative
	// Count means the source did not count, as CountNone.
	Count int
	// Keys returns an item's sort-key values in the source's order, the
	// last one unique (an id), each nil, bool, int64, float64 or string.
	// It is nil for a source that pages by offset only: Respond then
	// issues no cursors, and refuses a request with one.
	Keys func(T) []any
}

// FuncSource is a [Source] made of a function: see [FromFunc].
type FuncSource[T any] func(ctx context.Context, r Request) (items []T, total int, err error)

// FromFunc returns the Source of a function that reads at most r.Limit
// items starting at r.Offset, and the total number of matching items,
// e.g. a SQL query with LIMIT and OFFSET and a count. It pages by offset
// only. total is counted as r.Count asks (see [Rows.Count]), or -1 for a
// function that does not count: the page then reports [TotalUnknown]. A
// function that reads r.Limit+1 items lets the page report HasMore without
// an exact count (items beyond r.Limit are dropped).
func FromFunc[T any](f func(ctx context.Context, r Request) (items []T, total int, err error)) Source[T] {
	return FuncSource[T](f)
}

// Fetch calls f.
func (f FuncSource[T]) Fetch(ctx context.Context, r Request) (Rows[T], error) {
	if r.At != nil {
		return Rows[T]{}, fmt.Errorf("%w: this source pages by offset only", ErrInvalidCursor)
	}
	items, total, err := f(ctx, r)
	if err != nil {
		return Rows[T]{}, err
	}
	more := len(items) > r.Limit
	if more {
		items = items[:r.Limit]
	}
	if total >= 0 {
		// A total is a lower bound: more follow when it says so. A
		// capped count over its cap may stop short of the page's end:
		// then the row read past the page says.
		more = r.Offset+len(items) < total || more && r.Count == CountCapped && total > r.CountCap
	}
	return Rows[T]{Items: items, More: more, Count: total, Keys: nil}, nil
}

// SliceSource is a [Source] over a slice held in memory: see [FromSlice].
type SliceSource[T any] struct {
	items []T
	keys  func(T) []any
	desc  []bool
}

// FromSlice returns the Source of items in their order. It pages by offset;
// [SliceSource.WithKeys] makes it page by cursor too. The slice is not
// copied: it must not change while the source is used.
func FromSlice[T any](items []T) *SliceSource[T] {
	return &SliceSource[T]{items: items}
}

// WithKeys makes s page by cursor: keys returns an item's sort keys, the
// last one unique, and desc[i] says key i sorts descending. The slice must
// be sorted by them as [driver.CompareKeys] orders keys.
func (s *SliceSource[T]) WithKeys(keys func(T) []any, desc ...bool) *SliceSource[T] {
	c := *s
	c.keys, c.desc = keys, desc
	return &c
}

// Fetch returns the page r asks for.
func (s *SliceSource[T]) Fetch(_ context.Context, r Request) (Rows[T], error) {
	all := s.items
	var start, end int
	var more bool
	switch {
	case r.At == nil:
		start = min(r.Offset, len(all))
		end = min(len(all), r.Offset+r.Limit)
		more = end < len(all)
	case s.keys == nil:
		return Rows[T]{}, fmt.Errorf("%w: this source pages by offset only", ErrInvalidCursor)
	default:
		if len(all) > 0 {
			if want := len(s.keys(all[0])); len(r.At.Keys) != want {
				return Rows[T]{}, fmt.Errorf("%w: %d keys, want %d", ErrInvalidCursor, len(r.At.Keys), want)
			}
		}
		at := r.At.Keys
		if r.At.Backward {
			end = sort.Search(len(all), func(i int) bool { return driver.CompareKeys(s.keys(all[i]), at, s.desc) >= 0 })
			start = max(0, end-r.Limit)
			more = start > 0
		} else {
			start = sort.Search(len(all), func(i int) bool { return driver.CompareKeys(s.keys(all[i]), at, s.desc) > 0 })
			end = min(len(all), start+r.Limit)
			more = end < len(all)
		}
	}
	count := len(all)
	if r.Count == CountCapped {
		count = min(count, r.CountCap+1)
	}
	return Rows[T]{Items: all[start:end:end], More: more, Count: count, Keys: s.keys}, nil
}
