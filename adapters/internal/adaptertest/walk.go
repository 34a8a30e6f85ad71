package adaptertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// WalkedPage is what a walk compares of a page: its items' ids and its
// info but for the cursors' values.
type WalkedPage struct {
	IDs        []string
	Info       bounded.PageInfo
	Next, Prev bool
	CursorAt   bool
	Err        string
}

// PageView is the WalkedPage of pg and err, each item named by id.
func PageView[T any](pg bounded.Paged[T], err error, id func(T) string) WalkedPage {
	v := WalkedPage{Info: pg.Page, Next: pg.Page.NextCursor != "", Prev: pg.Page.PrevCursor != "", CursorAt: pg.CursorAt != nil}
	v.Info.NextCursor, v.Info.PrevCursor = "", ""
	for _, it := range pg.Items {
		v.IDs = append(v.IDs, id(it))
	}
	if err != nil {
		v.Err = err.Error()
	}
	return v
}

// WalkBoth walks search from the first page p to the last by NextCursor,
// then back to the first by PrevCursor, and returns every page read.
func WalkBoth[T any](t *testing.T, name string, p bounded.Page, search func(bounded.Page) (bounded.Paged[T], error), id func(T) string) []WalkedPage {
	t.Helper()
	var pages []WalkedPage
	pg, err := search(p)
	pages = append(pages, PageView(pg, err, id))
	for _, dir := range []struct {
		name   string
		cursor func(bounded.PageInfo) string
	}{
		{"forward", func(pi bounded.PageInfo) string { return pi.NextCursor }},
		{"backward", func(pi bounded.PageInfo) string { return pi.PrevCursor }},
	} {
		for i := 0; err == nil && dir.cursor(pg.Page) != ""; i++ {
			if i > 200 {
				t.Fatalf("%s: over 200 pages %s", name, dir.name)
			}
			q := p
			q.Cursor = dir.cursor(pg.Page)
			pg, err = search(q)
			pages = append(pages, PageView(pg, err, id))
		}
	}
	return pages
}

// CodeWalk checks SearchCode's walk of the chunks in result order, which
// serves queries whose terms are found in many chunks, against memrepo on
// the conformance chunks and chunks that tie on every key but the id:
// open(t, broad) opens an empty store that walks every query whose terms
// are found in more than broad chunks (each term's chunks counted), and
// reads a level of shared terms through the index of its rarest terms
// when they are found in at most broad. Stores opened with broad 1 and 6
// must page as memrepo does, forward and backward by cursor and by
// offset, under every count strategy, for queries of one to four terms,
// with and without a path prefix and a language, some of rare terms.
func CodeWalk(t *testing.T, open func(t *testing.T, broad int) ports.Code) {
	ctx := context.Background()
	chunks := conformance.Chunks(conformance.Seed)
	for i := range 12 {
		chunks = append(chunks, ports.Chunk{ID: fmt.Sprintf("tie-%02d", (i*7)%12), FilePath: "src/http/server.go", Language: "go",
			StartLine: 1 + 10*(i%2), EndLine: 12, Content: "return parse(request) // handler " + strings.Repeat("error ", i%3)})
	}
	// Rare terms, some in the same chunk, for levels read through the
	// index of their rarest terms.
	for i, content := range []string{"rarea rareb parse http", "rarea parse(x)", "rareb request http", "rarec", "rarea rarec error handler"} {
		chunks = append(chunks, ports.Chunk{ID: fmt.Sprintf("rare-%d", i), FilePath: "src/rare.go", Language: "go", StartLine: 1 + i%2, EndLine: 9, Content: content})
	}
	mem := memrepo.New()
	if err := mem.PutChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	var stores []ports.Code
	for _, broad := range []int{1, 6} {
		s := open(t, broad)
		if err := s.PutChunks(ctx, chunks); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	queries := []ports.CodeQuery{
		{Query: "return"},
		{Query: "parse http request"},
		{Query: "ERROR handler", PathPrefix: "src/"},
		{Query: "parse_http error"},
		{Query: "日本語 naïve func"},
		{Query: "user token config error", Language: "go"},
		{Query: "parse", PathPrefix: "src_a"},
		{Query: "return func", PathPrefix: "src/http/", Language: "go"},
		{Query: "handler zzz"},
		{Query: "rarea rareb parse"},
		{Query: "rarea rareb error"},
		{Query: "rarea rareb rarec http"},
		{Query: "rarea rarec error handler", PathPrefix: "src/"},
		{Query: "zzz qqq"},
	}
	sizes, offsets := []int{1, 4}, []int{2}
	if deeptest.On() {
		sizes, offsets = []int{1, 3, 7}, []int{1, 2, 5}
		queries = append(queries, ports.CodeQuery{Query: "foo bar baz qux"}, ports.CodeQuery{Query: "ctx err nil"},
			ports.CodeQuery{Query: "parse", PathPrefix: "pkg/日本"}, ports.CodeQuery{Query: "error", Language: "python"})
	}
	id := func(m ports.CodeMatch) string { return fmt.Sprintf("%s %.4f", m.ID, m.Score) }
	for _, q := range queries {
		SameWalks(t, fmt.Sprintf("%+v", q), sizes, offsets, ports.Code(mem), stores,
			func(s ports.Code) func(bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
				return func(p bounded.Page) (bounded.Paged[ports.CodeMatch], error) { return s.SearchCode(ctx, q, p) }
			}, id)
	}
}

// SameWalks checks that search on each of stores pages as it does on ref
// (memrepo), under every count strategy (the capped one with a cap of 4),
// at each page size: the same pages walked from the first to the last
// and back ([WalkBoth]), and the same page at each offset.
func SameWalks[S, T any](t *testing.T, name string, sizes, offsets []int, ref S, stores []S,
	search func(S) func(bounded.Page) (bounded.Paged[T], error), id func(T) string) {
	t.Helper()
	for _, count := range []bounded.Page{{}, {Count: bounded.CountCapped, CountCap: 4}, {Count: bounded.CountNone}} {
		for _, size := range sizes {
			p := count
			p.Limit = size
			name := fmt.Sprintf("%s, %d a page, count %v", name, size, count.Count)
			want := WalkBoth(t, name, p, search(ref), id)
			for i, s := range stores {
				got := WalkBoth(t, name, p, search(s), id)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, store %d (-memrepo +store):\n%s", name, i, diff)
				}
				for _, off := range offsets {
					p.Offset = off
					w, werr := search(ref)(p)
					g, gerr := search(s)(p)
					if diff := cmp.Diff(PageView(w, werr, id), PageView(g, gerr, id)); diff != "" {
						t.Errorf("%s, store %d, offset %d (-memrepo +store):\n%s", name, i, off, diff)
					}
				}
				p.Offset = 0
			}
		}
	}
}
