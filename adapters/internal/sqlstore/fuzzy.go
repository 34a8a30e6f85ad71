package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// Fuzzy search over the trigram table reads the names of one trigram
// count at a time (a level), in the order of the best score a name of
// that count can reach, and stops when the page holds rows that no name
// of the levels left can beat. A name of m trigrams sharing s of a
// query's n has the similarity s / (n + m - s): the levels near n reach
// the best scores, and a name reaching the threshold must share enough
// trigrams that it holds one of the query's few rarest at its level.

// maxFuzzyLevels is the most levels a fuzzy SearchNodes reads one at a
// time; a query whose names may have more trigram counts (a long query)
// counts the trigrams of every name sharing enough with one GROUP BY
// ([Store.searchTrigramTable]).
const maxFuzzyLevels = 128

// maxLevelCandidates is the most rows of the trigram index a level's
// candidates may take (Dialect.BroadFuzzy): a level whose rarest
// trigrams are found in more names counts the trigrams its names share
// with a GROUP BY over the level's rows instead.
const maxLevelCandidates = 20_000

// levelProbe is how many rows of a level a first probe counts for each
// trigram: enough to rank them, so that only the rarest are counted
// further.
const levelProbe = 256

// fuzzyQuery is one query of a fuzzy SearchNodes.
type fuzzyQuery struct {
	tri []string
	// held is how many of tri some entity's name holds; present says
	// which.
	held    int
	present []bool
}

// similarity is the similarity of a name of m trigrams sharing s of a
// query's n, as [ports.SimilarityOf] computes it.
func similarity(s, m, n int) float32 { return float32(s) / float32(n+m-s) }

// fuzzyLevel is the trigram count m of names that may reach the
// threshold, and the best and least scores at or above it that they may
// reach.
type fuzzyLevel struct {
	m      int
	ub, lb float32
}

// fuzzyMatch is a name reaching the threshold, with its score.
type fuzzyMatch struct {
	name  string
	score float32
}

