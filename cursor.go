package bounded

import (
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
		return codec.Encode(scope, driver.Cursor{Offset: offset + n, Keys: keys(items[n-1])})
	}
}
