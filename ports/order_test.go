package ports_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// checker is the Check method of any Order.
type checker interface{ Check(keys []any) error }

// TestOrderCheckDomains: Check accepts the keys of items a store can hold
// and refuses, with ErrInvalidCursor, every key outside its domain.
func TestOrderCheckDomains(t *testing.T) {
	minT, maxT := ports.MinTime.UnixMicro(), ports.MaxTime.UnixMicro()
	code := ports.SearchCodeOrder(ports.CodeQuery{Query: "alpha beta gamma"}) // 3 terms
	third := float64(float32(1) / float32(3))
	for _, c := range []struct {
		name string
		o    checker
		keys []any
		ok   bool
	}{
		{"updated: first time", ports.ByUpdatedDesc, []any{minT, "id"}, true},
		{"updated: last time", ports.ByUpdatedDesc, []any{maxT, "id"}, true},
		{"updated: before the first", ports.ByUpdatedDesc, []any{minT - 1, "id"}, false},
		{"updated: after the last", ports.ByUpdatedDesc, []any{maxT + 1, "id"}, false},
		{"updated: min int64", ports.ByUpdatedDesc, []any{int64(math.MinInt64), "id"}, false},
		{"updated: NULL time", ports.ByUpdatedDesc, []any{nil, "id"}, false},
		{"updated: NULL id", ports.ByUpdatedDesc, []any{int64(0), nil}, false},
		{"updated: float time", ports.ByUpdatedDesc, []any{0.0, "id"}, false},
		{"updated: bool id", ports.ByUpdatedDesc, []any{int64(0), true}, false},
		{"updated: one key", ports.ByUpdatedDesc, []any{int64(0)}, false},
		{"updated: three keys", ports.ByUpdatedDesc, []any{int64(0), "id", "x"}, false},
		{"title: empty strings", ports.ByTitle, []any{"", ""}, true},
		{"title: Unicode", ports.ByTitle, []any{"日本語 é", "a/b"}, true},
		{"title: NUL", ports.ByTitle, []any{"a\x00", "id"}, false},
		{"title: invalid UTF-8", ports.ByTitle, []any{"caf\xe9", "id"}, false},
		{"id: lone surrogate half", ports.ByTitle, []any{"t", "\xed\xa0\x80"}, false},
		{"position: 0", ports.BySourcePosition, []any{"src", int64(0)}, true},
		{"position: -1", ports.BySourcePosition, []any{"src", int64(-1)}, false},
		{"depth: 1", ports.ByDepth, []any{int64(1), "t", "id"}, true},
		{"depth: the maximum", ports.ByDepth, []any{int64(ports.MaxDescendantDepth), "t", "id"}, true},
		{"depth: 0", ports.ByDepth, []any{int64(0), "t", "id"}, false},
		{"depth: past the maximum", ports.ByDepth, []any{int64(ports.MaxDescendantDepth + 1), "t", "id"}, false},
		{"related: 1", ports.ByRelatedScore, []any{int64(1), "id"}, true},
		{"related: 0", ports.ByRelatedScore, []any{int64(0), "id"}, false},
		{"related: min int64", ports.ByRelatedScore, []any{int64(math.MinInt64), "id"}, false},
		{"history: last time", ports.ByStartedDesc, []any{maxT, "run"}, true},
		{"history: after the last", ports.ByStartedDesc, []any{maxT + 1, "run"}, false},
		{"node: time", ports.ByNodeUpdatedDesc, []any{int64(0), "name"}, true},
		{"node: NaN score in exact mode", ports.ByNodeUpdatedDesc, []any{math.NaN(), "name"}, false},
		{"fuzzy: 1", ports.ByNodeScore, []any{1.0, "name"}, true},
		{"fuzzy: a float32 value", ports.ByNodeScore, []any{float64(float32(0.3)), "name"}, true},
		{"fuzzy: the least float32", ports.ByNodeScore, []any{float64(math.SmallestNonzeroFloat32), "name"}, true},
		{"fuzzy: not a float32 value", ports.ByNodeScore, []any{0.3, "name"}, false},
		{"fuzzy: past 1", ports.ByNodeScore, []any{math.Nextafter(1, 2), "name"}, false},
		{"fuzzy: 0", ports.ByNodeScore, []any{0.0, "name"}, false},
		{"fuzzy: -0", ports.ByNodeScore, []any{math.Copysign(0, -1), "name"}, false},
		{"fuzzy: NaN", ports.ByNodeScore, []any{math.NaN(), "name"}, false},
		{"fuzzy: +Inf", ports.ByNodeScore, []any{math.Inf(1), "name"}, false},
		{"fuzzy: -Inf", ports.ByNodeScore, []any{math.Inf(-1), "name"}, false},
		{"fuzzy: integer score", ports.ByNodeScore, []any{int64(1), "name"}, false},
		{"rank: 0", ports.SearchNotesOrder("q"), []any{int64(0), int64(0), "id"}, true},
		{"rank: 1", ports.SearchNotesOrder("q"), []any{int64(1), int64(0), "id"}, true},
		{"rank: 2", ports.SearchNotesOrder("q"), []any{int64(2), int64(0), "id"}, false},
		{"rank: -1", ports.SearchNotesOrder("q"), []any{int64(-1), int64(0), "id"}, false},
		{"code: a third", code, []any{third, "a.go", int64(1), "id"}, true},
		{"code: all terms", code, []any{1.0, "a.go", int64(1), "id"}, true},
		{"code: a half, off the grid of 3 terms", code, []any{0.5, "a.go", int64(1), "id"}, false},
		{"code: next to a third", code, []any{math.Nextafter(third, 1), "a.go", int64(1), "id"}, false},
		{"code: a third in float64", code, []any{1.0 / 3, "a.go", int64(1), "id"}, false},
		{"code: no term", code, []any{0.0, "a.go", int64(1), "id"}, false},
		{"code: 4 of 3 terms", code, []any{4.0 / 3, "a.go", int64(1), "id"}, false},
		{"code: NaN", code, []any{math.NaN(), "a.go", int64(1), "id"}, false},
		{"code: +Inf", code, []any{math.Inf(1), "a.go", int64(1), "id"}, false},
		{"code: line 0", code, []any{1.0, "a.go", int64(0), "id"}, false},
		{"code: NUL path", code, []any{1.0, "a\x00.go", int64(1), "id"}, false},
	} {
		err := c.o.Check(c.keys)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: Check(%v): %v; want nil", c.name, c.keys, err)
		case !c.ok && !errors.Is(err, bounded.ErrInvalidCursor):
			t.Errorf("%s: Check(%v): %v; want an error wrapping ErrInvalidCursor", c.name, c.keys, err)
		}
	}
}

