// Package probe counts the steps of a call that must happen once each:
// the parse of its arguments, the normalization of its page, the
// encoding of each result. Counting is off until a test turns it on.
package probe

import "sync/atomic"

var (
	on                        atomic.Bool
	parsed, normalized, coded atomic.Int64
)

// Start zeroes the counts and turns counting on.
func Start() {
	parsed.Store(0)
	normalized.Store(0)
	coded.Store(0)
	on.Store(true)
}

// Stop turns counting off and returns the counts since Start.
func Stop() (parses, normalizations, encodings int64) {
	on.Store(false)
	return parsed.Load(), normalized.Load(), coded.Load()
}

// Parsed counts a parse of a call's arguments.
func Parsed() {
	if on.Load() {
		parsed.Add(1)
	}
}

// Normalized counts a normalization of a page.
func Normalized() {
	if on.Load() {
		normalized.Add(1)
	}
}

// Encoded counts n results encoded.
func Encoded(n int) {
	if on.Load() {
		coded.Add(int64(n))
	}
}
