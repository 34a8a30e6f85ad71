// Package driver is what a store author needs beyond package bounded: the
// cursor a paged method issues and reads back ([Cursor], [Codec]) and the
// order of sort keys ([CompareKeys]).
//
// A store implements bounded.Source: given a validated bounded.Request, it
// returns the rows and, to page by cursor, the sort keys of an item.
// bounded.FetchPage and bounded.Respond validate the caller's page once,
// decode its cursor with a Codec, call the store, and build the page's
// totals, hints and cursors; no store repeats any of it. Package
// boundedtest checks that a store pages exactly like a slice.
//
// The package imports only the standard library.
package driver

import "errors"

// MaxOffset is the largest offset a cursor carries: 2^53-1, exact in a
// JSON number.
const MaxOffset = 1<<53 - 1

// ErrInvalidCursor is wrapped by the errors of [Codec]; it is
// bounded.ErrInvalidCursor.
var ErrInvalidCursor = errors.New("bounded: invalid cursor")
