package bounded

import (
	"context"
	"fmt"
	"sort"

	"github.com/boundedkit/bounded/driver"
)

// Source is an ordered result set for [FetchPage]: see [FromSlice],
// [FromFunc] and package bunpage.
type Source[T any] interface {
	// Fetch returns the rows r asks for. r is a valid [Request], and r.At
	// was issued by this source's query, but a source must refuse keys it
	// cannot use with an error wrapping [ErrInvalidCursor].
	//
	// A forward request reads the Limit items after r.At's keys, or from
	// r.Offset; a backward one (r.Backward) the Limit items before r.At's
	// keys. Either way Rows.Items are in the source's order.
	Fetch(ctx context.Context, r Request) (Rows[T], error)
}

// ScopedSource is a [Source] whose cursors hold only for the query
// CursorScope names: another query's are [driver.ErrCursorForeign].
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
	// Count is the total r.Count asks for: exact for [CountExact], up to
	// CountCap+1 for [CountCapped]. It is ignored for [CountNone]; negative
	// means not counted.
	Count int
	// Keys returns an item's sort keys, the last one unique, each nil,
	// bool, int64, float64 or string; or nil for an item whose keys the
	// source could not read a cursor at (a NaN, a string the store
	// alters): the page goes on by offset after it. A nil Keys pages by
	// offset only.
	Keys func(T) []any
}

// FuncSource is a [Source] made of a function: see [FromFunc].
type FuncSource[T any] func(ctx context.Context, r Request) (items []T, total int, err error)

// FromFunc returns a Source over f, paging by offset only: f reads r.Limit
// items from r.Offset, and the total as [Rows.Count] says. Reading one item
// more gives HasMore without an exact count.
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

// FromSlice returns a Source of items, in order, paging by offset; items
// must not change while it is used.
func FromSlice[T any](items []T) *SliceSource[T] {
	return &SliceSource[T]{items: items}
}

// WithKeys returns a copy of s that pages by cursor too, by keys
// ([Rows.Keys]) and desc, as [driver.CompareKeys] orders them; items must be
// in that order.
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
	var keys func(T) []any
	if s.keys != nil {
		keys = finiteKeys(s.keys)
	}
	return Rows[T]{Items: all[start:end:end], More: more, Count: count, Keys: keys}, nil
}

// finiteKeys returns keys, but nil for an item with a NaN key, which
// [driver.CompareKeys] cannot place.
func finiteKeys[T any](keys func(T) []any) func(T) []any {
	return func(it T) []any {
		k := keys(it)
		for _, v := range k {
			if f, ok := v.(float64); ok && f != f {
				return nil
			}
		}
		return k
	}
}
