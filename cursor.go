package bounded

import (
	"errors"
	"fmt"

	"github.com/boundedkit/bounded/driver"
)

// cursorsAt returns the [Paged.CursorAt] of items, a page read in the
// source's order starting at offset (for a page read backward too):
// CursorAt(n) encodes for scope the forward cursor after items[n-1], at
// offset+n. It is nil when items is empty. An n outside [1, len(items)] is
// an error wrapping [ErrInvalidPage].
func cursorsAt[T any](codec driver.Codec, scope string, offset int, items []T, keys func(T) []any) func(n int) (string, error) {
	if len(items) == 0 {
		return nil
	}
	return func(n int) (string, error) {
		if n < 1 || n > len(items) {
			return "", fmt.Errorf("%w: cursor after %d items of a page of %d", ErrInvalidPage, n, len(items))
		}
		return encodeAt(codec, scope, driver.Cursor{Offset: offset + n, Keys: keys(items[n-1])})
	}
}

// encodeAt encodes cur for scope, or returns "" for keys no cursor can
// hold (nil keys, which [driver.Rows] Keys returns for such an item, or a cursor
// over [driver.MaxCursorBytes]): the page goes on by offset there. A key
// of a type no cursor holds is an error wrapping [ErrInvalidSource].
func encodeAt(codec driver.Codec, scope string, cur driver.Cursor) (string, error) {
	if cur.Keys == nil {
		return "", nil
	}
	c, err := codec.Encode(scope, cur)
	switch {
	case errors.Is(err, driver.ErrCursorTooLong):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("%w: Rows.Keys: %w", ErrInvalidSource, err)
	}
	return c, nil
}
