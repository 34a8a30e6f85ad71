package boundedtest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// defaultLimits are the limits of Options with zero Limits.
var defaultLimits = bounded.Limits{Default: 10, Max: 50}

// checker holds what every check of one source needs.
type checker[T any] struct {
	o      Options[T]
	src    bounded.Source[T]
	want   []T
	limits bounded.Limits
	eq     func(a, b T) bool
	diffs  cmp.Options
	// cursors reports that the source issues cursors (Rows.Keys is set).
	cursors bool
	call    bounded.Call
	// cuts counts the responses a budget cut, so that the kit's own tests
	// can check that its budgets cut.
	cuts int
}

// plan returns the checks of src, in the order they run.
func (o Options[T]) plan(ctx context.Context, src bounded.Source[T], want []T) ([]*node, error) {
	c, err := newChecker(ctx, o, src, want)
	if err != nil {
		return nil, err
	}
	return c.plan(), nil
}

func newChecker[T any](ctx context.Context, o Options[T], src bounded.Source[T], want []T) (*checker[T], error) {
	c := &checker[T]{o: o, src: src, want: want, limits: o.Limits, call: bounded.Call{Tool: "boundedtest"}}
	if c.limits == (bounded.Limits{}) {
		c.limits = defaultLimits
	}
	if _, err := c.limits.Normalize(bounded.Page{}); err != nil {
		return nil, fmt.Errorf("boundedtest: Options.Limits: %w", err)
	}
	if o.Equal != nil {
		c.eq = o.Equal
		c.diffs = cmp.Options{cmp.Comparer(func(a, b T) bool { return o.Equal(a, b) })}
	} else {
		c.diffs = cmp.Options{cmp.Exporter(func(reflect.Type) bool { return true })}
		c.eq = func(a, b T) bool { return cmp.Equal(a, b, c.diffs) }
	}
	p := bounded.Page{}
	pg, err := c.fetch(ctx, c.call, p)
	if err != nil {
		return nil, fmt.Errorf("boundedtest: the first page: %s: %w", label(p, ""), err)
	}
	c.cursors = pg.CursorAt != nil
	return c, nil
}

// fetch reads page p of the source for call, as [bounded.Respond] does.
func (c *checker[T]) fetch(ctx context.Context, call bounded.Call, p bounded.Page) (bounded.Paged[T], error) {
	scope, err := call.Scope()
	if err != nil {
		return bounded.Paged[T]{}, err
	}
	return bounded.FetchPage(ctx, c.src, scope, p, c.limits, driver.Codec{})
}

// A size is a page size the walks use.
type size struct {
	name  string
	limit int // the Page's Limit: 0 for the default
	eff   int // the limit applied
}

// sizes are 1, 2, 3, 7, the default and the maximum, each once.
func (c *checker[T]) sizes() []size {
	l := c.limits
	var out []size
	seen := map[int]bool{}
	add := func(name string, limit, eff int) {
		if !seen[eff] || limit == 0 {
			seen[eff] = true
			out = append(out, size{name, limit, eff})
		}
	}
	for _, n := range []int{1, 2, 3, 7} {
		if n <= l.Max {
			add(fmt.Sprintf("size=%d", n), n, n)
		}
	}
	add(fmt.Sprintf("size=default(%d)", l.Default), 0, l.Default)
	add(fmt.Sprintf("size=max(%d)", l.Max), l.Max, l.Max)
	return out
}

// A countMode is a count strategy and its cap.
type countMode struct {
	mode bounded.CountMode
	cap  int
}

func (m countMode) String() string {
	if m.mode == bounded.CountCapped {
		return fmt.Sprintf("capped(%d)", m.cap)
	}
	return m.mode.String()
}

// modes are the count strategies every walk is made with: exact, capped
// at 1, 3, the number of items less one and that number, and none.
func (c *checker[T]) modes() []countMode {
	out := []countMode{{mode: bounded.CountExact}}
	n := len(c.want)
	seen := map[int]bool{}
	for _, k := range []int{1, 3, n - 1, n} {
		if k >= 1 && k <= bounded.MaxCountCap && !seen[k] {
			seen[k] = true
			out = append(out, countMode{bounded.CountCapped, k})
		}
	}
	return append(out, countMode{mode: bounded.CountNone})
}

// page is the first page of a walk in pages of s counted by m.
func (s size) page(m countMode) bounded.Page {
	return bounded.Page{Limit: s.limit, Count: m.mode, CountCap: m.cap}
}

