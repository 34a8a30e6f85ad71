// Package ports declares the domain interfaces of agent tools whose answers
// must stay inside a context budget: a notes vault with links and hierarchy
// ([Notes]), a knowledge graph ([Knowledge]), response history ([History])
// and code search ([Code]). The access modes that limit what a tool may
// reveal are package tools' (tools.Policy).
//
// Each read method's comment opens with the implementer's obligations: the
// order of its results (always ending with a unique tie-breaker, so that
// pages never overlap or skip), its default and maximum page size, what a
// page past the end returns, and which errors it returns. The in-memory
// reference implementation is package memrepo; the SQL adapters live under
// adapters/; package conformance checks any implementation against memrepo.
//
// Every paged method of every port is a [bounded.Source] read through
// [bounded.FetchPage]: FetchPage validates the page with the method's
// Limits and decodes its cursor (one the method did not issue for the same
// query, see [Scope], is [bounded.ErrInvalidCursor]); the source counts as
// the page's [bounded.CountMode] asks in the same snapshot as the page,
// reads one item past the page, and returns the sort keys of the method's
// [Order]; FetchPage builds the PageInfo and cursors. An offset at or past
// the end gives no items (nil), HasMore false and the total, never an
// error. An id given to a read method is checked with [ValidateQuery] (an
// empty, invalid or NUL-holding id is [ErrInvalidQuery]) before it is
// looked up ([ErrNotFound]).
//
// Validation is shared: every implementation validates its inputs with the
// helpers of this package and of package bounded ([bounded.FetchPage],
// [ValidateQuery], ...), so the same bad input gets the same typed error from
// every adapter.
//
// Strings compare bytewise (as Go compares strings, and as SQLite's BINARY
// and Postgres' "C" collations do). Times are stored in UTC with microsecond
// precision: write methods truncate them, so that a value read back equals
// the value an engine with microsecond timestamps returns.
package ports

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

var (
	// ErrNotFound: the note, entity or other item named by the request does
	// not exist. Implementations wrap it with the id.
	ErrNotFound = errors.New("ports: not found")
	// ErrInvalidQuery: a query, filter or id is not acceptable (empty when
	// it must not be, invalid UTF-8, containing NUL, too long, or an
	// option out of range). The message names the field and the reason.
	ErrInvalidQuery = errors.New("ports: invalid query")
	// ErrInvalidItem: a write method was given an item it cannot store
	// (an empty id, invalid UTF-8, NUL bytes). Nothing was written.
	ErrInvalidItem = errors.New("ports: invalid item")
)

// MaxQueryBytes is the longest query string, in bytes, a search method
// accepts; longer ones are [ErrInvalidQuery].
const MaxQueryBytes = 1 << 20

// ValidateQuery checks a caller's query string for field: it must be
// non-empty after trimming spaces, valid UTF-8, free of NUL bytes and at most
// [MaxQueryBytes] long. The error wraps [ErrInvalidQuery] and names field.
// LIKE wildcards, quotes and backslashes are ordinary characters: they are
// matched literally by every implementation.
func ValidateQuery(field, q string) error {
	switch {
	case strings.TrimSpace(q) == "":
		return fmt.Errorf("%w: %s is empty", ErrInvalidQuery, field)
	case len(q) > MaxQueryBytes:
		return fmt.Errorf("%w: %s is %d bytes, over the maximum %d", ErrInvalidQuery, field, len(q), MaxQueryBytes)
	case !utf8.ValidString(q):
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidQuery, field)
	case strings.IndexByte(q, 0) >= 0:
		return fmt.Errorf("%w: %s contains a NUL byte", ErrInvalidQuery, field)
	}
	return nil
}

// ValidateText checks a stored string field of an item: valid UTF-8 and no
// NUL bytes (which Postgres cannot store). The error wraps [ErrInvalidItem].
func ValidateText(field, s string) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidItem, field)
	case strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("%w: %s contains a NUL byte", ErrInvalidItem, field)
	}
	return nil
}

// ValidateID checks an item's id: not blank (so that every stored id can be
// asked for: read methods reject blank ids with [ValidateQuery]), at most
// 1,024 bytes, and [ValidateText]. The error wraps [ErrInvalidItem].
func ValidateID(field, id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return fmt.Errorf("%w: %s is empty", ErrInvalidItem, field)
	case len(id) > 1024:
		return fmt.Errorf("%w: %s is %d bytes, over the maximum 1024", ErrInvalidItem, field, len(id))
	}
	return ValidateText(field, id)
}

// Time normalizes a stored time: UTC, truncated to the microsecond.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Fold is the case folding every implementation uses for case-insensitive
// matching: Go's strings.ToLower. SQL adapters store folded copies of the
// searchable text computed with it, so that every engine folds alike.
func Fold(s string) string { return strings.ToLower(s) }
