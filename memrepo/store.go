package memrepo

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
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
	codec    driver.Codec            // set by New's options only

	// tree is the hierarchy of notes, built by the first read that needs
	// it (under treeMu and s.mu held for reading) and dropped by every
	// write of a note.
	treeMu sync.Mutex
	tree   *tree
}

// Option configures a Store made by [New].
type Option func(*Store)

// WithCursorKey signs the store's cursors with HMAC-SHA256 under key (see
// [driver.Codec]): a cursor the store did not issue is then
// [driver.ErrCursorTampered]. Without it cursors carry a checksum.
func WithCursorKey(key []byte) Option {
	return func(s *Store) { s.codec.Key = append([]byte(nil), key...) }
}

// WithCursors sets the store's whole cursor codec: its signing key, the
// previous keys it still accepts while keys rotate, and an expiry (see
// [driver.Codec]). It replaces what WithCursorKey set.
func WithCursors(c driver.Codec) Option {
	c = c.Clone()
	return func(s *Store) { s.codec = c }
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

// page returns the page p of the results load returns, already sorted in
// o's order, converting each returned element with view; l limits p and
// scope binds its cursors ([ports.Scope]). [bounded.FetchPage] validates p
// before load runs, so a bad page is refused first and load runs once, with
// s.mu held for reading: the page and its count come from one snapshot.
// A cursor whose keys do not fit o is [bounded.ErrInvalidCursor].
func page[S, T any](ctx context.Context, s *Store, p bounded.Page, l bounded.Limits, scope string, o ports.Order[T], view func(S) T, load func() ([]S, error)) (bounded.Paged[T], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return pageLocked(ctx, s, p, l, scope, o, view, load)
}

// pageLocked is page with s.mu already held.
func pageLocked[S, T any](ctx context.Context, s *Store, p bounded.Page, l bounded.Limits, scope string, o ports.Order[T], view func(S) T, load func() ([]S, error)) (bounded.Paged[T], error) {
	return bounded.FetchPage(ctx, &sorted[S, T]{o: o, view: view, load: load}, scope, p, l, s.codec)
}

// sorted is the Source of a whole result set sorted in o's order, loaded
// on the first Fetch. An offset request starts at r.Offset; a cursor
// request after (or, backward, before) the cursor's keys, found by binary
// search. The count is len(all), capped as r.Count asks.
type sorted[S, T any] struct {
	o      ports.Order[T]
	view   func(S) T
	load   func() ([]S, error)
	all    []S
	loaded bool
}

func (x *sorted[S, T]) Fetch(_ context.Context, r driver.Request) (driver.Rows[T], error) {
	if !x.loaded {
		all, err := x.load()
		if err != nil {
			return driver.Rows[T]{}, err
		}
		x.all, x.loaded = all, true
	}
	if r.At != nil {
		if err := x.o.Check(r.At.Keys); err != nil {
			return driver.Rows[T]{}, err
		}
	}
	all, o, view := x.all, x.o, x.view
	var start, end int
	var more bool
	switch {
	case r.At == nil:
		// r.Offset+r.Limit cannot overflow: it is at most bounded.MaxOffset.
		start = min(r.Offset, len(all))
		end = min(len(all), r.Offset+r.Limit)
		more = r.Offset+r.Limit < len(all)
	case r.At.Backward:
		end = sort.Search(len(all), func(i int) bool { return driver.CompareKeys(o.Keys(view(all[i])), r.At.Keys, o.Desc) >= 0 })
		start = max(0, end-r.Limit)
		more = start > 0
	default:
		start = sort.Search(len(all), func(i int) bool { return driver.CompareKeys(o.Keys(view(all[i])), r.At.Keys, o.Desc) > 0 })
		end = min(len(all), start+r.Limit)
		more = end < len(all)
	}
	var items []T
	if start < end {
		items = make([]T, 0, end-start)
		for _, v := range all[start:end] {
			items = append(items, view(v))
		}
	}
	count := len(all)
	if r.Count == bounded.CountCapped {
		count = min(count, r.CountCap+1)
	}
	return driver.Rows[T]{Items: items, More: more, Count: count, Keys: o.Keys}, nil
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
