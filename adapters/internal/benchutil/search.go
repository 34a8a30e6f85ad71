package benchutil

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// Reindex drops the note index of the store on db and builds it again
// from the stored notes, returning the time the build took and the
// index's size in bytes.
type Reindex func(ctx context.Context, db *bun.DB) (time.Duration, int64, error)

// RunSearch loads each data set ([Rows], [Load], with the adapter's
// indexes kept current as rows are written) and measures SearchNotes and
// exact SearchNodes at pages of 20 with the capped count: a selective term
// (about 1,111 matches at every size: "note 1" at 10,000 rows, "note 12"
// at 100,000, "note 123" at 1,000,000), its fifth page by cursor, the
// same first page with the exact count, and a broad term ("hub": every
// note); for entities, a broad term ("alpha": half of them) and a
// selective one (the notes' number after a space: " 12" at 100,000
// matches the 1,111 names whose closing number starts with 12), first,
// by cursor and with the exact count; for code ([LoadChunks]), a query of
// two identifiers, one in 1,000 chunks and one in a single chunk, first,
// by cursor and with the exact count, a broad term ("context": every
// chunk), two broad terms ("context error": both in every chunk) and
// the names of five shards (no chunk holds two); and fuzzy search for a
// misspelled name ("alpah beta", threshold 0.3), first page and 5th by
// cursor, and for a name many names share words and digits with ("zeta
// theta 4243"). It logs the load's throughput and,
// through reindex, the note index's build time (0: not timed) and size.
//
//	go test -run '^$' -bench Search -benchtime 20x ./adapters/sqlite/
//	BOUNDED_BENCH_ROWS=1000000 go test -run '^$' -bench Search -benchtime 20x -timeout 2h ./adapters/sqlite/
func RunSearch(b *testing.B, open Opener, reindex Reindex) {
	for _, rows := range Rows() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			store, db := open(b, rows)
			start := time.Now()
			if err := LoadChunks(ctx, db, rows); err != nil {
				b.Fatal(err)
			}
			b.Logf("load: %d chunks and their terms in %v", rows, time.Since(start).Round(time.Millisecond))
			start = time.Now()
			if err := LoadTrigrams(ctx, db, rows); err != nil {
				b.Fatal(err)
			}
			b.Logf("load: the trigrams of %d entities in %v", rows, time.Since(start).Round(time.Millisecond))
			start = time.Now()
			loadAndAnalyze(ctx, b, db, rows)
			took := time.Since(start)
			b.Logf("load: %d notes (and as many runs and entities) in %v, %.0f notes/s with the note index", rows, took.Round(time.Millisecond), float64(rows)/took.Seconds())
			if reindex != nil {
				d, size, err := reindex(ctx, db)
				if err != nil {
					b.Fatal(err)
				}
				if d == 0 {
					b.Logf("note index: %.1f MB (build not timed)", float64(size)/1e6)
				} else {
					b.Logf("note index: built in %v, %.1f MB", d.Round(time.Millisecond), float64(size)/1e6)
				}
			}
			digits := len(fmt.Sprint(rows - 1))
			selective := "note " + "123456789"[:max(digits-3, 1)]
			capped := bounded.Page{Limit: 20, Count: bounded.CountCapped}
			notes := func(q string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return store.SearchNotes(ctx, q, p)
			}
			cursor := fifthCursor(b, "notes", selective, capped, notes)
			// Entity names end with " <i>": the number's leading space
			// makes the term as selective as the notes' (1,111 matches).
			selectiveNode := selective[len("note"):]
			nodes := func(q string, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
				return store.SearchNodes(ctx, ports.NodeQuery{Queries: []string{q}}, p)
			}
			nodeCursor := fifthCursor(b, "entities", selectiveNode, capped, nodes)
			// "alpah beta" is within 0.3 of the names "alpha beta <i>", a
			// 18th of the entities.
			fuzzy := ports.NodeQuery{Queries: []string{"alpah beta"}, Mode: ports.Fuzzy, Threshold: 0.3}
			// A name whose words and digits many names share in part.
			fuzzyMany := ports.NodeQuery{Queries: []string{"zeta theta 4243"}, Mode: ports.Fuzzy, Threshold: 0.3}
			fuzzyCursor := fifthCursor(b, "entities (fuzzy)", fuzzy.Queries[0], capped, func(_ string, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
				return store.SearchNodes(ctx, fuzzy, p)
			})
			// A shard's name is in 1,000 chunks, a handler's in one.
			selectiveCode := ports.CodeQuery{Query: "shard7 handle7007"}
			code := func(q string, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
				return store.SearchCode(ctx, ports.CodeQuery{Query: q}, p)
			}
			codeCursor := fifthCursor(b, "chunks", selectiveCode.Query, capped, code)
			cases := []struct {
				name string
				call func() (int, error)
			}{
				{"notes/selective/first", func() (int, error) { pg, err := notes(selective, capped); return len(pg.Items), err }},
				{"notes/selective/cursor5", func() (int, error) {
					pg, err := notes(selective, bounded.Page{Limit: 20, Cursor: cursor, Count: bounded.CountCapped})
					return len(pg.Items), err
				}},
				{"notes/selective/exact", func() (int, error) { pg, err := notes(selective, bounded.Page{Limit: 20}); return len(pg.Items), err }},
				{"notes/broad/first", func() (int, error) { pg, err := notes("hub", capped); return len(pg.Items), err }},
				{"knowledge/exact/first", func() (int, error) {
					pg, err := store.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alpha"}}, capped)
					return len(pg.Items), err
				}},
				{"knowledge/selective/first", func() (int, error) { pg, err := nodes(selectiveNode, capped); return len(pg.Items), err }},
				{"knowledge/selective/cursor5", func() (int, error) {
					pg, err := nodes(selectiveNode, bounded.Page{Limit: 20, Cursor: nodeCursor, Count: bounded.CountCapped})
					return len(pg.Items), err
				}},
				{"knowledge/selective/exact", func() (int, error) {
					pg, err := nodes(selectiveNode, bounded.Page{Limit: 20})
					return len(pg.Items), err
				}},
				{"fuzzy/first", func() (int, error) { pg, err := store.SearchNodes(ctx, fuzzy, capped); return len(pg.Items), err }},
				{"fuzzy/many/first", func() (int, error) { pg, err := store.SearchNodes(ctx, fuzzyMany, capped); return len(pg.Items), err }},
				{"fuzzy/cursor5", func() (int, error) {
					pg, err := store.SearchNodes(ctx, fuzzy, bounded.Page{Limit: 20, Cursor: fuzzyCursor, Count: bounded.CountCapped})
					return len(pg.Items), err
				}},
				{"code/selective/first", func() (int, error) { pg, err := code(selectiveCode.Query, capped); return len(pg.Items), err }},
				{"code/selective/cursor5", func() (int, error) {
					pg, err := code(selectiveCode.Query, bounded.Page{Limit: 20, Cursor: codeCursor, Count: bounded.CountCapped})
					return len(pg.Items), err
				}},
				{"code/selective/exact", func() (int, error) {
					pg, err := code(selectiveCode.Query, bounded.Page{Limit: 20})
					return len(pg.Items), err
				}},
				{"code/broad/first", func() (int, error) { pg, err := code("context", capped); return len(pg.Items), err }},
				{"code/broad2/first", func() (int, error) { pg, err := code("context error", capped); return len(pg.Items), err }},
				{"code/shards/first", func() (int, error) {
					pg, err := code("shard1 shard2 shard3 shard4 shard5", capped)
					return len(pg.Items), err
				}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					var spent []time.Duration
					for b.Loop() {
						start := time.Now()
						n, err := c.call()
						spent = append(spent, time.Since(start))
						if err != nil {
							b.Fatal(err)
						}
						if n != 20 {
							b.Fatalf("%d results, want 20", n)
						}
					}
					b.ReportMetric(median(spent), "median-ms")
				})
			}
		})
	}
}

