package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"
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
// A query whose terms are found in few chunks counts the terms each of
// them shares with a GROUP BY on the term index; a broader one walks the
// chunks in the order of its results ([codeWalk]). As every score of one
// query has the same denominator (the query's term count), ordering by
// the count is ordering by the score, which is then computed in float32
// in Go exactly as [ports.TermScore] does. See [ports.Code].
func (s *Store) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	scope := q.Scope()
	return fetch(ctx, s, p, ports.SearchCodeLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.CodeMatch], error) {
		q, err := q.Normalize()
		if err != nil {
			return driver.Rows[ports.CodeMatch]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.CodeMatch]{}, err
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
		found, err := s.termChunks(ctx, terms)
		if err != nil {
			return driver.Rows[ports.CodeMatch]{}, err
		}
		pq := s.codeGrouped(terms, where, whereArgs)
		if found != nil {
			w := codeWalk{terms: terms, found: found, where: where, whereArgs: whereArgs}
			walks, err := s.planCodeWalk(ctx, &w, q.PathPrefix)
			if err != nil {
				return driver.Rows[ports.CodeMatch]{}, err
			}
			if walks {
				pq = s.codeWalked(&w, req)
			}
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

// chunkCols are the columns of a SearchCode result, from chunks c, but
// for the shared-term count that ends them.
const chunkCols = "c.id AS id, c.file_path AS file_path, c.language AS language, c.start_line AS start_line, c.end_line AS end_line," +
	" c.content AS content, c.context_before AS context_before, c.context_after AS context_after"

// maxCodeCandidates is the most chunks the terms of a SearchCode query
// may be found in, each term's chunks counted, for it to count the terms
// of every one of them with a GROUP BY ([Store.codeGrouped]); a broader
// query walks the chunks in order ([Store.codeWalk]).
const maxCodeCandidates = 2_000

// maxWalkTerms is the most terms of a query [Store.codeWalk] walks: one
// branch for each number of shared terms.
const maxWalkTerms = 8

// termChunks returns how many chunks hold each of terms, counted up to
// the most for a GROUP BY (Dialect.BroadCode) and one past it, when their
// sum is over it and the query is walked; nil otherwise.
func (s *Store) termChunks(ctx context.Context, terms []string) ([]int64, error) {
	if s.d.ConstLimit || len(terms) > maxWalkTerms {
		return nil, nil
	}
	most := cmp.Or(s.d.BroadCode, maxCodeCandidates)
	keys := make([][]any, len(terms))
	for i, t := range terms {
		keys[i] = []any{t}
	}
	found, err := s.countsUpTo(ctx, "bounded_chunk_terms", "term = ?", keys, most)
	if err != nil {
		return nil, s.wrapCtx(ctx, err)
	}
	var sum int64
	for _, n := range found {
		sum += n
	}
	if sum <= int64(most) {
		return nil, nil
	}
	return found, nil
}

// codeGrouped is the paged statement of SearchCode for a query found in
// few chunks: the terms each shares, counted by a GROUP BY over the term
// index, then sorted.
func (s *Store) codeGrouped(terms []string, where string, whereArgs []any) paged {
	matched := func() *bun.SelectQuery {
		shared := s.db.NewSelect().ColumnExpr("chunk_id, count(*) AS shared").TableExpr("bounded_chunk_terms").
			Where("term IN (?)", bun.List(terms)).GroupExpr("chunk_id")
		return s.db.NewSelect().TableExpr("(?) AS m", shared).Join("JOIN bounded_chunks AS c ON c.id = m.chunk_id").Where(where, whereArgs...)
	}
	return paged{
		count: matched(),
		page: func(c clauses) *bun.SelectQuery {
			return c.apply(matched().ColumnExpr(chunkCols + ", m.shared AS shared"))
		},
		keys: []key{{inner: "m.shared", outer: "p.shared", desc: true, num: true, conv: sharedOf(terms)}, {inner: "c.file_path", outer: "p.file_path"},
			{inner: "c.start_line", outer: "p.start_line", num: true}, {inner: "c.id", outer: "p.id"}},
	}
}

// sharedOf turns the score key of a SearchCode cursor for terms back into
// the shared-term count SQL orders by: score =
// float32(shared)/float32(len(terms)) exactly.
func sharedOf(terms []string) func(v any) any {
	return func(v any) any {
		f, _ := v.(float64)
		return int64(math.Round(f * float64(len(terms))))
	}
}

// codeWalk is how SearchCode reads a query whose terms are found in many
// chunks ([Store.codeWalked]).
type codeWalk struct {
	terms []string
	// found is how many chunks hold each term, capped.
	found []int64
	// byRarity are the terms' indexes, the rarest term's first.
	byRarity []int
	// where filters the chunks c; walkWhere also bounds a walk to the
	// range of a path prefix.
	where, walkWhere    string
	whereArgs, walkArgs []any
	// walk[n] says the chunks sharing n terms are walked in order; the
	// others are found through the term index.
	walk []bool
}

// walkSample is how many chunks, from the start of their order, tell
// whether some chunk shares a number of a query's terms: a walk reads on
// average walkSample/k chunks a row when k of them do.
const walkSample = 256

// planCodeWalk fills w's plan: the chunks sharing n terms are walked
// when they are not few (the m-n+1 rarest terms, of which each holds
// one, are found in more than Dialect.BroadCode chunks) and one of the
// first walkSample chunks of the walk shares n terms; otherwise they are
// found through the term index. A walk starts at the path prefix, and
// ends past it where the prefix's last rune has a successor. It reports
// whether any number of shared terms is walked: when none is, one GROUP
// BY over the postings of the terms ([Store.codeGrouped]) costs less.
func (s *Store) planCodeWalk(ctx context.Context, w *codeWalk, prefix string) (walks bool, err error) {
	m := len(w.terms)
	w.byRarity = make([]int, m)
	for i := range w.byRarity {
		w.byRarity[i] = i
	}
	slices.SortStableFunc(w.byRarity, func(a, b int) int { return cmp.Compare(w.found[a], w.found[b]) })
	w.walkWhere, w.walkArgs = w.where, w.whereArgs
	if prefix != "" {
		w.walkWhere += " AND c.file_path >= ?"
		w.walkArgs = append(slices.Clip(w.walkArgs), prefix)
		if end, ok := prefixEnd(prefix); ok {
			w.walkWhere += " AND c.file_path < ?"
			w.walkArgs = append(w.walkArgs, end)
		}
	}
	most := int64(cmp.Or(s.d.BroadCode, maxCodeCandidates))
	w.walk = make([]bool, m+1)
	sample := false
	for n := 1; n <= m; n++ {
		w.walk[n] = w.candidates(n) > most
		sample = sample || w.walk[n]
	}
	if !sample {
		return false, nil
	}
	first := s.from("bounded_chunks AS c", w.walkWhere, w.walkArgs...).ColumnExpr(chunkShares+" AS shared", bun.List(w.terms)).
		OrderExpr("c.file_path, c.start_line, c.id").Limit(walkSample)
	rows, err := s.db.NewSelect().ColumnExpr("DISTINCT x.shared").TableExpr("(?) AS x", first).Rows(ctx)
	if err != nil {
		return false, s.wrapCtx(ctx, err)
	}
	defer rows.Close()
	seen := make([]bool, m+1)
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return false, s.wrapCtx(ctx, err)
		}
		if n >= 1 && n <= int64(m) {
			seen[n] = true
		}
	}
	if err := rows.Err(); err != nil {
		return false, s.wrapCtx(ctx, err)
	}
	for n := 1; n <= m; n++ {
		w.walk[n] = w.walk[n] && seen[n]
		walks = walks || w.walk[n]
	}
	return walks, nil
}

