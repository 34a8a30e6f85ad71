package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// PutEntity stores e.Normalize(), replacing any entity with the same name,
// in one transaction. Under [FuzzyTrigramTable] it also records the name's
// trigrams ([ports.Trigrams]). See [ports.Knowledge].
func (s *Store) PutEntity(ctx context.Context, e ports.Entity) error {
	e, err := e.Normalize()
	if err != nil {
		return err
	}
	if err := ports.ValidateTime("updatedAt", e.UpdatedAt); err != nil {
		return fmt.Errorf("entity %q: %w", e.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	trigrams := ports.Trigrams(e.Name)
	return s.wrap(s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		if err := s.upsert(ctx, tx, "bounded_entities",
			[]string{"name", "entity_type", "name_fold", "type_fold", "observations", "tags", "updated_at", "trigram_count"},
			[]any{e.Name, e.Type, ports.Fold(e.Name), ports.Fold(e.Type), encodeList(e.Observations), encodeList(e.Tags), micros(e.UpdatedAt), len(trigrams)},
		); err != nil {
			return err
		}
		for _, q := range []string{
			"DELETE FROM bounded_entity_observations WHERE name = ?",
			"DELETE FROM bounded_entity_tags WHERE name = ?",
		} {
			if _, err := tx.ExecContext(ctx, q, e.Name); err != nil {
				return err
			}
		}
		obs := make([][]any, len(e.Observations))
		for i, o := range e.Observations {
			obs[i] = []any{e.Name, i, ports.Fold(o)}
		}
		if err := insertRows(ctx, tx, "bounded_entity_observations", []string{"name", "pos", "fold"}, obs, ""); err != nil {
			return err
		}
		tags := make([][]any, len(e.Tags))
		for i, t := range e.Tags {
			tags[i] = []any{e.Name, t}
		}
		if err := insertRows(ctx, tx, "bounded_entity_tags", []string{"name", "tag"}, tags, ""); err != nil {
			return err
		}
		if s.d.Fuzzy != FuzzyTrigramTable {
			return nil
		}
		// The trigrams depend on the name alone, which is the key: a
		// replaced entity keeps its rows.
		return s.putTrigrams(ctx, tx, e.Name, trigrams)
	}))
}

// entityCols are the columns of an entity in page queries over entities e.
const entityCols = "e.name AS name, e.entity_type AS entity_type, e.observations AS observations, e.tags AS tags, e.updated_at AS updated_at"

// SearchNodes pages the entities matching q, computed in SQL: Exact mode
// with a substring test over folded copies (through the dialect's
// knowledge index where it has one), Fuzzy mode with the dialect's
// trigram similarity. See [ports.Knowledge].
func (s *Store) SearchNodes(ctx context.Context, q ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
	scope := q.Scope()
	return fetch(ctx, s, p, ports.SearchNodesLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NodeMatch], error) {
		q, err := q.Normalize()
		if err != nil {
			return driver.Rows[ports.NodeMatch]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NodeMatch]{}, err
		}
		var tagWhere []string
		var tagArgs []any
		for _, t := range q.Tags {
			tagWhere = append(tagWhere, "e.name IN (SELECT g.name FROM bounded_entity_tags g WHERE g.tag = ?)")
			tagArgs = append(tagArgs, t)
		}
		switch {
		case q.Mode == ports.Exact:
			return s.searchExact(ctx, q, req, tagWhere, tagArgs)
		case s.d.Fuzzy == FuzzyPgTrgm:
			return s.searchPgTrgm(ctx, q, req, tagWhere, tagArgs)
		default:
			return s.searchFuzzy(ctx, q, req, tagWhere, tagArgs)
		}
	})
}

// searchExact is SearchNodes in Exact mode: the shared test
// ([Store.exactMatch]) over the candidates of the dialect's knowledge
// index when [Store.useKnowledgeIndex] says so, over every entity
// otherwise (a query under three characters, which no trigram index can
// serve; a broad query under FTS5; a dialect without an index, MariaDB).
// Either way the results, their order (UpdatedAt descending, then name)
// and the totals are the same.
func (s *Store) searchExact(ctx context.Context, q ports.NodeQuery, req driver.Request, tagWhere []string, tagArgs []any) (driver.Rows[ports.NodeMatch], error) {
	qs := make([]string, len(q.Queries))
	for i, query := range q.Queries {
		qs[i] = ports.Fold(query)
	}
	indexed, err := s.useKnowledgeIndex(ctx, qs, req.Count == bounded.CountExact)
	if err != nil {
		return driver.Rows[ports.NodeMatch]{}, err
	}
	switch {
	case indexed && s.d.NoteIndex == NoteIndexFTS5:
		return s.nodeMatches(ctx, s.searchExactFTS5(qs, tagWhere, tagArgs), req, ports.Exact)
	case indexed && s.d.NoteIndex == NoteIndexTrigramGIN:
		return s.nodeMatches(ctx, s.searchExactGIN(qs, tagWhere, tagArgs), req, ports.Exact)
	}
	match, args := s.exactMatch(qs, "bounded_entity_observations o")
	return s.nodeMatches(ctx, s.exactPage(match, args, tagWhere, tagArgs), req, ports.Exact)
}