func (c *checker[T]) plan() []*node {
	var offset, number, cursor, past []*node
	for _, s := range c.sizes() {
		var o, p, k []*node
		for _, m := range c.modes() {
			name := "count=" + m.String()
			o = append(o, leaf(name, func(ctx context.Context) error { return c.walkOffset(ctx, s, m) }))
			p = append(p, leaf(name, func(ctx context.Context) error { return c.walkPageNumber(ctx, s, m) }))
			k = append(k, leaf(name, func(ctx context.Context) error { return c.walkCursor(ctx, s, m) }))
		}
		offset = append(offset, group(s.name, o...))
		number = append(number, group(s.name, p...))
		cursor = append(cursor, group(s.name, k...))
	}
	for _, m := range c.modes() {
		past = append(past, leaf("count="+m.String(), func(ctx context.Context) error { return c.pastEnd(ctx, m) }))
	}
	nodes := []*node{group("offset", offset...), group("page-number", number...)}
	switch {
	case len(c.want) == 0:
		nodes = append(nodes, &node{name: "cursor", skip: "want is empty: no page issues a cursor"})
	case !c.cursors:
		nodes = append(nodes, &node{name: "cursor", skip: "the source issues no cursors (its Rows.Keys is nil)"})
	default:
		nodes = append(nodes, group("cursor", cursor...))
	}
	nodes = append(nodes, group("past-end", past...), c.badCursors(), c.respondChecks())
	if c.o.Mutate != nil {
		nodes = append(nodes, c.writeChecks())
	}
	return nodes
}

// span is the part of want a page stands for, want[start:end]; back
// reports a page read backward from a cursor.
type span struct {
	start, end int
	back       bool
}

func (sp span) String() string { return fmt.Sprintf("want[%d:%d]", sp.start, sp.end) }

// items returns the items of want in sp.
func (c *checker[T]) items(sp span) []T {
	n := len(c.want)
	return c.want[min(sp.start, n):min(sp.end, n)]
}

// sameItems reports whether got holds want's items, in order.
func (c *checker[T]) sameItems(want, got []T) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !c.eq(want[i], got[i]) {
			return false
		}
	}
	return true
}

// itemsDiff says how got differs from want.
func (c *checker[T]) itemsDiff(want, got []T) string {
	return cmp.Diff(emptyNil(want), emptyNil(got), c.diffs)
}

func emptyNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// checkPage checks a page read with limit under m that stands for sp:
// its items, and pagination exactly as [bounded.FetchPage] derives it from
// correct rows.
func (c *checker[T]) checkPage(m countMode, limit int, sp span, pg bounded.Paged[T]) error {
	n := len(c.want)
	info := pg.Page
	var bad []string
	if want := c.items(sp); !c.sameItems(want, pg.Items) {
		bad = append(bad, fmt.Sprintf("items differ from %v (-want +got):\n%s", sp, c.itemsDiff(want, pg.Items)))
	}
	if info.Returned != len(pg.Items) {
		bad = append(bad, fmt.Sprintf("Returned is %d for %d items", info.Returned, len(pg.Items)))
	}
	if info.Limit != limit {
		bad = append(bad, fmt.Sprintf("Limit is %d, want %d", info.Limit, limit))
	}
	if info.Offset != sp.start {
		bad = append(bad, fmt.Sprintf("Offset is %d, want %d", info.Offset, sp.start))
	}
	wantMore := sp.end > sp.start && (sp.back || sp.end < n)
	if info.HasMore != wantMore {
		bad = append(bad, fmt.Sprintf("HasMore is %v, want %v (%v of %d items)", info.HasMore, wantMore, sp, n))
	}
	wantNext := 0
	if wantMore {
		wantNext = sp.end
	}
	if info.NextOffset != wantNext {
		bad = append(bad, fmt.Sprintf("NextOffset is %d, want %d", info.NextOffset, wantNext))
	}
	if info.Clamped {
		bad = append(bad, "Clamped is true for a limit within the maximum")
	}
	if s := c.totalProblem(m, info, sp); s != "" {
		bad = append(bad, s)
	}
	bad = append(bad, c.cursorProblems(pg, sp)...)
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s\n  got %s", strings.Join(bad, "\n  "), describe(info))
}