// candidates is how many chunks, capped, hold one of the m-n+1 rarest
// terms: every chunk sharing n terms does.
func (w *codeWalk) candidates(n int) int64 {
	var sum int64
	for _, i := range w.byRarity[:len(w.terms)-n+1] {
		sum += w.found[i]
	}
	return sum
}

// chunkShares counts the terms of a list argument that chunk c holds.
const chunkShares = "(SELECT count(*) FROM bounded_chunk_terms u WHERE u.chunk_id = c.id AND u.term IN (?))"

// codeWalked is the paged statement of SearchCode for a query whose terms
// are found in many chunks (w): one branch for each number of shared
// terms, from all of them to one, read in that order, each in the order
// of the results (file path, start line, id) and each reading only the
// rows the branches before it leave to the page (a LIMIT the engines
// compute before reading). A branch walks the chunks down
// bounded_chunks_order, counting the terms each shares by lookups in the
// term index, or reads its candidates through the term index and sorts
// them: a chunk sharing n of m terms holds one of any m-n+1 of them, so
// those of the m-n+1 rarest terms are its candidates ([Store.planCodeWalk]
// chooses). The total counts the chunks of each term, broadest first,
// that hold none of the terms before it, so that a capped count stops at
// the cap.
func (s *Store) codeWalked(w *codeWalk, req driver.Request) paged {
	terms, where, whereArgs := w.terms, w.where, w.whereArgs
	keys := []key{{inner: "c.file_path", outer: "p.file_path"}, {inner: "c.start_line", outer: "p.start_line", num: true}, {inner: "c.id", outer: "p.id"}}
	conv := sharedOf(terms)
	// branch is the branch of the chunks sharing n terms, or nil when
	// req's cursor is past them all.
	branch := func(n int, limit string) bunschema.QueryAppender {
		var c clauses
		if at := req.At; at != nil {
			switch r, _ := conv(at.Keys[0]).(int64); {
			case r == int64(n):
				var err error
				c.pred, c.predArgs, err = s.after(keys, &driver.Cursor{Backward: at.Backward, Keys: at.Keys[1:]})
				if err != nil {
					return nil // unreachable: run checked the same keys
				}
			case at.Backward == (r > int64(n)):
				return nil
			}
		}
		c.order, c.orderArgs = s.orderBy(keys, false, req.Backward())
		var q *bun.SelectQuery
		if w.walk[n] {
			q = s.from("bounded_chunks AS c", w.walkWhere, w.walkArgs...)
		} else {
			cand := make([]string, 0, len(terms)-n+1)
			for _, i := range w.byRarity[:len(terms)-n+1] {
				cand = append(cand, terms[i])
			}
			ids := s.db.NewSelect().Distinct().Column("chunk_id").TableExpr("bounded_chunk_terms").Where("term IN (?)", bun.List(cand))
			q = s.db.NewSelect().TableExpr("(?) AS x", ids).Join(s.d.joinInOrder()+" bounded_chunks AS c ON c.id = x.chunk_id").Where(where, whereArgs...)
		}
		q = c.keyset(q.Where(chunkShares+" = ?", bun.List(terms), n).ColumnExpr(chunkCols+", ? AS shared", n)).OrderExpr(c.order, c.orderArgs...)
		return bun.SafeQuery("? LIMIT "+limit, q)
	}
	page := func(c clauses) *bun.SelectQuery {
		// Built here, once run has checked the cursor's keys.
		order := make([]int, len(terms))
		for i := range order {
			order[i] = len(terms) - i
		}
		if req.Backward() {
			slices.Reverse(order)
		}
		var ctes, reads []string
		var args []any
		left := strconv.Itoa(pageRows(req))
		for _, n := range order {
			b := branch(n, left)
			if b == nil {
				continue
			}
			name := fmt.Sprintf("b%d", n)
			ctes = append(ctes, name+" AS (?)")
			args = append(args, b)
			reads = append(reads, "SELECT * FROM "+name)
			left += " - (SELECT count(*) FROM " + name + ")"
		}
		union := bun.SafeQuery("WITH "+strings.Join(ctes, ", ")+" "+strings.Join(reads, " UNION ALL "), args...)
		if len(ctes) == 0 {
			// Past every branch: no row.
			union = bun.SafeQuery("SELECT " + chunkCols + ", 0 AS shared FROM bounded_chunks AS c WHERE 1 = 0")
		}
		return c.apply(s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS m", union))
	}
	// The total: the chunks of each term, broadest first, that hold no
	// term before it.
	byBreadth := slices.Clone(w.byRarity)
	slices.Reverse(byBreadth)
	var parts []string
	var args []any
	for k, i := range byBreadth {
		part := "SELECT t.chunk_id FROM bounded_chunk_terms AS t JOIN bounded_chunks AS c ON c.id = t.chunk_id WHERE t.term = ?"
		args = append(args, terms[i])
		if k > 0 {
			before := make([]string, k)
			for j, b := range byBreadth[:k] {
				before[j] = terms[b]
			}
			part += " AND NOT EXISTS (SELECT 1 FROM bounded_chunk_terms AS u WHERE u.chunk_id = t.chunk_id AND u.term IN (?))"
			args = append(args, bun.List(before))
		}
		parts = append(parts, part+" AND "+where)
		args = append(args, whereArgs...)
	}
	return paged{
		count: s.db.NewSelect().TableExpr("(?) AS w", bun.SafeQuery(strings.Join(parts, " UNION ALL "), args...)),
		page:  page,
		keys: []key{{inner: "m.shared", outer: "p.shared", desc: true, num: true, conv: conv}, {inner: "m.file_path", outer: "p.file_path"},
			{inner: "m.start_line", outer: "p.start_line", num: true}, {inner: "m.id", outer: "p.id"}},
	}
}

// prefixEnd returns the least string above every string that starts with
// prefix, in bytewise (code point) order: prefix with its last rune
// replaced by the next; false when it is the last rune.
func prefixEnd(prefix string) (string, bool) {
	r, size := utf8.DecodeLastRuneInString(prefix)
	switch {
	case r == utf8.MaxRune || r == utf8.RuneError && size <= 1:
		return "", false
	case r == 0xD7FF:
		r = 0xE000 // past the surrogates
	default:
		r++
	}
	return prefix[:len(prefix)-size] + string(r), true
}
