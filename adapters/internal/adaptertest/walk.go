package adaptertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
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
// then back to the first by PrevCursor, and returns every page read; with
// steps over 0, it follows at most steps cursors each way.
func WalkBoth[T any](t *testing.T, name string, p bounded.Page, steps int, search func(bounded.Page) (bounded.Paged[T], error), id func(T) string) []WalkedPage {
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
		for i := 0; err == nil && dir.cursor(pg.Page) != "" && (steps <= 0 || i < steps); i++ {
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
	deep := deeptest.On()
	if deep {
		queries = append(queries, ports.CodeQuery{Query: "foo bar baz qux"}, ports.CodeQuery{Query: "ctx err nil"},
			ports.CodeQuery{Query: "parse", PathPrefix: "pkg/日本"}, ports.CodeQuery{Query: "error", Language: "python"})
	}
	id := func(m ports.CodeMatch) string { return fmt.Sprintf("%s %.4f", m.ID, m.Score) }
	for _, q := range queries {
		all, err := mem.SearchCode(ctx, q, bounded.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		sizes, offsets := walkSizes(deep, all.Page.Total)
		SameWalks(t, fmt.Sprintf("%+v", q), sizes, offsets, ports.Code(mem), stores,
			func(s ports.Code) func(bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
				return func(p bounded.Page) (bounded.Paged[ports.CodeMatch], error) { return s.SearchCode(ctx, q, p) }
			}, id)
	}
}

// walkSizes are the page sizes and offsets a walk test reads a query's
// total results with: pages of one only where they are few (12), but for
// a deep run (deeptest).
func walkSizes(deep bool, total int) (sizes, offsets []int) {
	switch {
	case deep:
		return []int{1, 3, 7}, []int{1, 2, 5}
	case total <= 12:
		return []int{1, 4}, []int{2}
	}
	return []int{4}, []int{2}
}

// SameWalks checks that search on each of stores pages as it does on ref
// (memrepo), under every count strategy (the capped one with a cap of 4),
// at each page size: the same pages walked from the first to the last
// and back ([WalkBoth]), and the same page at each offset. Under the exact
// and the capped count, which may read what the page alone would not, the
// walks follow two cursors each way, but for a deep run (deeptest).
func SameWalks[S, T any](t *testing.T, name string, sizes, offsets []int, ref S, stores []S,
	search func(S) func(bounded.Page) (bounded.Paged[T], error), id func(T) string) {
	t.Helper()
	for _, count := range []bounded.Page{{Count: bounded.CountNone}, {Count: bounded.CountCapped, CountCap: 4}, {}} {
		steps := 2
		if count.Count == bounded.CountNone || deeptest.On() {
			steps = 0
		}
		for _, size := range sizes {
			p := count
			p.Limit = size
			name := fmt.Sprintf("%s, %d a page, count %v", name, size, count.Count)
			want := WalkBoth(t, name, p, steps, search(ref), id)
			for i, s := range stores {
				got := WalkBoth(t, name, p, steps, search(s), id)
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

// FuzzyWalk checks fuzzy SearchNodes, which reads the names of one
// trigram count at a time, against memrepo on the conformance entities
// and names made of two of ten words and a number, some tagged: stores
// opened by open(t, broad) read a count's candidates through the index
// of the query's rarest trigrams when they take at most broad rows of it,
// and count the trigrams of the count's names otherwise; a query whose
// trigrams have at most broad/10 rows in all is counted by one GROUP BY.
// Stores opened with broad 1 and 64 (and 20,000, deep, which counts each
// of these queries at once) must page as memrepo does, forward and
// backward by cursor and by offset, under every count strategy, for one
// query and several, with and without tags, at thresholds 0.3 and 0.6;
// but for a deep run, a query of over 12 results runs on one store, the
// stores taking turns.
func FuzzyWalk(t *testing.T, open func(t *testing.T, broad int) ports.Knowledge) {
	ctx := context.Background()
	entities := conformance.Entities(conformance.Seed)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	for i := range 240 {
		e := ports.Entity{Name: fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i%37), Type: "thing",
			UpdatedAt: time.Unix(int64(i), 0).UTC()}
		if i%3 == 0 {
			e.Tags = []string{"ml"}
		}
		entities = append(entities, e)
	}
	// "abc" ties names of 4 and 12 trigrams at 1/3, in levels read one
	// after the other: the longer sort first, and last; one of 13 ends
	// the results.
	for _, name := range []string{"abx", "abz", "abc defghij", "zz abc defg", "abc defghijk"} {
		entities = append(entities, ports.Entity{Name: name, Type: "tie", UpdatedAt: time.Unix(1, 0).UTC()})
	}
	mem := memrepo.New()
	for _, e := range entities {
		if err := mem.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	deep := deeptest.On()
	broads := []int{1, 64}
	if deep {
		broads = []int{1, 64, 20_000}
	}
	var stores []ports.Knowledge
	for _, broad := range broads {
		s := open(t, broad)
		for _, e := range entities {
			if err := s.PutEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		stores = append(stores, s)
	}
	queries := []ports.NodeQuery{
		{Queries: []string{"alpah bravo"}},
		{Queries: []string{"alpah bravo", "charlie delat 1"}, Threshold: 0.4},
		{Queries: []string{"alpha"}, Tags: []string{"ml"}},
		{Queries: []string{"hotel india 3"}, Threshold: 0.6},
		{Queries: []string{"auth service"}},
		{Queries: []string{"zzzz qqqq"}},
		{Queries: []string{"abc"}},
	}
	if deep {
		queries = append(queries, ports.NodeQuery{Queries: []string{"golf", "juliet echo"}, Tags: []string{"ml"}},
			ports.NodeQuery{Queries: []string{"données"}}, ports.NodeQuery{Queries: []string{"delta delta"}, Threshold: 0.45})
	}
	fuzzyWalks(t, mem, stores, queries)
}

// TrigramMigration checks that a store opened on a database whose
// trigram table predates its trigram_count column (a table of trigram and
// name, in the engine's text type text) rebuilds it: fuzzy search then
// pages as memrepo does. open opens a store on db, creating or migrating
// its schema.
func TrigramMigration(t *testing.T, db *bun.DB, text string, open func(db *bun.DB) (ports.Knowledge, error)) {
	ctx := context.Background()
	s, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	mem := memrepo.New()
	words := []string{"alpha", "bravo", "charlie", "delta"}
	for i := range 60 {
		e := ports.Entity{Name: fmt.Sprintf("%s %s %d", words[i%4], words[(i/4)%4], i), Type: "thing", UpdatedAt: time.Unix(int64(i), 0).UTC()}
		for _, st := range []ports.Knowledge{s, mem} {
			if err := st.PutEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, stmt := range []string{
		"CREATE TABLE bounded_entity_trigrams_old (trigram " + text + " NOT NULL, name " + text + " NOT NULL, PRIMARY KEY (trigram, name))",
		"INSERT INTO bounded_entity_trigrams_old (trigram, name) SELECT trigram, name FROM bounded_entity_trigrams",
		"DROP TABLE bounded_entity_trigrams",
		"ALTER TABLE bounded_entity_trigrams_old RENAME TO bounded_entity_trigrams",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	migrated, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM bounded_entity_trigrams WHERE trigram_count > 0").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows == 0 {
		t.Fatal("no trigram row has its name's trigram count")
	}
	q := ports.NodeQuery{Queries: []string{"alpah bravo"}, Mode: ports.Fuzzy, Threshold: 0.3}
	SameWalks(t, "migrated", []int{3}, []int{2}, ports.Knowledge(mem), []ports.Knowledge{migrated},
		func(s ports.Knowledge) func(bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
			return func(p bounded.Page) (bounded.Paged[ports.NodeMatch], error) { return s.SearchNodes(ctx, q, p) }
		}, func(m ports.NodeMatch) string { return fmt.Sprintf("%s %.6f", m.Name, m.Score) })
}

// NodeMigration checks that a store opened on a database whose notes were
// written before folders were nodes of the hierarchy (no
// bounded_note_nodes rows, no edges of nodes to their folders) fills them
// in: the hierarchy and the names then answer as memrepo's. open opens a
// store on db, creating or migrating its schema.
func NodeMigration(t *testing.T, db *bun.DB, open func(db *bun.DB) (ports.Notes, error)) {
	ctx := context.Background()
	s, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	mem := memrepo.New()
	notes := []ports.Note{
		{ID: "Home", Title: "Home"},
		{ID: "en/Plugins", Title: "Plugins"},
		{ID: "en/Plugins/Canvas", Title: "Canvas", Parents: []string{"Home", "en/Plugins"}},
		{ID: "en/Plugins/Core/Backlinks", Title: "Backlinks", Parents: []string{"en/Plugins/Canvas"}},
		{ID: "ja/Plugins/Canvas", Title: "Canvas"},
	}
	for _, n := range notes {
		for _, st := range []ports.Notes{s, mem} {
			if err := st.PutNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The database as an earlier version left it: the parents its notes
	// name, and no nodes.
	for _, stmt := range []string{"DROP TABLE bounded_note_nodes", "DELETE FROM bounded_note_parents"} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range notes {
		for _, p := range n.Parents {
			if _, err := db.ExecContext(ctx, "INSERT INTO bounded_note_parents (note_id, parent_id) VALUES (?, ?)", n.ID, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	migrated, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	b := both{t: t, ref: mem, name: "migrated"}
	for _, id := range []string{"Home", "en", "en/Plugins", "en/Plugins/Canvas", "en/Plugins/Core", "ja", "ja/Plugins"} {
		w, we := mem.Children(ctx, id, bounded.Page{})
		g, ge := migrated.Children(ctx, id, bounded.Page{})
		b.check(fmt.Sprintf("Children(%q)", id), w, g, we, ge)
		w, we = mem.Parents(ctx, id, bounded.Page{})
		g, ge = migrated.Parents(ctx, id, bounded.Page{})
		b.check(fmt.Sprintf("Parents(%q)", id), w, g, we, ge)
		wd, wde := mem.Descendants(ctx, id, ports.MaxDescendantDepth, bounded.Page{})
		gd, gde := migrated.Descendants(ctx, id, ports.MaxDescendantDepth, bounded.Page{})
		b.check(fmt.Sprintf("Descendants(%q)", id), wd, gd, wde, gde)
	}
	names := []string{"canvas", "plugins", "PLUGINS/CANVAS", "core", "backlinks", "ja/plugins", "home"}
	w, we := mem.ResolveNotes(ctx, names)
	g, ge := migrated.ResolveNotes(ctx, names)
	b.check("ResolveNotes", w, g, we, ge)
}
