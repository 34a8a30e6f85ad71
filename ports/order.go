package ports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
)

// Order is the total order of a paged method's results, in the form cursors
// need it: the sort-key values of an item and the direction of each key. The
// last key is always the item's unique id, so no two items compare equal.
//
// Every implementation that issues cursors orders exactly as the method's
// Order says and resumes a cursor by comparing its keys with
// [bounded.CompareKeys]; the SQL adapters compare the same values with a
// row-value predicate.
type Order[T any] struct {
	// Desc reports, for each key, that it sorts descending.
	Desc []bool
	// Keys returns an item's sort-key values: int64, float64 or string.
	Keys func(T) []any
}

// Compare orders two items as the method does: -1, 0 or +1.
func (o Order[T]) Compare(a, b T) int { return bounded.CompareKeys(o.Keys(a), o.Keys(b), o.Desc) }

// Check reports whether keys, decoded from a cursor, have the number and
// the types of this order's keys (nil, a NULL, is accepted for any key: an
// implementation whose key cannot be NULL rejects it); an error wraps
// [bounded.ErrInvalidCursor].
// Implementations check every cursor's keys before using them.
func (o Order[T]) Check(keys []any) error {
	var zero T
	want := o.Keys(zero)
	if len(keys) != len(want) {
		return fmt.Errorf("%w: %d keys, want %d", bounded.ErrInvalidCursor, len(keys), len(want))
	}
	for i, k := range keys {
		if k != nil && want[i] != nil && fmt.Sprintf("%T", k) != fmt.Sprintf("%T", want[i]) {
			return fmt.Errorf("%w: key %d is %T, want %T", bounded.ErrInvalidCursor, i, k, want[i])
		}
	}
	return nil
}

// Scope returns the cursor scope of a method's query: the method's name and
// every argument that selects or orders its results, in a fixed order, each
// length-prefixed so that no two argument lists give the same scope. A
// cursor issued for one scope is rejected by every other.
func Scope(method string, args ...string) string {
	var b strings.Builder
	b.WriteString(method)
	for _, a := range args {
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(len(a)))
		b.WriteByte(':')
		b.WriteString(a)
	}
	return b.String()
}

// ScopeList is a list argument of [Scope]: its length and elements,
// length-prefixed.
func ScopeList(l []string) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(l)))
	for _, s := range l {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

func micros(t interface{ UnixMicro() int64 }) int64 { return t.UnixMicro() }

// The orders of the paged methods, as their doc comments state them.
var (
	// ByUpdatedDesc: UpdatedAt descending (as unix microseconds), then ID
	// ascending. ListNotes, SearchByLinks, Backlinks.
	ByUpdatedDesc = Order[NoteRef]{Desc: []bool{true, false}, Keys: func(n NoteRef) []any {
		return []any{micros(n.UpdatedAt), n.ID}
	}}
	// ByTitle: Title, then ID. Children, Parents.
	ByTitle = Order[NoteRef]{Desc: []bool{false, false}, Keys: func(n NoteRef) []any {
		return []any{n.Title, n.ID}
	}}
	// BySourcePosition: source ID, then position. FindBrokenLinks and
	// every NoteLinks category.
	BySourcePosition = Order[LinkRef]{Desc: []bool{false, false}, Keys: func(l LinkRef) []any {
		return []any{l.SourceID, int64(l.Position)}
	}}
	// ByDepth: depth, title, then ID. Descendants.
	ByDepth = Order[Descendant]{Desc: []bool{false, false, false}, Keys: func(d Descendant) []any {
		return []any{int64(d.Depth), d.Title, d.ID}
	}}
	// ByRelatedScore: score descending, then ID. RelatedNotes.
	ByRelatedScore = Order[Related]{Desc: []bool{true, false}, Keys: func(r Related) []any {
		return []any{int64(r.Score), r.ID}
	}}
	// ByStartedDesc: StartedAt descending, then ID descending.
	// ResponseHistory.
	ByStartedDesc = Order[RunView]{Desc: []bool{true, true}, Keys: func(r RunView) []any {
		return []any{micros(r.StartedAt), r.ID}
	}}
	// ByCodeScore: score descending, then file path, start line and ID.
	// SearchCode.
	ByCodeScore = Order[CodeMatch]{Desc: []bool{true, false, false, false}, Keys: func(m CodeMatch) []any {
		return []any{m.Score, m.FilePath, int64(m.StartLine), m.ID}
	}}
	// ByNodeUpdatedDesc: UpdatedAt descending, then name. SearchNodes in
	// Exact mode.
	ByNodeUpdatedDesc = Order[NodeMatch]{Desc: []bool{true, false}, Keys: func(m NodeMatch) []any {
		return []any{micros(m.UpdatedAt), m.Name}
	}}
	// ByNodeScore: score descending, then name. SearchNodes in Fuzzy mode.
	ByNodeScore = Order[NodeMatch]{Desc: []bool{true, false}, Keys: func(m NodeMatch) []any {
		return []any{m.Score, m.Name}
	}}
)

// SearchNotesOrder is the order of SearchNotes for query: notes whose folded
// title contains the folded query first (rank 0, else 1), then UpdatedAt
// descending, then ID.
func SearchNotesOrder(query string) Order[NoteRef] {
	q := Fold(query)
	return Order[NoteRef]{Desc: []bool{false, true, false}, Keys: func(n NoteRef) []any {
		rank := int64(1)
		if strings.Contains(Fold(n.Title), q) {
			rank = 0
		}
		return []any{rank, micros(n.UpdatedAt), n.ID}
	}}
}

// NodeOrder is the order of SearchNodes in mode m.
func NodeOrder(m MatchMode) Order[NodeMatch] {
	if m == Fuzzy {
		return ByNodeScore
	}
	return ByNodeUpdatedDesc
}

// Scope is the cursor scope of SearchByLinks for q (see [Scope]).
func (q LinkQuery) Scope() string {
	return Scope("SearchByLinks", ScopeList(q.HasLinksTo), ScopeList(q.LinkedFrom), ScopeList(q.ExternalDomains), strconv.FormatBool(q.BrokenLinks))
}

// Scope is the cursor scope of SearchNodes for q (see [Scope]).
func (q NodeQuery) Scope() string {
	return Scope("SearchNodes", ScopeList(q.Queries), strconv.Itoa(int(q.Mode)), ScopeList(q.Tags), strconv.FormatFloat(q.Threshold, 'g', -1, 64))
}

// Scope is the cursor scope of SearchCode for q (see [Scope]).
func (q CodeQuery) Scope() string {
	return Scope("SearchCode", q.Query, q.PathPrefix, q.Language)
}

// NoteLinksScopes are the cursor scopes of NoteLinks' categories for note
// id: internal, external and incoming (see [Scope]).
func NoteLinksScopes(id string) [3]string {
	return [3]string{Scope("NoteLinks/internal", id), Scope("NoteLinks/external", id), Scope("NoteLinks/incoming", id)}
}