// totalProblem says what is wrong with the total of a page for sp read
// under m, or "".
func (c *checker[T]) totalProblem(m countMode, info bounded.PageInfo, sp span) string {
	n := len(c.want)
	uncounted := c.o.Uncounted
	switch info.TotalKind {
	case bounded.TotalExact:
		if info.Total != n {
			return fmt.Sprintf("Total is %d (exact), want %d", info.Total, n)
		}
	case bounded.TotalAtLeast:
		switch {
		case m.mode != bounded.CountCapped || uncounted:
			return fmt.Sprintf("Total is a lower bound (%d+) under count=%v", info.Total, m)
		case n <= m.cap:
			return fmt.Sprintf("Total is a lower bound (%d+), want exactly %d: the items are within the cap %d", info.Total, n, m.cap)
		case info.Total > n:
			return fmt.Sprintf("Total is a lower bound (%d+) over the %d items", info.Total, n)
		case info.Total < m.cap || info.Total < sp.end:
			return fmt.Sprintf("Total is a lower bound (%d+) under the cap %d or the end of the page %d", info.Total, m.cap, sp.end)
		}
	case bounded.TotalUnknown:
		switch {
		case m.mode != bounded.CountNone && !uncounted:
			return fmt.Sprintf("Total is unknown under count=%v (set Options.Uncounted for a source that never counts)", m)
		case sp.end == sp.start && sp.start > 0 && !uncounted:
			return fmt.Sprintf("Total is unknown past the end, want exactly %d", n)
		case info.Total != sp.end:
			return fmt.Sprintf("Total is %d (unknown), want %d, the end of the page", info.Total, sp.end)
		}
	default:
		return fmt.Sprintf("TotalKind is %v", info.TotalKind)
	}
	return ""
}

// cursorProblems says what is wrong with the cursors of a page for sp.
func (c *checker[T]) cursorProblems(pg bounded.Paged[T], sp span) []string {
	info := pg.Page
	var bad []string
	if !c.cursors || len(pg.Items) == 0 {
		if info.NextCursor != "" || info.PrevCursor != "" || pg.CursorAt != nil {
			bad = append(bad, fmt.Sprintf("a page of %d items of a source without cursors has cursors", len(pg.Items)))
		}
		return bad
	}
	if (info.NextCursor != "") != info.HasMore {
		bad = append(bad, fmt.Sprintf("NextCursor is %s with HasMore %v", present(info.NextCursor), info.HasMore))
	}
	if (info.PrevCursor != "") != (sp.start > 0) {
		bad = append(bad, fmt.Sprintf("PrevCursor is %s at offset %d", present(info.PrevCursor), sp.start))
	}
	if pg.CursorAt == nil {
		bad = append(bad, "CursorAt is nil: the source issued cursors for other pages (Rows.Keys is nil here)")
	}
	return bad
}

func present(s string) string {
	if s == "" {
		return "empty"
	}
	return "set"
}

// describe writes a page's pagination for a failure message.
func describe(pi bounded.PageInfo) string {
	return fmt.Sprintf("{Total: %d (%v), Offset: %d, Limit: %d, Returned: %d, HasMore: %v, NextOffset: %d, NextCursor: %s, PrevCursor: %s}",
		pi.Total, pi.TotalKind, pi.Offset, pi.Limit, pi.Returned, pi.HasMore, pi.NextOffset, present(pi.NextCursor), present(pi.PrevCursor))
}

// label writes a request for a failure message; from says where its
// cursor came from.
func label(p bounded.Page, from string) string {
	var b strings.Builder
	b.WriteString("FetchPage(")
	writePage(&b, p, from)
	b.WriteString(")")
	return b.String()
}

func writePage(b *strings.Builder, p bounded.Page, from string) {
	if p.Limit == 0 {
		b.WriteString("limit=default")
	} else {
		fmt.Fprintf(b, "limit=%d", p.Limit)
	}
	switch {
	case p.Cursor != "" && from != "":
		fmt.Fprintf(b, ", cursor=%s", from)
	case p.Cursor != "":
		fmt.Fprintf(b, ", cursor=%q", clip(p.Cursor, 40))
	default:
		fmt.Fprintf(b, ", offset=%d", p.Offset)
	}
	fmt.Fprintf(b, ", count=%v", countMode{p.Count, p.CountCap})
}

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// show writes an item for a failure message.
func show(v any) string { return clip(fmt.Sprintf("%+v", v), 200) }