// fifthCursor returns the cursor of the fifth page p of search(q), and
// logs how many items (of kind) q matches.
func fifthCursor[T any](b *testing.B, kind, q string, p bounded.Page, search func(q string, p bounded.Page) (bounded.Paged[T], error)) string {
	for range 4 {
		pg, err := search(q, p)
		if err != nil {
			b.Fatal(err)
		}
		p.Cursor = pg.Page.NextCursor
	}
	all, err := search(q, bounded.Page{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%q matches %d %s", q, all.Page.Total, kind)
	return p.Cursor
}

// FuzzyEntities returns n entities named by two of ten words and a number
// ("alpha bravo 10"), updated a second apart: many share trigrams with a
// misspelled query such as "alpah bravo", which fuzzy search must find
// through the trigram index.
func FuzzyEntities(n int) []ports.Entity {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	out := make([]ports.Entity, n)
	for i := range out {
		name := fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
		out[i] = ports.Entity{Name: name, Type: "thing", UpdatedAt: time.Unix(int64(i), 0)}
	}
	return out
}

// FuzzyPages runs a fuzzy search for "alpah bravo" (threshold 0.3) over
// [FuzzyEntities] by search: its first page of 2, then the next page by
// cursor under each count strategy, calling check after each call with
// its name, e.g. to read the plan of the statement it ran.
func FuzzyPages(tb testing.TB, search func(q ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error), check func(name string)) {
	tb.Helper()
	q := ports.NodeQuery{Queries: []string{"alpah bravo"}, Mode: ports.Fuzzy, Threshold: 0.3}
	first, err := search(q, bounded.Page{Limit: 2})
	if err != nil {
		tb.Fatal(err)
	}
	if first.Page.NextCursor == "" {
		tb.Fatalf("SearchNodes(%q): %d results and no cursor, want more than 2", q.Queries, len(first.Items))
	}
	check("first page")
	for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		if _, err := search(q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
			tb.Fatal(err)
		}
		check(fmt.Sprintf("by cursor, %v", count))
	}
}
