package bounded

import (
	"context"
	"fmt"
	"sort"

	"github.com/boundedkit/bounded/driver"
)

// Source is an ordered result set for [Respond] and [FetchPage]: a slice
// ([FromSlice]), a query ([FromFunc], package bunpage), or a store's own
// [driver.Source].
type Source[T any] = driver.Source[T]

// funcSource is the [Source] [FromFunc] returns.
type funcSource[T any] func(ctx context.Context, r driver.Request) (items []T, total int, err error)

// FromFunc returns a Source over f, paging by offset only: f reads r.Limit
// items from r.Offset, and the total as [driver.Rows] Count says, or -1.
// Reading one item more gives HasMore without an exact count.
func FromFunc[T any](f func(ctx context.Context, r driver.Request) (items []T, total int, err error)) Source[T] {
	return funcSource[T](f)
}

func (f funcSource[T]) Fetch(ctx context.Context, r driver.Request) (driver.Rows[T], error) {
	if r.At != nil {
		return driver.Rows[T]{}, fmt.Errorf("%w: this source pages by offset only", ErrInvalidCursor)
	}
	items, total, err := f(ctx, r)
	if err != nil {
		return driver.Rows[T]{}, err
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
	return driver.Rows[T]{Items: items, More: more, Count: total, Keys: nil}, nil
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
// ([driver.Rows] Keys) and desc, as [driver.CompareKeys] orders them; items must be
// in that order.
func (s *SliceSource[T]) WithKeys(keys func(T) []any, desc ...bool) *SliceSource[T] {
	c := *s
	c.keys, c.desc = keys, desc
	return &c
}

// Fetch returns the page r asks for.
func (s *SliceSource[T]) Fetch(_ context.Context, r driver.Request) (driver.Rows[T], error) {
	all := s.items
	var start, end int
	var more bool
	switch {
	case r.At == nil:
		start = min(r.Offset, len(all))
		end = min(len(all), r.Offset+r.Limit)
		more = end < len(all)
	case s.keys == nil:
		return driver.Rows[T]{}, fmt.Errorf("%w: this source pages by offset only", ErrInvalidCursor)
	default:
		if len(all) > 0 {
			if want := len(s.keys(all[0])); len(r.At.Keys) != want {
				return driver.Rows[T]{}, fmt.Errorf("%w: %d keys, want %d", ErrInvalidCursor, len(r.At.Keys), want)
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
	return driver.Rows[T]{Items: all[start:end:end], More: more, Count: count, Keys: keys}, nil
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
