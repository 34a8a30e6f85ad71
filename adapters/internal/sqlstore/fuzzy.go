package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// Fuzzy search over the trigram table ranks a name of m trigrams (a
// level) sharing s of a query's n by s / (n + m - s). It reads names in
// the order of the best score the names not read yet may reach, and
// stops when the page holds rows none of them can beat ([fuzzyRead]).
// A name sharing s of its m trigrams with a query holds both
//   - one of any n-s+1 of the query's trigrams: the query's rarest at the
//     name's level are read first, one trigram at a time;
//   - one of them among its own first m-s+1 places ([trigramPlaces]): a
//     long query of common trigrams reads those, one place at a time.
// Each read lowers by one the trigrams a name not read yet may share
// with one query at one level, the cheaper way. A read of more than
// Dialect.BroadFuzzy names counts its level at once with a GROUP BY.

// maxLevelCandidates is the most names one read may take
// (Dialect.BroadFuzzy): a broader read counts its level's matches with a
// GROUP BY over the level's rows of the query's trigrams instead.
const maxLevelCandidates = 1 << 17

// fuzzyQuery is one query of a fuzzy SearchNodes.
type fuzzyQuery struct {
	tri []string
}

// similarity is the similarity of a name of m trigrams sharing s of a
// query's n, as [ports.SimilarityOf] computes it.
func similarity(s, m, n int) float32 { return float32(s) / float32(n+m-s) }

// leastShared is the fewest trigrams, at most best, a name of m trigrams
// must share with a query of n for its similarity to reach threshold
// (best does).
func leastShared(best, m, n int, threshold float64) int {
	s := best
	for s > 1 && float64(similarity(s-1, m, n)) >= threshold {
		s--
	}
	return s
}

// fuzzyMatch is a name reaching the threshold, with its score.
type fuzzyMatch struct {
	name  string
	score float32
}

// searchFuzzy is SearchNodes in Fuzzy mode over the trigram table: a
// query whose trigrams have few rows ([Store.fewTrigramRows]) is counted
// by one GROUP BY ([Store.searchTrigramTable]); the others are read as
// the page needs (see above), every statement in one snapshot
// ([Store.snapshot]).
func (s *Store) searchFuzzy(ctx context.Context, q ports.NodeQuery, req driver.Request, tagWhere []string, tagArgs []any) (driver.Rows[ports.NodeMatch], error) {
	o := ports.NodeOrder(ports.Fuzzy)
	if req.At != nil {
		if err := o.Check(req.At.Keys); err != nil {
			return driver.Rows[ports.NodeMatch]{}, err
		}
	}
	var qs []fuzzyQuery
	for _, query := range q.Queries {
		if tri, ok := fuzzy.QueryTrigrams(query, q.Threshold); ok && len(tri) > 0 {
			qs = append(qs, fuzzyQuery{tri: tri})
		}
	}
	if len(qs) == 0 {
		// No query can match: the exact total is 0.
		return driver.Rows[ports.NodeMatch]{Count: 0, Keys: o.Keys}, nil
	}
	few, err := s.fewTrigramRows(ctx, qs)
	if err != nil {
		return driver.Rows[ports.NodeMatch]{}, s.wrapCtx(ctx, err)
	}
	if few {
		return s.searchTrigramTable(ctx, q, req, tagWhere, tagArgs)
	}
	var out driver.Rows[ports.NodeMatch]
	err = s.snapshot(ctx, func(ctx context.Context, st *Store) error {
		f, err := st.newFuzzyRead(ctx, qs, q.Threshold, tagWhere, tagArgs)
		if err != nil {
			return s.wrapCtx(ctx, err)
		}
		out, err = f.page(ctx, req)
		return s.wrapCtx(ctx, err)
	})
	if err != nil {
		return driver.Rows[ports.NodeMatch]{}, err
	}
	out.Keys = o.Keys
	return out, nil
}

// fewTrigramRows reports whether the trigram index holds at most a tenth
// of Dialect.BroadFuzzy rows (maxLevelCandidates) of the queries'
// trigrams in all, each counted by a probe that stops at its share: one
// GROUP BY over them then costs less than reading a level at a time.
func (s *Store) fewTrigramRows(ctx context.Context, qs []fuzzyQuery) (bool, error) {
	var all []string
	for _, q := range qs {
		all = append(all, q.tri...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	share := cmp.Or(s.d.BroadFuzzy, maxLevelCandidates) / 10 / len(all)
	if share == 0 {
		return false, nil
	}
	keys := make([][]any, len(all))
	for i, t := range all {
		keys[i] = []any{t}
	}
	counts, err := s.countsUpTo(ctx, "bounded_entity_trigrams", "trigram = ?", keys, share)
	if err != nil {
		return false, err
	}
	for _, n := range counts {
		if n > int64(share) {
			return false, nil
		}
	}
	return true, nil
}

// snapshot calls f with a store whose statements all read one snapshot of
// the database: in a read-only transaction at Dialect.Snapshot, or, on
// SQLite, in a deferred transaction on one connection (a transaction
// begun through database/sql would take the write lock, BEGIN IMMEDIATE).
// Inside a caller's transaction or connection, f runs there.
func (s *Store) snapshot(ctx context.Context, f func(ctx context.Context, st *Store) error) error {
	db, ok := s.db.(*bun.DB)
	if !ok {
		return f(ctx, s)
	}
	if s.d.Snapshot != sql.LevelDefault {
		opts := &sql.TxOptions{Isolation: s.d.Snapshot, ReadOnly: true}
		return ContextErr(ctx, db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
			return f(ctx, &Store{db: tx, d: s.d})
		}))
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return s.wrapCtx(ctx, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return s.wrapCtx(ctx, err)
	}
	err = f(ctx, &Store{db: conn, d: s.d})
	// A read leaves nothing to keep: rolling back ends it either way, even
	// once ctx has ended.
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil && err == nil {
		err = s.wrapCtx(ctx, rerr)
	}
	return err
}

// entitiesOf returns the entities of matches, in their order.
func (s *Store) entitiesOf(ctx context.Context, matches []fuzzyMatch) ([]ports.NodeMatch, error) {
	if len(matches) == 0 {
		return nil, nil
	}
	names := make([]string, len(matches))
	for i, f := range matches {
		names[i] = f.name
	}
	rows, err := s.db.NewSelect().ColumnExpr(entityCols).TableExpr("bounded_entities AS e").Where("e.name IN (?)", bun.List(names)).Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := make(map[string]ports.Entity, len(matches))
	for rows.Next() {
		var name, typ, obs, tags string
		var updated int64
		if err := rows.Scan(nstr{&name}, nstr{&typ}, nstr{&obs}, nstr{&tags}, nint{&updated}); err != nil {
			return nil, err
		}
		e, err := entityOf(name, typ, obs, tags, updated)
		if err != nil {
			return nil, err
		}
		byName[name] = e
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]ports.NodeMatch, len(matches))
	for i, f := range matches {
		e, ok := byName[f.name]
		if !ok {
			return nil, fmt.Errorf("entity %q: its trigrams outlive it", f.name)
		}
		out[i] = ports.NodeMatch{Entity: e, Score: float64(f.score)}
	}
	return out, nil
}
