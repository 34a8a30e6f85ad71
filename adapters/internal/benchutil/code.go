package benchutil

import (
	"context"
	"fmt"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// LoadChunks bulk-loads n chunks of Go code and their terms straight into
// the adapter's tables, with multi-row INSERTs in one transaction, as
// PutChunks would write them. Chunk i is a function handle<i> calling
// shard<s>.Run, s = i mod max(n/1,000, 1): a shard's name is in 1,000
// chunks at every size (every chunk at 1,000 chunks or fewer), a
// handler's in one, and "context" in all.
func LoadChunks(ctx context.Context, db *bun.DB, n int) error {
	shards := max(n/1000, 1)
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ins := newInserter(ctx, tx)
		for i := range n {
			c := ports.Chunk{
				ID:        fmt.Sprintf("chunk/%07d", i),
				FilePath:  fmt.Sprintf("internal/shard%d/handle%07d.go", i%shards, i),
				Language:  "go",
				StartLine: 1 + i%50,
				Content: fmt.Sprintf("func handle%d(ctx context.Context) error {\n\treturn shard%d.Run(ctx)\n}\n",
					i, i%shards),
			}
			c.EndLine = c.StartLine + 2
			ins.add("bounded_chunks", "id, file_path, language, start_line, end_line, content, context_before, context_after",
				c.ID, c.FilePath, c.Language, c.StartLine, c.EndLine, c.Content, "", "")
			for _, t := range ports.Terms(c.Content) {
				ins.add("bounded_chunk_terms", "term, chunk_id", t, c.ID)
			}
			if ins.err != nil {
				return ins.err
			}
		}
		ins.flushAll()
		return ins.err
	})
}

// CodePages runs SearchCode for the names of three handlers over
// [LoadChunks] (of 1,004 chunks or more) by search: its first page of 2,
// then the next page by cursor under each count strategy, calling check
// after each call with its name, e.g. to read the plan of the statement
// it ran.
func CodePages(tb testing.TB, search func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error), check func(name string)) {
	tb.Helper()
	q := ports.CodeQuery{Query: "handle1001 handle1002 handle1003"}
	first, err := search(q, bounded.Page{Limit: 2})
	if err != nil {
		tb.Fatal(err)
	}
	if first.Page.NextCursor == "" || len(first.Items) != 2 {
		tb.Fatalf("SearchCode(%q): %d results and cursor %q, want 2 of 3", q.Query, len(first.Items), first.Page.NextCursor)
	}
	check("first page")
	for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		if _, err := search(q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
			tb.Fatal(err)
		}
		check(fmt.Sprintf("by cursor, %v", count))
	}
}

// CodeWalkPages runs SearchCode over [LoadChunks] of 5,000 chunks by
// search for queries it walks in result order: "context" (every chunk)
// and "context shard3" (a shard of 1,000 chunks and every chunk): for
// each, the first page of 2, then the next page and the page before it
// by cursor, under each count strategy, calling check after each call
// with its name.
func CodeWalkPages(tb testing.TB, search func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error), check func(name string)) {
	tb.Helper()
	for _, q := range []ports.CodeQuery{{Query: "context"}, {Query: "context shard3"}} {
		for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
			first, err := search(q, bounded.Page{Limit: 2, Count: count})
			if err != nil {
				tb.Fatal(err)
			}
			if first.Page.NextCursor == "" || len(first.Items) != 2 {
				tb.Fatalf("SearchCode(%q): %d results and cursor %q, want 2 of many", q.Query, len(first.Items), first.Page.NextCursor)
			}
			check(fmt.Sprintf("%q, first page, %v", q.Query, count))
			next, err := search(q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count})
			if err != nil {
				tb.Fatal(err)
			}
			check(fmt.Sprintf("%q, next page, %v", q.Query, count))
			if _, err := search(q, bounded.Page{Limit: 2, Cursor: next.Page.PrevCursor, Count: count}); err != nil {
				tb.Fatal(err)
			}
			check(fmt.Sprintf("%q, page before, %v", q.Query, count))
		}
	}
}
