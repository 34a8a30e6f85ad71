package memrepo

import (
	"fmt"
	"slices"
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
}

// Every port is implemented by *Store.
var (
	_ ports.Notes     = (*Store)(nil)
	_ ports.Knowledge = (*Store)(nil)
	_ ports.History   = (*Store)(nil)
	_ ports.Code      = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{
		notes:    make(map[string]ports.Note),
		entities: make(map[string]entityRecord),
		runs:     make(map[string]ports.Run),
		chunks:   make(map[string]chunkRecord),
	}
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

// request validates p against l with [bounded.Limits.Normalize] (returning
// its error unchanged) and rejects cursors, which memrepo does not support
// yet: a non-empty p.Cursor is an error wrapping [bounded.ErrInvalidCursor].
func request(l bounded.Limits, p bounded.Page) (bounded.Request, error) {
	req, err := l.Normalize(p)
	if err != nil {
		return bounded.Request{}, err
	}
	if p.Cursor != "" {
		return bounded.Request{}, fmt.Errorf("memrepo: %w: cursors are not supported yet", bounded.ErrInvalidCursor)
	}
	return req, nil
}

// pageOf returns the page req of all, a whole result set already sorted in
// its documented order, converting each returned element with view. The
// total is len(all). A page with no items (an empty set, or an offset at or
// past the end) has nil Items.
func pageOf[S, T any](req bounded.Request, all []S, view func(S) T) bounded.Paged[T] {
	var items []T
	if req.Offset < len(all) {
		// req.Offset+req.Limit cannot overflow: Normalize keeps it under
		// bounded.MaxOffset.
		end := min(len(all), req.Offset+req.Limit)
		items = make([]T, 0, end-req.Offset)
		for _, x := range all[req.Offset:end] {
			items = append(items, view(x))
		}
	}
	return bounded.Paged[T]{Items: items, Page: req.Info(len(all), len(items))}
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