// searchFuzzy is SearchNodes in Fuzzy mode over the trigram table: a
// query whose trigrams have few rows ([Store.fewTrigramRows]) or too many
// levels is counted by one GROUP BY ([Store.searchTrigramTable]); the
// others are read level by level (see above), every statement in one
// snapshot ([Store.snapshot]).
func (s *Store) searchFuzzy(ctx context.Context, q ports.NodeQuery, req bounded.Request, tagWhere []string, tagArgs []any) (bounded.Rows[ports.NodeMatch], error) {
	o := ports.NodeOrder(ports.Fuzzy)
	if req.At != nil {
		if err := o.Check(req.At.Keys); err != nil {
			return bounded.Rows[ports.NodeMatch]{}, err
		}
	}
	var qs []fuzzyQuery
	for _, query := range q.Queries {
		if tri, ok := ports.FuzzyQueryTrigrams(query, q.Threshold); ok && len(tri) > 0 {
			qs = append(qs, fuzzyQuery{tri: tri})
		}
	}
	if len(qs) == 0 {
		// No query can match: the exact total is 0.
		return bounded.Rows[ports.NodeMatch]{Count: 0, Keys: o.Keys}, nil
	}
	few, err := s.fewTrigramRows(ctx, qs)
	if err != nil {
		return bounded.Rows[ports.NodeMatch]{}, s.wrapCtx(ctx, err)
	}
	if few {
		return s.searchTrigramTable(ctx, q, req, tagWhere, tagArgs)
	}
	var out bounded.Rows[ports.NodeMatch]
	err = s.snapshot(ctx, func(ctx context.Context, st *Store) error {
		levels, err := st.fuzzyLevels(ctx, qs, q.Threshold)
		if err != nil {
			return s.wrapCtx(ctx, err)
		}
		if len(levels) > maxFuzzyLevels {
			out, err = st.searchTrigramTable(ctx, q, req, tagWhere, tagArgs)
			return err
		}
		out, err = st.fuzzyPage(ctx, qs, q.Threshold, levels, req, tagWhere, tagArgs)
		return s.wrapCtx(ctx, err)
	})
	if err != nil {
		return bounded.Rows[ports.NodeMatch]{}, err
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

// fuzzyLevels finds which of each query's trigrams some name holds, and
// returns the levels whose names may reach threshold, ascending: a name of
// m trigrams shares at most min(m, held) of a query's.
func (s *Store) fuzzyLevels(ctx context.Context, qs []fuzzyQuery, threshold float64) ([]fuzzyLevel, error) {
	var all []string
	for _, q := range qs {
		all = append(all, q.tri...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	held := make(map[string]bool, len(all))
	for chunk := range slices.Chunk(all, 200) {
		cols := make([]string, len(chunk))
		args := make([]any, len(chunk))
		for i, t := range chunk {
			cols[i] = "CASE WHEN EXISTS (SELECT 1 FROM bounded_entity_trigrams WHERE trigram = ?) THEN 1 ELSE 0 END"
			args[i] = t
		}
		found := make([]int64, len(chunk))
		dest := make([]any, len(chunk))
		for i := range found {
			dest[i] = &found[i]
		}
		if err := s.db.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
			return nil, err
		}
		for i, t := range chunk {
			held[t] = found[i] == 1
		}
	}
	byM := map[int]*fuzzyLevel{}
	for i := range qs {
		q := &qs[i]
		q.present = make([]bool, len(q.tri))
		for j, t := range q.tri {
			q.present[j] = held[t]
			if held[t] {
				q.held++
			}
		}
		n := len(q.tri)
		for m := 1; m <= ports.MaxNameTrigrams; m++ {
			best := min(m, q.held)
			if best == 0 {
				continue
			}
			ub := similarity(best, m, n)
			if float64(ub) < threshold {
				if m >= q.held {
					break // the best only falls from here
				}
				continue
			}
			lb := similarity(leastShared(best, m, n, threshold), m, n)
			if l := byM[m]; l != nil {
				l.ub, l.lb = max(l.ub, ub), min(l.lb, lb)
			} else {
				byM[m] = &fuzzyLevel{m: m, ub: ub, lb: lb}
			}
			if len(byM) > maxFuzzyLevels {
				return make([]fuzzyLevel, len(byM)), nil
			}
		}
	}
	levels := make([]fuzzyLevel, 0, len(byM))
	for _, l := range byM {
		levels = append(levels, *l)
	}
	slices.SortFunc(levels, func(a, b fuzzyLevel) int { return cmp.Compare(a.m, b.m) })
	return levels, nil
}

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

// fuzzyPage reads the levels the page needs, in the order of the scores
// they may reach (from the cursor's side, backward), and those the count
// needs, and returns the page.
func (s *Store) fuzzyPage(ctx context.Context, qs []fuzzyQuery, threshold float64, levels []fuzzyLevel, req bounded.Request,
	tagWhere []string, tagArgs []any) (bounded.Rows[ports.NodeMatch], error) {
	backward := req.Backward()
	var atScore float64
	var atName string
	if req.At != nil {
		atScore, _ = req.At.Keys[0].(float64)
		atName, _ = req.At.Keys[1].(string)
	}
	// before reports whether a row comes before b in the order read: score
	// descending then name ascending, or the reverse backward.
	before := func(a, b fuzzyMatch) bool {
		c := cmp.Compare(b.score, a.score)
		if c == 0 {
			c = strings.Compare(a.name, b.name)
		}
		return c < 0 != backward
	}
	inRange := func(f fuzzyMatch) bool {
		if req.At == nil {
			return true
		}
		c := cmp.Compare(atScore, float64(f.score))
		if c == 0 {
			c = strings.Compare(f.name, atName)
		}
		return c != 0 && c > 0 != backward
	}
	// A level may hold rows of the page unless the cursor is past all
	// the scores it may reach.
	mayHold := func(l fuzzyLevel) bool {
		switch {
		case req.At == nil:
			return true
		case backward:
			return float64(l.ub) >= atScore
		default:
			return float64(l.lb) <= atScore
		}
	}
	order := slices.Clone(levels)
	if backward {
		slices.SortStableFunc(order, func(a, b fuzzyLevel) int { return cmp.Compare(a.lb, b.lb) })
	} else {
		slices.SortStableFunc(order, func(a, b fuzzyLevel) int { return cmp.Compare(b.ub, a.ub) })
	}
	want := 0
	switch req.Count {
	case bounded.CountExact:
		want = math.MaxInt
	case bounded.CountCapped:
		want = req.CountCap + 1
	}
	rows := pageRows(req)
	var page []fuzzyMatch
	total, pageDone := 0, false
	for i, l := range order {
		readPage := !pageDone && mayHold(l)
		if !readPage && total >= want {
			if pageDone {
				break
			}
			continue
		}
		matches, err := s.fuzzyLevelMatches(ctx, qs, threshold, l.m, tagWhere, tagArgs)
		if err != nil {
			return bounded.Rows[ports.NodeMatch]{}, err
		}
		total += len(matches)
		for _, f := range matches {
			if inRange(f) {
				page = append(page, f)
			}
		}
		if pageDone {
			continue
		}
		// The page is done when it holds rows that every row of the
		// levels left comes after: scores above the best those levels
		// reach (below the least, backward).
		pageDone = true
		for _, next := range order[i+1:] {
			if !mayHold(next) {
				continue
			}
			ahead := 0
			for _, f := range page {
				if backward && float64(f.score) < float64(next.lb) || !backward && float64(f.score) > float64(next.ub) {
					ahead++
				}
			}
			pageDone = ahead >= rows
			break
		}
	}
	slices.SortFunc(page, func(a, b fuzzyMatch) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	if req.At == nil {
		page = page[min(req.Offset, len(page)):]
	}
	page = page[:min(len(page), req.Limit+1)]
	more := len(page) > req.Limit
	if more {
		page = page[:req.Limit]
	}
	items, err := s.entitiesOf(ctx, page)
	if err != nil {
		return bounded.Rows[ports.NodeMatch]{}, err
	}
	if backward {
		slices.Reverse(items)
	}
	count := 0
	if req.Count != bounded.CountNone {
		count = min(total, want)
	}
	return bounded.Rows[ports.NodeMatch]{Items: items, More: more, Count: count}, nil
}

// fuzzyLevelMatches returns the names of m trigrams reaching threshold
// for some query, with the tags of tagWhere: read through the index of
// each query's rarest trigrams at the level (a name sharing s of n holds
// one of any n-s+1) and scored in Go, or, when those are found in more
// than Dialect.BroadFuzzy rows, counted by a GROUP BY over the level's
// rows of every trigram.
func (s *Store) fuzzyLevelMatches(ctx context.Context, qs []fuzzyQuery, threshold float64, m int, tagWhere []string, tagArgs []any) ([]fuzzyMatch, error) {
	most := cmp.Or(s.d.BroadFuzzy, maxLevelCandidates)
	tags, tagArgs := strings.ReplaceAll(strings.Join(tagWhere, " AND "), "e.name", "t.name"), slices.Clip(tagArgs)
	if tags != "" {
		tags = " AND " + tags
	}
	type part struct {
		q     *fuzzyQuery
		held  []string
		least int
	}
	var parts []part
	var candidates []string
	var cost int64
	for i := range qs {
		q := &qs[i]
		n := len(q.tri)
		best := min(m, q.held)
		if best == 0 || float64(similarity(best, m, n)) < threshold {
			continue
		}
		least := leastShared(best, m, n, threshold)
		// The held trigrams by their count at the level; the others
		// count 0 and come first.
		var tri []string
		for j, t := range q.tri {
			if q.present[j] {
				tri = append(tri, t)
			}
		}
		// A prefix of k held trigrams, the absent ones being free.
		k := max(n-least+1-(n-len(tri)), 0)
		rarest, counts, err := s.rarest(ctx, tri, m, k, most)
		if err != nil {
			return nil, err
		}
		for _, c := range counts {
			cost += c
		}
		parts = append(parts, part{q: q, held: tri, least: least})
		candidates = append(candidates, rarest...)
	}
	best := map[string]float32{}
	if cost <= int64(most) {
		slices.Sort(candidates)
		candidates = slices.Compact(candidates)
		if len(candidates) == 0 || cost == 0 {
			// No name of the level holds one of the rarest: none
			// reaches the threshold.
			return nil, nil
		}
		var names []string
		err := s.db.NewSelect().ColumnExpr("DISTINCT t.name").TableExpr("bounded_entity_trigrams AS t").
			Where("t.trigram IN (?) AND t.trigram_count = ?"+tags, append([]any{bun.List(candidates), m}, tagArgs...)...).
			Scan(ctx, &names)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			tri := ports.Trigrams(name)
			var score float32
			for _, q := range qs {
				score = max(score, ports.SimilarityOf(q.tri, tri))
			}
			best[name] = score
		}
	} else {
		for _, p := range parts {
			rows, err := s.db.NewSelect().ColumnExpr("t.name, count(*)").TableExpr("bounded_entity_trigrams AS t").
				Where("t.trigram IN (?) AND t.trigram_count = ?"+tags, append([]any{bun.List(p.held), m}, tagArgs...)...).
				GroupExpr("t.name").Having("count(*) >= ?", p.least).Rows(ctx)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var name string
				var shared int
				if err := rows.Scan(&name, &shared); err != nil {
					rows.Close()
					return nil, err
				}
				best[name] = max(best[name], similarity(shared, m, len(p.q.tri)))
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return nil, err
			}
		}
	}
	var out []fuzzyMatch
	for name, score := range best {
		if float64(score) >= threshold {
			out = append(out, fuzzyMatch{name: name, score: score})
		}
	}
	return out, nil
}

// rarest returns k of tri that the fewest names of m trigrams hold, and
// how many hold each, counted up to most+1. Each is counted up to
// levelProbe+1 first (most/8+1, if less); while fewer than k are counted
// exactly, those past the limit are counted again up to eight times as
// many, and up to most at last.
func (s *Store) rarest(ctx context.Context, tri []string, m, k, most int) ([]string, []int64, error) {
	counts := make([]int64, len(tri))
	probe := func(idx []int, limit int) error {
		keys := make([][]any, len(idx))
		for i, j := range idx {
			keys[i] = []any{tri[j], m}
		}
		got, err := s.countsUpTo(ctx, "bounded_entity_trigrams", "trigram = ? AND trigram_count = ?", keys, limit)
		for i, j := range idx[:len(got)] {
			counts[j] = got[i]
		}
		return err
	}
	if k == 0 {
		return nil, nil, nil
	}
	idx := make([]int, len(tri))
	for j := range idx {
		idx[j] = j
	}
	past := idx // counted past the limit
	for limit := min(levelProbe, max(most/8, 1)); ; limit *= 8 {
		limit = min(limit, most)
		if err := probe(past, limit); err != nil {
			return nil, nil, err
		}
		var next []int
		for _, j := range past {
			if counts[j] > int64(limit) {
				next = append(next, j)
			}
		}
		past = next
		if len(tri)-len(past) >= k || len(past) == 0 || limit == most {
			break
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
	out := make([]string, k)
	outCounts := make([]int64, k)
	for i, j := range idx[:k] {
		out[i], outCounts[i] = tri[j], counts[j]
	}
	return out, outCounts, nil
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
