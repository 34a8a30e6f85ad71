package bunpage

import (
	"fmt"
	"math"

	"github.com/boundedkit/bounded/driver"
)

// checkOrder reports an error wrapping [ErrInvalidSource] when the items
// of a page, in the source's order, and the cursor's keys before them
// (after them for a backward page) are out of the order the columns
// declare: a column whose value function does not return what the
// database sorts (a time returned as a number for a column stored as text,
// say) would page wrong without it. The cursor's neighbour, the first two
// items, the last two, and the first and last are checked, which costs a
// few keys a page: such a function misorders most pairs. Strings are not compared, as the
// database may sort them by a collation; an order decided by a string
// column is taken as it comes.
func (s *Source[T]) checkOrder(items []T, at []any, back bool) error {
	n := len(items)
	if n == 0 {
		return nil
	}
	first := s.keys(&items[0])
	if at != nil && !back {
		if err := s.after(at, first); err != nil {
			return err
		}
	}
	if n >= 2 {
		if err := s.after(first, s.keys(&items[1])); err != nil {
			return err
		}
	}
	last := first
	if n >= 3 {
		prev := s.keys(&items[n-2])
		last = s.keys(&items[n-1])
		if err := s.after(prev, last); err != nil {
			return err
		}
		if err := s.after(first, last); err != nil {
			return err
		}
	} else if n == 2 {
		last = s.keys(&items[1])
	}
	if at != nil && back {
		return s.after(last, at)
	}
	return nil
}

// after returns the error of keys b that do not sort after keys a.
func (s *Source[T]) after(a, b []any) error {
	for i, c := range s.cols {
		x, y := a[i], b[i]
		if x == y || x != nil && y != nil && compareKeys(x, y) == 0 {
			continue
		}
		var before bool // x sorts before y, as the column declares
		switch {
		case c.kind == kindString && x != nil && y != nil:
			return nil // a collation's order: not checked
		case x == nil || y == nil:
			before = (x == nil) == c.nullsFirst
		default:
			less := lessKey(x, y)
			before = less != c.desc
		}
		if before {
			return nil
		}
		return fmt.Errorf("%w: column %q: the database returns %v after %v, against the column's declared order: its value function must return the value the database sorts", ErrInvalidSource, c.name, y, x)
	}
	return fmt.Errorf("%w: two rows have the same values of every column, though %q is unique", ErrInvalidSource, s.cols[len(s.cols)-1].name)
}

// lessKey reports whether the key x sorts before y: see compareKeys.
func lessKey(x, y any) bool { return compareKeys(x, y) < 0 }

// compareKeys orders the keys x and y, neither nil, as the engines do:
// numbers by value (int, int64 and float64 alike), NaN after every
// number and equal to itself, false before true.
func compareKeys(x, y any) int {
	xn, yn := isNaN(x), isNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return driver.CompareKeys([]any{x}, []any{y}, nil)
}

func isNaN(k any) bool {
	f, ok := k.(float64)
	return ok && math.IsNaN(f)
}