// TestSearchCodeOrderGrid: the score domain of SearchCode holds every
// score TermScore computes for the query's number of terms, and nothing
// next to them.
func TestSearchCodeOrderGrid(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 10, 100, 1000, 4097, 100_000} {
		words := make([]string, n)
		for i := range words {
			words[i] = string([]rune{'a' + rune(i%26), 'a' + rune(i/26%26), 'a' + rune(i/676%26), 'a' + rune(i/17576%26)})
		}
		q := ports.CodeQuery{Query: strings.Join(words, " ")}
		queryTerms := ports.Terms(q.Query)
		if len(queryTerms) != n {
			t.Fatalf("a query of %d words has %d terms", n, len(queryTerms))
		}
		o := ports.SearchCodeOrder(q)
		step := max(1, n/300)
		for k := 1; k <= n; k += step {
			score := float64(float32(k) / float32(n))
			if n <= 1000 {
				if got := float64(ports.TermScore(queryTerms, ports.Terms(strings.Join(words[:k], " ")))); got != score {
					t.Fatalf("TermScore of %d of %d terms = %v, want %v", k, n, got, score)
				}
			}
			if err := o.Check([]any{score, "f", int64(1), "id"}); err != nil {
				t.Errorf("%d terms: the score of %d: %v", n, k, err)
			}
			for _, off := range []float64{math.Nextafter(score, 0), math.Nextafter(score, 2)} {
				if err := o.Check([]any{off, "f", int64(1), "id"}); err == nil {
					t.Errorf("%d terms: %v, next to the score of %d, is accepted", n, off, k)
				}
			}
		}
	}
}

// TestOrderKeysPassCheck: the keys of items at the edges of what a store
// holds pass their order's Check.
func TestOrderKeysPassCheck(t *testing.T) {
	search := ports.SearchNotesOrder("é")
	for _, at := range []time.Time{ports.MinTime, ports.MaxTime, {}} {
		note := ports.NoteRef{ID: "a/b", Title: "é", UpdatedAt: at}
		run := ports.RunView{ID: "r", StartedAt: at}
		for _, c := range []struct {
			name string
			err  error
		}{
			{"ByUpdatedDesc", ports.ByUpdatedDesc.Check(ports.ByUpdatedDesc.Keys(note))},
			{"ByTitle", ports.ByTitle.Check(ports.ByTitle.Keys(note))},
			{"SearchNotesOrder", search.Check(search.Keys(note))},
			{"ByStartedDesc", ports.ByStartedDesc.Check(ports.ByStartedDesc.Keys(run))},
		} {
			if c.err != nil {
				t.Errorf("%s: the keys of an item at %v: %v", c.name, at, c.err)
			}
		}
	}
}

// TestOrderCheckWithoutDomains: an Order built outside the package checks
// the number and types of keys only, and accepts NULL.
func TestOrderCheckWithoutDomains(t *testing.T) {
	o := ports.Order[string]{Desc: []bool{false, false}, Keys: func(s string) []any { return []any{int64(len(s)), s} }}
	for _, c := range []struct {
		keys []any
		ok   bool
	}{
		{[]any{int64(1), "a"}, true},
		{[]any{nil, "a\x00"}, true},
		{[]any{"1", "a"}, false},
		{[]any{int64(1)}, false},
	} {
		if err := o.Check(c.keys); (err == nil) != c.ok || (err != nil && !errors.Is(err, bounded.ErrInvalidCursor)) {
			t.Errorf("Check(%v) = %v; want ok %v", c.keys, err, c.ok)
		}
	}
}
