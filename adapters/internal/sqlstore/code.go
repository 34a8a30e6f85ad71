package sqlstore

import (
	"context"
	"database/sql"
	"math"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// PutChunks stores the chunks with their content's terms ([ports.Terms]),
// replacing any with the same IDs, in one transaction; when an ID repeats,
// the later chunk wins. See [ports.Code].
func (s *Store) PutChunks(ctx context.Context, chunks []ports.Chunk) error {
	norm := make([]ports.Chunk, 0, len(chunks))
	for _, c := range chunks {
		c, err := c.Normalize()
		if err != nil {
			return err
		}
		norm = append(norm, c)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	norm = chunksInIDOrder(norm) // one lock order for every batch
	return s.wrap(s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		for _, c := range norm {
			if err := s.upsert(ctx, tx, "bounded_chunks",
				[]string{"id", "file_path", "language", "start_line", "end_line", "content", "context_before", "context_after"},
				[]any{c.ID, c.FilePath, c.Language, c.StartLine, c.EndLine, c.Content, c.ContextBefore, c.ContextAfter},
			); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM bounded_chunk_terms WHERE chunk_id = ?", c.ID); err != nil {
				return err
			}
			terms := ports.Terms(c.Content)
			rows := make([][]any, len(terms))
			for i, t := range terms {
				rows[i] = []any{t, c.ID}
			}
			if err := insertRows(ctx, tx, "bounded_chunk_terms", []string{"term", "chunk_id"}, rows, ""); err != nil {
				return err
			}
		}
		return nil
	}))
}

// SearchCode pages the chunks sharing terms with q, most similar first.
// The shared terms are counted in SQL by a GROUP BY on the term index; as
// every score of one query has the same denominator (the query's term
// count), ordering by the count is ordering by the score, which is then
// computed in float32 in Go exactly as [ports.TermScore] does. See
// [ports.Code].
func (s *Store) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	scope := q.Scope()
	return fetch(ctx, s, p, ports.SearchCodeLimits, scope, func(ctx context.Context, req bounded.Request) (bounded.Rows[ports.CodeMatch], error) {
		q, err := q.Normalize()
		if err != nil {
			return bounded.Rows[ports.CodeMatch]{}, err
		}
		if err := ctx.Err(); err != nil {
			return bounded.Rows[ports.CodeMatch]{}, err
		}
		terms := ports.Terms(q.Query)
		where, whereArgs := "1 = 1", []any(nil)
		if q.PathPrefix != "" {
			// substr counts characters on both engines; comparing with = is
			// bytewise and case-sensitive, unlike SQLite's LIKE.
			where += " AND substr(c.file_path, 1, ?) = ?"
			whereArgs = append(whereArgs, utf8.RuneCountInString(q.PathPrefix), q.PathPrefix)
		}
		if q.Language != "" {
			where += " AND c.language = ?"
			whereArgs = append(whereArgs, q.Language)
		}
		matched := func() *bun.SelectQuery {
			shared := s.db.NewSelect().ColumnExpr("chunk_id, count(*) AS shared").TableExpr("bounded_chunk_terms").
				Where("term IN (?)", bun.List(terms)).GroupExpr("chunk_id")
			return s.db.NewSelect().TableExpr("(?) AS m", shared).Join("JOIN bounded_chunks AS c ON c.id = m.chunk_id").Where(where, whereArgs...)
		}
		// The score key of a cursor is turned back into the shared-term count
		// SQL orders by: score = float32(shared)/float32(len(terms)) exactly.
		toShared := func(v any) any {
			f, _ := v.(float64)
			return int64(math.Round(f * float64(len(terms))))
		}
		pq := paged{
			count: matched(),
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(matched().ColumnExpr("c.id AS id, c.file_path AS file_path, c.language AS language, c.start_line AS start_line, c.end_line AS end_line," +
					" c.content AS content, c.context_before AS context_before, c.context_after AS context_after, m.shared AS shared"))
			},
			keys: []key{{inner: "m.shared", outer: "p.shared", desc: true, num: true, conv: toShared}, {inner: "c.file_path", outer: "p.file_path"},
				{inner: "c.start_line", outer: "p.start_line", num: true}, {inner: "c.id", outer: "p.id"}},
		}
		rows, _, err := collect(ctx, s, pq, req, ports.SearchCodeOrder(q), func(counts []any, rows *sql.Rows) (ports.CodeMatch, bool, error) {
			var c ports.Chunk
			var start, end, shared int64
			if err := rows.Scan(append(counts, nstr{&c.ID}, nstr{&c.FilePath}, nstr{&c.Language}, nint{&start}, nint{&end},
				nstr{&c.Content}, nstr{&c.ContextBefore}, nstr{&c.ContextAfter}, nint{&shared})...); err != nil {
				return ports.CodeMatch{}, false, err
			}
			if c.ID == "" {
				return ports.CodeMatch{}, false, nil
			}
			c.StartLine, c.EndLine = int(start), int(end)
			score := float32(shared) / float32(len(terms))
			return ports.CodeMatch{Chunk: c, Score: float64(score)}, true, nil
		})
		return rows, err
	})
}
