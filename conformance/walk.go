package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// suite is one run of the conformance suite against one harness.
type suite struct {
	h    Harness
	opts cmp.Options
}

func newSuite(h Harness) *suite {
	s := &suite{h: h}
	s.opts = cmp.Options{
		// The same instant in the same zone: ports store times in UTC, and
		// a store returning local times would encode differently.
		cmp.Comparer(func(a, b time.Time) bool {
			return a.Equal(b) && a.Location().String() == b.Location().String()
		}),
	}
	if h.Cursors {
		// Cursors are each store's own encoding: compared by presence, and
		// so is Paged.CursorAt (go-cmp finds two functions equal only when
		// both are nil); the cursor-at checks follow what it returns.
		s.opts = append(s.opts, cmp.FilterPath(isCursorField, cmp.Comparer(func(a, b string) bool { return (a == "") == (b == "") })),
			cmp.Comparer(func(a, b func(int) (string, error)) bool { return (a == nil) == (b == nil) }))
	} else {
		// A store without cursors issues none; memrepo's are ignored.
		s.opts = append(s.opts, cmpopts.IgnoreFields(bounded.PageInfo{}, "NextCursor", "PrevCursor"),
			cmp.FilterPath(isCursorAtField, cmp.Ignore()))
	}
	return s
}

// isCursorAtField reports a path ending at Paged's CursorAt.
func isCursorAtField(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "CursorAt" && sf.Type().Kind() == reflect.Func
}

// isCursorField reports a path ending at PageInfo's NextCursor or
// PrevCursor.
func isCursorField(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && (sf.Name() == "NextCursor" || sf.Name() == "PrevCursor") && sf.Type().Kind() == reflect.String
}

// store names the store under test in messages.
func (s *suite) store() string {
	if s.h.Name == "" {
		return "store"
	}
	return s.h.Name
}

// diff returns cmp.Diff(ref, got) with the suite's options: "-memrepo
// +store".
func (s *suite) diff(ref, got any) string { return cmp.Diff(ref, got, s.opts) }

// reference opens the reference store, a fresh memrepo.
func reference() Store {
	m := memrepo.New()
	return Store{Notes: m, Knowledge: m, History: m, Code: m}
}

// port names one of the four ports of a Store.
type port string

const (
	notesPort     port = "Notes"
	knowledgePort port = "Knowledge"
	historyPort   port = "History"
	codePort      port = "Code"
)

func (s Store) has(p port) bool {
	switch p {
	case notesPort:
		return s.Notes != nil
	case knowledgePort:
		return s.Knowledge != nil
	case historyPort:
		return s.History != nil
	case codePort:
		return s.Code != nil
	}
	return false
}

// open opens a new store of the harness and a new reference, and loads fx
// into both through the ports' write methods.
func (s *suite) open(t TB, p port, fx fixture) (st, ref Store) {
	t.Helper()
	st = s.h.New(t)
	if !st.has(p) {
		t.Fatalf("%s: Store.%s is nil in a store opened by the %s tests", s.store(), p, p)
	}
	return s.fill(t, st, fx)
}

// fill loads fx into st and into a new reference.
func (s *suite) fill(t TB, st Store, fx fixture) (Store, Store) {
	t.Helper()
	ref := reference()
	fx.load(t, ref, "memrepo")
	fx.load(t, st, s.store())
	return st, ref
}

// runPort runs f as the subtest named after port p, with the port's main
// fixture fx loaded into a new store and the reference; when the harness's
// stores lack p, the subtest is skipped with a message naming it.
func (s *suite) runPort(t TB, p port, fx fixture, f func(t TB, st, ref Store)) {
	t.Run(string(p), func(t TB) {
		st := s.h.New(t)
		if !st.has(p) {
			t.Skipf("%s: Store.%s is nil: skipping the %s tests", s.store(), p, p)
		}
		st, ref := s.fill(t, st, fx)
		f(t, st, ref)
	})
}

// A method is one paged read method of a port, with the queries the suite
// checks it on (over its port's main fixture).
type method[T any] struct {
	// name is the method's name, e.g. "Backlinks"; for a method checked in
	// several variants (SearchNodes' modes) the variant's name.
	name string
	// call is the name written in failure messages, e.g. "Backlinks".
	call string
	// tool is the tool name used in hints, e.g. "backlinks".
	tool   string
	port   port
	limits bounded.Limits
	// paging is how a tool takes the method's pages (for hint walks).
	paging bounded.Paging
	// key is an item's identity, for exactly-once checks.
	key func(T) string
	// queries are checked on the port's main fixture.
	queries []query[T]
	// sized returns data and a query whose answer has exactly n items,
	// every one equal on the method's sort keys but the last (the id).
	sized func(n int) (fixture, query[T])
	// errs are bad requests and the errors they must return.
	errs []errCase
}

