// Package driver is what a store author implements and reads: a store
// returns the rows of one page of an ordered result set, and package
// bounded does the rest.
//
// A store implements [Source]. Its Fetch receives a [Request] that is
// already valid: the caller's page was checked once, its limit defaulted
// and clamped, and its cursor decoded into [Request.At]. No store checks
// it again.
//
// Fetch returns [Rows]:
//   - at most Limit items, in the store's order, from Offset or next to
//     At's keys;
//   - More, which a store learns by reading Limit+1 items;
//   - the count [Request.Count] asks for;
//   - to page by cursor, the sort keys of an item, ending with a unique
//     id, in the order [CompareKeys] defines.
//
// The caller builds the page's totals, hints and cursors, encoded by a
// [Codec]. A store whose cursors hold for one query only implements
// [ScopedSource]. Package boundedtest checks that a store pages exactly
// like a slice.
//
// The package imports only the standard library.
package driver

import "errors"

// MaxOffset is the largest offset a cursor carries: 2^53-1, exact in a
// JSON number.
const MaxOffset = 1<<53 - 1

// ErrInvalidCursor is wrapped by the errors of [Codec], and by a [Source]
// refusing a cursor; it is bounded.ErrInvalidCursor.
var ErrInvalidCursor = errors.New("bounded: invalid cursor")