// float32Round is a SQL expression rounding the double x to the nearest
// float32 value (Veltkamp's splitting: c - (c - x) with c = x * (2^29+1)
// keeps the 24 high bits of x's 53-bit significand, rounded to nearest).
// The similarities rounded here are ratios of small integers, which never
// lie on or next to a tie between two float32 values, so the result is
// exactly float32(shared) / float32(total) as pg_trgm and
// [ports.SimilarityOf] compute it.
const float32Round = "(%[1]s * 536870913.0 - (%[1]s * 536870913.0 - %[1]s))"

// float32Below returns a bound b such that, for every float32 value s,
// float64(s) >= t exactly when float64(s) > b: the midpoint between the
// least float32 value at or above t and the float32 value below it. It
// lies half a float32 step away from every float32 value, so comparing
// with it is exact even if the engine parses the decimal literal bun
// writes for it a few units of the last place off.
func float32Below(t float64) float64 {
	up := float32(t)
	if float64(up) < t {
		up = math.Nextafter32(up, 2)
	}
	return (float64(math.Nextafter32(up, 0)) + float64(up)) / 2
}

// searchTrigramTable is SearchNodes in Fuzzy mode over the trigram side
// table: for each query, the trigrams an entity shares with it are counted
// by a GROUP BY on the trigram index; the similarity is
// shared / (n_entity + n_query - shared), its best over the queries kept,
// rounded to float32 in SQL, compared with the threshold and ordered there.
func (s *Store) searchTrigramTable(ctx context.Context, q ports.NodeQuery, req driver.Request, tagWhere []string, tagArgs []any) (driver.Rows[ports.NodeMatch], error) {
	var parts []string
	var args []any
	for _, query := range q.Queries {
		tri, ok := fuzzy.QueryTrigrams(query, q.Threshold)
		if !ok || len(tri) == 0 {
			// Similarity 0, or too many trigrams to reach the
			// threshold with any name: the query matches nothing.
			continue
		}
		// Names sharing fewer trigrams than fuzzy.MinShared cannot
		// reach the threshold: only the others are joined to their rows.
		parts = append(parts, `SELECT x.name, CAST(x.shared AS `+s.d.double()+`) / (e.trigram_count + ? - x.shared) AS sim
			FROM (SELECT t.name, count(*) AS shared FROM bounded_entity_trigrams t WHERE t.trigram IN (?) GROUP BY t.name HAVING count(*) >= ?) AS x
			`+s.d.joinInOrder()+` bounded_entities e ON e.name = x.name`)
		args = append(args, len(tri), bun.List(tri), fuzzy.MinShared(len(tri), q.Threshold))
	}
	if len(parts) == 0 {
		// No query can match: the exact total is 0.
		return driver.Rows[ports.NodeMatch]{Count: 0, Keys: ports.NodeOrder(ports.Fuzzy).Keys}, nil
	}
	where := "m.score > ?"
	for _, w := range tagWhere {
		where += " AND " + w
	}
	whereArgs := append([]any{float32Below(q.Threshold)}, tagArgs...)
	matched := func() *bun.SelectQuery {
		return s.from("matched AS m", where, whereArgs...).Join(s.d.joinInOrder() + " bounded_entities AS e ON e.name = m.name")
	}
	pq := paged{
		with: []cte{
			{"sims", s.db.NewRaw(strings.Join(parts, "\nUNION ALL\n"), args...)},
			{"best", s.db.NewRaw("SELECT name, max(sim) AS sim FROM sims GROUP BY name")},
			{"matched", s.db.NewRaw("SELECT name, " + fmt.Sprintf(float32Round, "sim") + " AS score FROM best")},
		},
		count: matched(),
		page: func(c clauses) *bun.SelectQuery {
			return c.apply(matched().ColumnExpr(entityCols + ", m.score AS score"))
		},
		keys: []key{{inner: "m.score", outer: "p.score", desc: true, num: true}, {inner: "e.name", outer: "p.name"}},
	}
	return s.nodeMatches(ctx, pq, req, ports.Fuzzy)
}

