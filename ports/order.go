package ports

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// Order is the total order of a paged method's results, in the form cursors
// need it: the sort-key values of an item and the direction of each key. The
// last key is always the item's unique id, so no two items compare equal.
//
// Every implementation that issues cursors orders exactly as the method's
// Order says and resumes a cursor by comparing its keys with
// [driver.CompareKeys]; the SQL adapters compare the same values with a
// row-value predicate.
type Order[T any] struct {
	// Desc reports, for each key, that it sorts descending.
	Desc []bool
	// Keys returns an item's sort-key values: int64, float64 or string.
	Keys func(T) []any

	// domains are the values each key takes (see Check); nil for an
	// Order built outside this package.
	domains []domain
}

// Compare orders two items as the method does: -1, 0 or +1.
func (o Order[T]) Compare(a, b T) int { return driver.CompareKeys(o.Keys(a), o.Keys(b), o.Desc) }

// Check reports whether keys, decoded from a cursor, are keys an item of
// this order can have; an error wraps [bounded.ErrInvalidCursor] and names
// the key. Implementations check every cursor's keys before using them, so
// that a cursor no store issued is refused alike by all of them, never read
// differently by each engine.
//
// For the orders of this package, every key must lie in its domain: never
// nil; a time key an int64 of unix microseconds within [MinTime, MaxTime];
// any other integer key an int64 in the range its field takes (a depth in
// [1, MaxDescendantDepth], ...); a score a finite float64 among the scores
// the method computes (a float32 value in (0, 1], or for SearchCode a
// share of the query's terms); a string valid UTF-8 without NUL bytes, as
// [ValidateText] requires of stored text. For an Order built elsewhere,
// keys must have the number and the types of Keys' values for the zero T,
// and nil (a NULL) is accepted for any key.
func (o Order[T]) Check(keys []any) error {
	if o.domains == nil {
		return o.checkTypes(keys)
	}
	if len(keys) != len(o.domains) {
		return fmt.Errorf("%w: %d keys, want %d", bounded.ErrInvalidCursor, len(keys), len(o.domains))
	}
	for i, k := range keys {
		if err := o.domains[i].check(k); err != nil {
			return fmt.Errorf("%w: key %d %v", bounded.ErrInvalidCursor, i, err)
		}
	}
	return nil
}

