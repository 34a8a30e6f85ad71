package memrepo

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// Store is an in-memory store implementing every port: [ports.Notes],
// [ports.Knowledge], [ports.History] and [ports.Code]. It is the reference
// every adapter is compared with.
//
// A Store is safe for concurrent use. It keeps values, not pointers: the
// slices of an item (tags, links, parents, observations) are copied when the
// item is written and again when it is read, so neither the writer nor a
// reader can change what the store holds.
//
// The zero Store is empty and ready to use; [New] returns one.
type Store struct {
	mu       sync.RWMutex
	notes    map[string]ports.Note   // by ID, as returned by Note.Normalize
	entities map[string]entityRecord // by name
	runs     map[string]ports.Run    // by ID, as returned by Run.Normalize
	chunks   map[string]chunkRecord  // by ID
	codec    bounded.CursorCodec     // set by New's options only
}

// Option configures a Store made by [New].
type Option func(*Store)

// WithCursorKey signs the store's cursors with HMAC-SHA256 under key (see
// [bounded.CursorCodec]): a cursor the store did not issue is then
// [bounded.ErrCursorTampered]. Without it cursors carry a checksum.
func WithCursorKey(key []byte) Option {
	return func(s *Store) { s.codec.Key = append([]byte(nil), key...) }
}

// Every port is implemented by *Store.
var (
	_ ports.Notes     = (*Store)(nil)
	_ ports.Knowledge = (*Store)(nil)
	_ ports.History   = (*Store)(nil)
	_ ports.Code      = (*Store)(nil)
)

// New returns an empty store configured by opts.
func New(opts ...Option) *Store {
	s := &Store{
		notes:    make(map[string]ports.Note),
		entities: make(map[string]entityRecord),
		runs:     make(map[string]ports.Run),
		chunks:   make(map[string]chunkRecord),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// initLocked makes the maps of a zero Store. s.mu must be held for writing.
func (s *Store) initLocked() {
	if s.notes == nil {
		s.notes = make(map[string]ports.Note)
	}
	if s.entities == nil {
		s.entities = make(map[string]entityRecord)
	}
	if s.runs == nil {
		s.runs = make(map[string]ports.Run)
	}
	if s.chunks == nil {
		s.chunks = make(map[string]chunkRecord)
	}
}

// request validates p against l and decodes its cursor for scope with
// [bounded.Limits.NormalizeCursor], returning its error unchanged.
func (s *Store) request(l bounded.Limits, p bounded.Page, scope string) (bounded.Request, error) {
	return l.NormalizeCursor(p, s.codec, scope)
}

// pageOf returns the page req of all, a whole result set already sorted in
// o's order, converting each returned element with view. An offset request
// starts at req.Offset; a cursor request after (or, backward, before) the
// cursor's keys, found by binary search. The count follows req.Count
// (len(all) is the exact total; exact whatever req.Count when the page is
// empty past the start), HasMore whether items lie past the page, and the
// page's cursors (NextCursor, PrevCursor and CursorAt) are issued for
// scope. A page with no items (an empty set, or an offset at or past the
// end) has nil Items and no CursorAt. A cursor whose keys do not fit o is
// [bounded.ErrInvalidCursor].
func pageOf[S, T any](s *Store, req bounded.Request, scope string, o ports.Order[T], all []S, view func(S) T) (bounded.Paged[T], error) {
	start, end := 0, 0
	more := false
	switch {
	case req.At == nil:
		// req.Offset+req.Limit cannot overflow: Normalize keeps it under
		// bounded.MaxOffset.
		start = min(req.Offset, len(all))
		end = min(len(all), req.Offset+req.Limit)
		more = req.Offset+req.Limit < len(all)
	default:
		if err := o.Check(req.At.Keys); err != nil {
			return bounded.Paged[T]{}, err
		}
		at := req.At.Keys
		if req.At.Backward {
			end = sort.Search(len(all), func(i int) bool { return bounded.CompareKeys(o.Keys(view(all[i])), at, o.Desc) >= 0 })
			start = max(0, end-req.Limit)
			more = start > 0
		} else {
			start = sort.Search(len(all), func(i int) bool { return bounded.CompareKeys(o.Keys(view(all[i])), at, o.Desc) > 0 })
			end = min(len(all), start+req.Limit)
			more = end < len(all)
		}
	}
	var items []T
	if start < end {
		items = make([]T, 0, end-start)
		for _, x := range all[start:end] {
			items = append(items, view(x))
		}
	}
	if req.NeedsExactTotal(len(items)) {
		req = req.Exact()
	}
	counted := len(all)
	if req.Count == bounded.CountCapped {
		counted = min(counted, req.CountCap+1)
	}
	info := req.Finish(len(items), more, counted)
	if len(items) > 0 {
		if err := info.SetCursors(s.codec, scope, o.Keys(items[0]), o.Keys(items[len(items)-1]), req.Backward() && more); err != nil {
			return bounded.Paged[T]{}, err
		}
	}
	return bounded.Paged[T]{Items: items, Page: info, CursorAt: bounded.CursorsAt(s.codec, scope, info.Offset, items, o.Keys)}, nil
}

// clone returns a copy of s that shares no memory with it; nil when s is
// empty, so that "none" is always nil.
func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// notFound is the error of an id that names no item of the given kind.
func notFound(kind, id string) error {
	return fmt.Errorf("%s %q: %w", kind, id, ports.ErrNotFound)
}