// searchPgTrgm is SearchNodes in Fuzzy mode with pg_trgm: the % operator
// (served by the GIN trigram index) with pg_trgm.similarity_threshold set
// to q.Threshold for this transaction only, and similarity() as the score.
// pg_trgm compares its float4 similarity with the double threshold, as
// [ports.MatchMode] defines.
func (s *Store) searchPgTrgm(ctx context.Context, q ports.NodeQuery, req driver.Request, tagWhere []string, tagArgs []any) (driver.Rows[ports.NodeMatch], error) {
	var ops, sims []string
	var opArgs, simArgs []any
	for _, query := range q.Queries {
		ops = append(ops, "e.name % ?")
		opArgs = append(opArgs, query)
		sims = append(sims, "similarity(e.name, ?)")
		simArgs = append(simArgs, query)
	}
	score := "similarity(e.name, ?)"
	if len(sims) > 1 {
		score = "greatest(" + strings.Join(sims, ", ") + ")"
	}
	score = fmt.Sprintf(s.d.Float8, score)
	where := "(" + strings.Join(ops, " OR ") + ")"
	for _, w := range tagWhere {
		where += " AND " + w
	}
	whereArgs := append(opArgs, tagArgs...)
	pq := paged{
		with:  []cte{{"matched", s.from("bounded_entities AS e", where, whereArgs...).ColumnExpr(entityCols+", "+score+" AS score", simArgs...)}},
		count: s.from("matched", ""),
		page: func(c clauses) *bun.SelectQuery {
			return c.apply(s.from("matched", "").ColumnExpr("*"))
		},
		keys: []key{{inner: "score", outer: "p.score", desc: true, num: true}, {inner: "name", outer: "p.name"}},
	}
	threshold := strconv.FormatFloat(q.Threshold, 'g', -1, 64)
	var page driver.Rows[ports.NodeMatch]
	err := s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		var old sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT current_setting('pg_trgm.similarity_threshold', true)").Scan(&old); err != nil {
			return s.wrap(err)
		}
		if _, err := tx.ExecContext(ctx, "SELECT set_config('pg_trgm.similarity_threshold', ?, true)", threshold); err != nil {
			return s.wrap(err)
		}
		var err error
		page, err = (&Store{db: tx, d: s.d}).nodeMatches(ctx, pq, req, ports.Fuzzy)
		if err != nil {
			return err
		}
		// Inside a caller's transaction the setting would outlive this
		// call: put the old value back.
		if old.Valid && old.String != "" {
			if _, err := tx.ExecContext(ctx, "SELECT set_config('pg_trgm.similarity_threshold', ?, true)", old.String); err != nil {
				return s.wrap(err)
			}
		}
		return nil
	})
	return page, err
}

// nodeMatches runs a paged query over entityCols plus a score column,
// ordered as SearchNodes orders mode's results.
func (s *Store) nodeMatches(ctx context.Context, q paged, req driver.Request, mode ports.MatchMode) (driver.Rows[ports.NodeMatch], error) {
	page, _, err := collect(ctx, s, q, req, ports.NodeOrder(mode), func(counts []any, rows *sql.Rows) (ports.NodeMatch, bool, error) {
		var name, typ, obs, tags string
		var updated int64
		var score float64
		if err := rows.Scan(append(counts, nstr{&name}, nstr{&typ}, nstr{&obs}, nstr{&tags}, nint{&updated}, nfloat{&score})...); err != nil {
			return ports.NodeMatch{}, false, err
		}
		if name == "" {
			return ports.NodeMatch{}, false, nil
		}
		e, err := entityOf(name, typ, obs, tags, updated)
		return ports.NodeMatch{Entity: e, Score: float64(float32(score))}, err == nil, err
	})
	return page, err
}

// entityOf is the entity of a row's entityCols.
func entityOf(name, typ, obs, tags string, updated int64) (ports.Entity, error) {
	e := ports.Entity{Name: name, Type: typ, UpdatedAt: fromMicros(updated)}
	var err error
	if e.Observations, err = decodeList(obs); err != nil {
		return ports.Entity{}, err
	}
	if e.Tags, err = decodeList(tags); err != nil {
		return ports.Entity{}, err
	}
	return e, nil
}