// checkTypes is Check for an Order without domains.
func (o Order[T]) checkTypes(keys []any) error {
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

// domain is the set of values one sort key takes: an int64 in [min, max],
// a float64 score for which score reports true, or a text.
type domain struct {
	min, max int64
	score    func(float64) bool
	text     bool
	// what names the values in errors, e.g. "a time".
	what string
}

// The domains of the orders' keys.
var (
	textKey = domain{text: true, what: "a text"}
	timeKey = domain{min: MinTime.UnixMicro(), max: MaxTime.UnixMicro(), what: "a time"}
	// similarityKey: float32 values in (0, 1], as [Similarity] computes
	// them.
	similarityKey = domain{score: func(v float64) bool { return v > 0 && v <= 1 && float64(float32(v)) == v }, what: "a similarity"}
)

// intKey is the domain of integers in [lo, hi], named what.
func intKey(what string, lo, hi int64) domain { return domain{min: lo, max: hi, what: what} }

// termShareKey is the domain of the [TermScore]s of query: with n the
// number of its [Terms], float32(k) / float32(n) for k in [1, n]. The terms
// are counted once, when a cursor is first checked.
func termShareKey(query string) domain {
	terms := sync.OnceValue(func() int { return len(Terms(query)) })
	return domain{what: "a share of the query's terms", score: func(v float64) bool {
		n := float64(terms())
		k := math.Round(v * n)
		return k >= 1 && k <= n && float64(float32(k)/float32(n)) == v
	}}
}

// check returns why v is not in d, or nil.
func (d domain) check(v any) error {
	switch v := v.(type) {
	case nil:
		return fmt.Errorf("is NULL, and it never is (%s)", d.what)
	case string:
		switch {
		case !d.text:
			return fmt.Errorf("is a string, want %s", d.what)
		case !utf8.ValidString(v):
			return errors.New("is not valid UTF-8")
		case strings.IndexByte(v, 0) >= 0:
			return errors.New("contains a NUL byte")
		}
	case int64:
		switch {
		case d.text || d.score != nil:
			return fmt.Errorf("is an integer, want %s", d.what)
		case v < d.min || v > d.max:
			return fmt.Errorf("%d is outside [%d, %d] (%s)", v, d.min, d.max, d.what)
		}
	case float64:
		switch {
		case d.score == nil:
			return fmt.Errorf("is a float, want %s", d.what)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%v is not a finite number", v)
		case !d.score(v):
			return fmt.Errorf("%v is not %s", v, d.what)
		}
	default:
		return fmt.Errorf("is %T, want %s", v, d.what)
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
	}, domains: []domain{timeKey, textKey}}
	// ByTitle: Title, then ID. Children, Parents.
	ByTitle = Order[NoteRef]{Desc: []bool{false, false}, Keys: func(n NoteRef) []any {
		return []any{n.Title, n.ID}
	}, domains: []domain{textKey, textKey}}
	// BySourcePosition: source ID, then position. FindBrokenLinks and
	// every NoteLinks category.
	BySourcePosition = Order[LinkRef]{Desc: []bool{false, false}, Keys: func(l LinkRef) []any {
		return []any{l.SourceID, int64(l.Position)}
	}, domains: []domain{textKey, intKey("a position", 0, math.MaxInt64)}}
	// ByDepth: depth, title, then ID. Descendants.
	ByDepth = Order[Descendant]{Desc: []bool{false, false, false}, Keys: func(d Descendant) []any {
		return []any{int64(d.Depth), d.Title, d.ID}
	}, domains: []domain{intKey("a depth", 1, MaxDescendantDepth), textKey, textKey}}
	// ByRelatedScore: score descending, then ID. RelatedNotes.
	ByRelatedScore = Order[Related]{Desc: []bool{true, false}, Keys: func(r Related) []any {
		return []any{int64(r.Score), r.ID}
	}, domains: []domain{intKey("a score", 1, math.MaxInt64), textKey}}
	// ByStartedDesc: StartedAt descending, then ID descending.
	// ResponseHistory.
	ByStartedDesc = Order[RunView]{Desc: []bool{true, true}, Keys: func(r RunView) []any {
		return []any{micros(r.StartedAt), r.ID}
	}, domains: []domain{timeKey, textKey}}
	// ByNodeUpdatedDesc: UpdatedAt descending, then name. SearchNodes in
	// Exact mode.
	ByNodeUpdatedDesc = Order[NodeMatch]{Desc: []bool{true, false}, Keys: func(m NodeMatch) []any {
		return []any{micros(m.UpdatedAt), m.Name}
	}, domains: []domain{timeKey, textKey}}
	// ByNodeScore: score descending, then name. SearchNodes in Fuzzy mode.
	ByNodeScore = Order[NodeMatch]{Desc: []bool{true, false}, Keys: func(m NodeMatch) []any {
		return []any{m.Score, m.Name}
	}, domains: []domain{similarityKey, textKey}}
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
	}, domains: []domain{intKey("a rank", 0, 1), timeKey, textKey}}
}

// SearchCodeOrder is the order of SearchCode for q: score descending, then
// file path, start line and ID ascending. A cursor's score must be one a
// chunk can have for q: a share of the query's [Terms] (see [TermScore]).
func SearchCodeOrder(q CodeQuery) Order[CodeMatch] {
	return Order[CodeMatch]{Desc: []bool{true, false, false, false}, Keys: func(m CodeMatch) []any {
		return []any{m.Score, m.FilePath, int64(m.StartLine), m.ID}
	}, domains: []domain{termShareKey(q.Query), textKey, intKey("a line", 1, math.MaxInt64), textKey}}
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
