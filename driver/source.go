package driver

import (
	"context"
	"fmt"
)

// Source is an ordered result set a paged method reads, one [Request] at
// a time.
type Source[T any] interface {
	// Fetch returns the rows r asks for. r is valid: the store does not
	// check it again. r.At was issued by this source's query, but a
	// source must refuse keys it cannot use with an error wrapping
	// [ErrInvalidCursor].
	//
	// A forward request reads the Limit items after r.At's keys, or from
	// r.Offset; a backward one (r.Backward) the Limit items before r.At's
	// keys. Either way Rows.Items are in the source's order.
	Fetch(ctx context.Context, r Request) (Rows[T], error)
}

// ScopedSource is a [Source] whose cursors hold only for the query
// CursorScope names: another query's are [ErrCursorForeign].
type ScopedSource[T any] interface {
	Source[T]
	CursorScope() string
}

// Request is a validated page request, as a [Source] receives it.
//
// A store may assume:
//   - Limit is at least 1 and at most the method's maximum.
//   - Offset+Limit is at most [MaxOffset].
//   - Count is one of the three [CountMode] values.
//   - CountCap is positive for [CountCapped], 0 otherwise.
//   - At, when set, was decoded by a [Codec] and has a key at least.
type Request struct {
	Limit  int
	Offset int
	// Cursor is the caller's cursor; empty for offset requests.
	Cursor string
	// Requested is the caller's limit, 0 when it asked for none.
	Requested int
	// Clamped reports that Requested was over the maximum.
	Clamped bool
	// Count is how to count the total; CountCap is CountCapped's cap.
	Count    CountMode
	CountCap int
	// At is Cursor decoded: the page starts after its keys, or ends
	// before them when At.Backward. Offset is At.Offset.
	At *Cursor
}

// Backward reports whether r reads backward from a cursor.
func (r Request) Backward() bool { return r.At != nil && r.At.Backward }

// CountMode is how a paged method counts its total.
type CountMode uint8

const (
	// CountCapped, the zero value, counts up to Request.CountCap+1 items.
	CountCapped CountMode = iota
	// CountExact counts every matching item.
	CountExact
	// CountNone counts nothing.
	CountNone
)

var countModeNames = [...]string{"capped", "exact", "none"}

// String returns "capped", "exact" or "none".
func (m CountMode) String() string {
	if int(m) < len(countModeNames) {
		return countModeNames[m]
	}
	return fmt.Sprintf("CountMode(%d)", m)
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