// A query is one set of arguments of a method.
type query[T any] struct {
	// args are the arguments other than the page, as a tool takes them:
	// they are written in failure messages and carried by hint walks.
	args  bounded.Args
	fetch func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[T], error)
}

// An errCase is a bad request and the error it must return: one wrapping
// any of want (more than one only where the ports leave the choice open).
type errCase struct {
	name string
	call func(ctx context.Context, s Store) error
	want []error
}

// label writes a call as a failure message names it: Backlinks(id="a",
// limit=7, offset=14).
func label(name string, args bounded.Args, p bounded.Page) string {
	a := append(bounded.Args(nil), args...)
	a = append(a, bounded.Arg{Name: "limit", Value: p.Limit}, bounded.Arg{Name: "offset", Value: p.Offset})
	if p.Cursor != "" {
		a = append(a, bounded.Arg{Name: "cursor", Value: p.Cursor})
	}
	s := bounded.Call{Tool: name}.Render(a)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func (m *method[T]) label(q query[T], p bounded.Page) string { return label(m.call, q.args, p) }

// pageSizes are the page sizes every method is compared with: 1, 2, 3, 7,
// the default (Limit 0) and the maximum.
func pageSizes(l bounded.Limits) []struct {
	name  string
	limit int
} {
	return []struct {
		name  string
		limit int
	}{
		{"pagesize=1", 1}, {"pagesize=2", 2}, {"pagesize=3", 3}, {"pagesize=7", 7},
		{"pagesize=default", 0}, {fmt.Sprintf("pagesize=max(%d)", l.Max), l.Max},
	}
}

// stepCap bounds a walk of total items in pages of size, so that a store
// that never stops fails instead of looping.
func stepCap(total, size int) int {
	if size <= 0 {
		size = 1
	}
	return total/size + 3
}

// effective is the limit a page of p has under l.
func effective(l bounded.Limits, p bounded.Page) int {
	switch {
	case p.Limit == 0:
		return l.Default
	case p.Limit > l.Max:
		return l.Max
	}
	return p.Limit
}

// refPage fetches p from the reference; a failure there is a bug of the
// suite (or of memrepo), reported as fatal.
func refPage[T any](t TB, m *method[T], q query[T], ref Store, p bounded.Page) bounded.Paged[T] {
	t.Helper()
	rp, err := q.fetch(t.Context(), ref, p)
	if err != nil {
		t.Fatalf("%s on memrepo: %v (a bug of the suite or of memrepo)", m.label(q, p), err)
	}
	return rp
}

// emptyNil makes an empty page's Items nil, so that nil and empty compare
// equal.
func emptyNil[T any](p bounded.Paged[T]) bounded.Paged[T] {
	if len(p.Items) == 0 {
		p.Items = nil
	}
	return p
}

// comparePage fetches p from both stores and reports any difference. It
// returns the reference's page, the store's, and whether they were the same.
func comparePage[T any](t TB, s *suite, m *method[T], q query[T], st, ref Store, p bounded.Page) (rp, sp bounded.Paged[T], ok bool) {
	t.Helper()
	rp = refPage(t, m, q, ref, p)
	sp, err := q.fetch(t.Context(), st, p)
	if err != nil {
		t.Errorf("%s: %v; memrepo returns %d items of %d", m.label(q, p), err, len(rp.Items), rp.Page.Total)
		return rp, sp, false
	}
	if d := s.diff(emptyNil(rp), emptyNil(sp)); d != "" {
		t.Errorf("%s: page differs from memrepo (-memrepo +%s):\n%s", m.label(q, p), s.store(), d)
		return rp, sp, false
	}
	return rp, sp, true
}

// compareWalk walks q by offset in pages of limit, from offset 0 until
// the reference's HasMore is false, comparing every page. It stops at the
// first difference.
func compareWalk[T any](t TB, s *suite, m *method[T], q query[T], st, ref Store, limit int) {
	t.Helper()
	p := bounded.Page{Limit: limit}
	for {
		rp, _, ok := comparePage(t, s, m, q, st, ref, p)
		if !ok || !rp.Page.HasMore {
			return
		}
		p.Offset = rp.Page.NextOffset
	}
}

// fullRead reads the whole answer of q: one page of the maximum limit when
// it fits, else the walk by offset in pages of the maximum.
func fullRead[T any](t TB, m *method[T], q query[T], s Store, who string) ([]T, error) {
	t.Helper()
	var items []T
	p := bounded.Page{Limit: m.limits.Max}
	for step := 0; ; step++ {
		pg, err := q.fetch(t.Context(), s, p)
		if err != nil {
			return items, fmt.Errorf("%s: %w", m.label(q, p), err)
		}
		items = append(items, pg.Items...)
		if !pg.Page.HasMore {
			return items, nil
		}
		if step > 1000 || len(pg.Items) == 0 || pg.Page.NextOffset <= p.Offset {
			return items, fmt.Errorf("%s: %s: reading the whole answer with the maximum page size does not end: a page of %d items says more follow at offset %d",
				m.label(q, p), who, len(pg.Items), pg.Page.NextOffset)
		}
		p.Offset = pg.Page.NextOffset
	}
}

// fullReads reads q whole from the reference and from the store and
// reports any difference. It returns the reference's answer, and the
// store's (nil if it could not be read).
func fullReads[T any](t TB, s *suite, m *method[T], q query[T], st, ref Store) (want, got []T, ok bool) {
	t.Helper()
	want, err := fullRead(t, m, q, ref, "memrepo")
	if err != nil {
		t.Fatalf("memrepo: %v (a bug of the suite or of memrepo)", err)
	}
	got, err = fullRead(t, m, q, st, s.store())
	if err != nil {
		t.Errorf("%v", err)
		return want, nil, false
	}
	if d := s.diff(emptySlice(want), emptySlice(got)); d != "" {
		t.Errorf("%s: the whole answer (pages of the maximum %d) differs from memrepo (-memrepo +%s):\n%s",
			label(m.call, q.args, bounded.Page{Limit: m.limits.Max}), m.limits.Max, s.store(), d)
		return want, got, false
	}
	return want, got, true
}

func emptySlice[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// checkInfo checks the invariants of one page of a store's answer of total
// items, asked for with p: Returned, Total, Offset, Limit, HasMore and
// NextOffset must be exactly what [bounded.FetchPage] reports for an exact
// count.
func checkInfo[T any](t TB, at string, l bounded.Limits, p bounded.Page, pg bounded.Paged[T], total int) bool {
	t.Helper()
	info := pg.Page
	limit := effective(l, p)
	off := p.Offset
	if p.Cursor != "" {
		// A cursor page stands at the cursor's offset; the walk's other
		// checks say whether that is where the previous page ended.
		off = info.Offset
	}
	wantN := min(limit, max(0, total-off))
	var bad []string
	if info.Returned != len(pg.Items) {
		bad = append(bad, fmt.Sprintf("Returned is %d but the page holds %d items", info.Returned, len(pg.Items)))
	}
	if len(pg.Items) != wantN {
		bad = append(bad, fmt.Sprintf("the page holds %d items, want %d (limit %d at offset %d of %d)", len(pg.Items), wantN, limit, off, total))
	}
	if info.Total != total {
		bad = append(bad, fmt.Sprintf("Total is %d, want %d (the length of the whole answer)", info.Total, total))
	}
	if info.TotalKind != bounded.TotalExact {
		bad = append(bad, fmt.Sprintf("TotalKind is %v, want exact", info.TotalKind))
	}
	if info.Offset != off {
		bad = append(bad, fmt.Sprintf("Offset is %d, want %d", info.Offset, off))
	}
	if info.Limit != limit {
		bad = append(bad, fmt.Sprintf("Limit is %d, want %d", info.Limit, limit))
	}
	wantMore := wantN > 0 && off+wantN < total
	if info.HasMore != wantMore {
		bad = append(bad, fmt.Sprintf("HasMore is %v, want %v (offset %d + %d items of %d)", info.HasMore, wantMore, off, wantN, total))
	}
	switch {
	case info.HasMore && info.NextOffset != info.Offset+info.Returned:
		bad = append(bad, fmt.Sprintf("NextOffset is %d, want Offset+Returned = %d", info.NextOffset, info.Offset+info.Returned))
	case !info.HasMore && info.NextOffset != 0:
		bad = append(bad, fmt.Sprintf("NextOffset is %d on the last page, want 0", info.NextOffset))
	}
	if len(bad) > 0 {
		t.Errorf("%s: %s", at, strings.Join(bad, "; "))
		return false
	}
	return true
}

// walkOf follows a store's pages from start, asking next for each next
// request, and returns the items in order. It fails when a page fails,
// breaks the [checkInfo] invariants, or the walk does not end within
// maxSteps pages.
func walkOf[T any](t TB, m *method[T], q query[T], st Store, total int, start bounded.Page, maxSteps int,
	next func(pg bounded.Paged[T], p bounded.Page) (bounded.Page, bool, error)) ([]T, bool) {
	t.Helper()
	var items []T
	p := start
	for step := 0; ; step++ {
		if step >= maxSteps {
			t.Errorf("%s: the walk did not end after %d pages (%d items read, %d expected): HasMore never became false", m.label(q, p), maxSteps, len(items), total)
			return items, false
		}
		pg, err := q.fetch(t.Context(), st, p)
		if err != nil {
			t.Errorf("%s: %v", m.label(q, p), err)
			return items, false
		}
		if !checkInfo(t, m.label(q, p), m.limits, p, pg, total) {
			return items, false
		}
		items = append(items, pg.Items...)
		np, more, err := next(pg, p)
		if err != nil {
			t.Errorf("%s: %v", m.label(q, p), err)
			return items, false
		}
		if !more {
			return items, true
		}
		p = np
	}
}

// exactlyOnce checks that got, read by walking a store's pages, is want,
// the whole answer read at once: no item repeated (by key), none missing,
// none added, in the same order.
func exactlyOnce[T any](t TB, s *suite, at string, key func(T) string, want, got []T) {
	t.Helper()
	const most = 5
	var problems []string
	first := make(map[string]int, len(got))
	dups := 0
	for i, it := range got {
		k := key(it)
		if j, ok := first[k]; ok {
			if dups++; dups <= most {
				problems = append(problems, fmt.Sprintf("item %q returned twice, at positions %d and %d", k, j, i))
			}
			continue
		}
		first[k] = i
	}
	wantKeys := make(map[string]bool, len(want))
	missing := 0
	for i, it := range want {
		k := key(it)
		wantKeys[k] = true
		if _, ok := first[k]; !ok {
			if missing++; missing <= most {
				problems = append(problems, fmt.Sprintf("item %q (position %d of the whole answer) never returned", k, i))
			}
		}
	}
	extra := 0
	for _, it := range got {
		if k := key(it); !wantKeys[k] {
			if extra++; extra <= most {
				problems = append(problems, fmt.Sprintf("item %q returned but not in the whole answer", k))
			}
		}
	}
	if n := dups + missing + extra; n > len(problems) {
		problems = append(problems, fmt.Sprintf("... %d more", n-len(problems)))
	}
	if len(problems) > 0 {
		t.Errorf("%s: the walk returned %d items, the whole answer has %d: %s", at, len(got), len(want), strings.Join(problems, "; "))
		return
	}
	if d := s.diff(emptySlice(want), emptySlice(got)); d != "" {
		t.Errorf("%s: the walk differs from the whole answer (-whole +walk):\n%s", at, d)
	}
}

// pageFromArgs turns the arguments of a hint's next call back into a page,
// as a tool handler would: only from the arguments, never from counters of
// the caller's own.
func pageFromArgs(c bounded.Call, l bounded.Limits, args bounded.Args) (bounded.Page, error) {
	if len(args) < len(c.Args) {
		return bounded.Page{}, fmt.Errorf("the next call's arguments %v lost the query's arguments %v", args, c.Args)
	}
	for i, a := range c.Args {
		if args[i].Name != a.Name || fmt.Sprint(args[i].Value) != fmt.Sprint(a.Value) {
			return bounded.Page{}, fmt.Errorf("the next call's argument %d is %v, want %v", i, args[i], a)
		}
	}
	get := func(name string) (int, bool, error) {
		v, ok := args.Get(name)
		if !ok {
			return 0, false, nil
		}
		n, isInt := v.(int)
		if !isInt {
			return 0, true, fmt.Errorf("argument %s is %T %v, want an int", name, v, v)
		}
		return n, true, nil
	}
	var size int
	var err error
	switch c.Paging {
	case bounded.ByCursor:
		size, _, err = get("limit")
		if err != nil {
			return bounded.Page{}, err
		}
		if v, ok := args.Get("cursor"); ok {
			cur, isString := v.(string)
			if !isString || cur == "" {
				return bounded.Page{}, fmt.Errorf("argument cursor is %T %v, want a cursor", v, v)
			}
			return bounded.Page{Limit: size, Cursor: cur}, nil
		}
		off, hasOff, err := get("offset")
		if err != nil {
			return bounded.Page{}, err
		}
		if !hasOff {
			return bounded.Page{}, fmt.Errorf("the next call %v has neither cursor nor offset", args)
		}
		return bounded.Page{Limit: size, Offset: off}, nil
	case bounded.ByPage:
		size, _, err = get("pageSize")
		if err != nil {
			return bounded.Page{}, err
		}
		off, hasOff, err := get("offset")
		if err != nil {
			return bounded.Page{}, err
		}
		if hasOff {
			return bounded.Page{Limit: size, Offset: off}, nil
		}
		page, hasPage, err := get("page")
		if err != nil {
			return bounded.Page{}, err
		}
		if !hasPage {
			return bounded.Page{}, fmt.Errorf("the next call %v has neither page nor offset", args)
		}
		return l.FromPageNumber(page, size)
	default:
		size, _, err = get("limit")
		if err != nil {
			return bounded.Page{}, err
		}
		off, hasOff, err := get("offset")
		if err != nil {
			return bounded.Page{}, err
		}
		if !hasOff {
			return bounded.Page{}, fmt.Errorf("the next call %v has no offset", args)
		}
		return bounded.Page{Limit: size, Offset: off}, nil
	}
}

// expectErr checks that err wraps want.
func expectErr(t TB, at string, err, want error) bool {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error, want one wrapping %q", at, want)
		return false
	case !errors.Is(err, want):
		t.Errorf("%s: error %q does not wrap %q", at, err, want)
		return false
	}
	return true
}

// expectErrOneOf checks that err wraps one of want (for inputs the ports
// leave open between two errors).
func expectErrOneOf(t TB, at string, err error, want ...error) bool {
	t.Helper()
	for _, w := range want {
		if errors.Is(err, w) {
			return true
		}
	}
	var names []string
	for _, w := range want {
		names = append(names, fmt.Sprintf("%q", w))
	}
	if err == nil {
		t.Errorf("%s: no error, want one wrapping %s", at, strings.Join(names, " or "))
	} else {
		t.Errorf("%s: error %q wraps none of %s", at, err, strings.Join(names, ", "))
	}
	return false
}

// runErrCases runs each case as a subtest on st.
func runErrCases(t TB, st Store, cases []errCase) {
	for _, c := range cases {
		t.Run(c.name, func(t TB) {
			expectErrOneOf(t, c.name, c.call(t.Context(), st), c.want...)
		})
	}
}

// badQueries are the query strings every search method must reject with
// [ports.ErrInvalidQuery], by name.
func badQueries() []struct{ name, q string } {
	return []struct{ name, q string }{
		{"empty", ""},
		{"spaces", " \t "},
		{"invalid-utf8", "caf\xe9"},
		{"nul", "a\x00b"},
		{"too-long", strings.Repeat("a", ports.MaxQueryBytes+1)},
	}
}

// A namedRead compares the whole answers of one method's queries.
type namedRead struct {
	name  string
	check func(t TB, s *suite, st, ref Store)
}

// readsOf compares the whole answers of m's queries; a query that fails on
// memrepo must fail alike on the store.
func readsOf[T any](m method[T]) namedRead {
	name := m.name
	if m.call != m.name {
		name = m.call + "-" + m.name
	}
	return namedRead{name, func(t TB, s *suite, st, ref Store) {
		for _, q := range m.queries {
			want, werr := fullRead(t, &m, q, ref, "memrepo")
			got, gerr := fullRead(t, &m, q, st, s.store())
			at := label(m.call, q.args, bounded.Page{Limit: m.limits.Max})
			if !sameErr(t, at, werr, gerr) || werr != nil {
				continue
			}
			if d := s.diff(emptySlice(want), emptySlice(got)); d != "" {
				t.Errorf("%s: the whole answer differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
			}
		}
	}}
}

// sentinels are the errors the ports name.
var sentinels = []error{
	ports.ErrNotFound, ports.ErrInvalidQuery, ports.ErrInvalidItem,
	bounded.ErrInvalidPage, bounded.ErrInvalidCursor, bounded.ErrInvalidWindow,
}

// sentinelOf is the first of sentinels err wraps, or nil.
func sentinelOf(err error) error {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// sameErr checks that the store's error got is like memrepo's want: both
// nil, or both wrapping the same sentinel.
func sameErr(t TB, at string, want, got error) bool {
	t.Helper()
	switch {
	case want == nil && got == nil:
		return true
	case want == nil:
		t.Errorf("%s: %v; memrepo returns no error", at, got)
	case got == nil:
		t.Errorf("%s: no error; memrepo returns %q", at, want)
	case sentinelOf(want) != sentinelOf(got):
		t.Errorf("%s: error %q; memrepo returns %q", at, got, want)
	default:
		return true
	}
	return false
}
