package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// fuzzyCell is what a fuzzy search knows of one query's trigrams at one
// level: those some name of the level holds, the rarest first.
type fuzzyCell struct {
	q *fuzzyQuery
	m int
	// tri are the held trigrams, ordered by sizes, how many names of the
	// level hold each (read from bounded_trigram_counts, or counted up
	// to the search's most+1); read are those whose names were read.
	tri   []string
	sizes []int64
	read  int
	// depth is how many places of the level's names were read for tri
	// (see [trigramPlaces]); places are how many rows of tri each place
	// holds, counted up to placeLimits+1.
	depth       int
	places      []int64
	placeLimits []int64
}

// bound is the best score a name of the cell's level may reach with the
// cell's query if it holds none of the trigrams read, and none of tri at
// a place under depth: it shares at most m-depth of its m trigrams.
func (c *fuzzyCell) bound() float32 {
	s := min(c.m-c.depth, len(c.tri)-c.read)
	if s <= 0 {
		return 0
	}
	return similarity(s, c.m, len(c.q.tri))
}

// fuzzyRead reads the matches of a fuzzy search in the order of the best
// score the names not read yet may reach: every name it has read is
// scored as memrepo scores it, and every other name scores at most the
// best of its level's cells' bounds.
type fuzzyRead struct {
	st        *Store
	qs        []fuzzyQuery
	threshold float64
	tags      string
	tagArgs   []any
	sc        *scorer
	// most is the most names one read may take: a broader read counts
	// its level at once with a GROUP BY (Dialect.BroadFuzzy).
	most  int
	cells []*fuzzyCell
	// done are the levels counted at once: every match there is known.
	done    map[int]bool
	seen    map[string]bool
	matches []fuzzyMatch
}

// newFuzzyRead finds the levels each query's names may reach the
// threshold at, and which trigrams of the query names of those levels
// hold ([Store.trigramLevels]).
func (s *Store) newFuzzyRead(ctx context.Context, qs []fuzzyQuery, threshold float64, tagWhere []string, tagArgs []any) (*fuzzyRead, error) {
	f := &fuzzyRead{st: s, qs: qs, threshold: threshold, most: cmp.Or(s.d.BroadFuzzy, maxLevelCandidates),
		done: map[int]bool{}, seen: map[string]bool{}}
	f.tags, f.tagArgs = strings.ReplaceAll(strings.Join(tagWhere, " AND "), "e.name", "t.name"), slices.Clip(tagArgs)
	if f.tags != "" {
		f.tags = " AND " + f.tags
	}
	tri := make([][]string, len(qs))
	spans := map[string][2]int{}
	for j, q := range qs {
		tri[j] = q.tri
		lo, hi := levelSpan(len(q.tri), threshold)
		for _, t := range q.tri {
			if sp, ok := spans[t]; ok {
				spans[t] = [2]int{min(sp[0], lo), max(sp[1], hi)}
			} else {
				spans[t] = [2]int{lo, hi}
			}
		}
	}
	f.sc = newScorer(tri)
	levels, err := s.trigramLevels(ctx, spans)
	if err != nil {
		return nil, err
	}
	for j := range qs {
		q := &qs[j]
		byM := map[int][]string{}
		for _, t := range q.tri {
			for _, m := range levels[t] {
				byM[m] = append(byM[m], t)
			}
		}
		for m, held := range byM {
			c := &fuzzyCell{q: q, m: m, tri: held}
			if float64(c.bound()) >= threshold {
				f.cells = append(f.cells, c)
			}
		}
	}
	slices.SortFunc(f.cells, func(a, b *fuzzyCell) int { return cmp.Compare(a.m, b.m) })
	return f, f.size(ctx, slices.Collect(maps.Keys(spans)))
}

// size reads how many names of its level hold each trigram of each cell
// from bounded_trigram_counts, counts those it does not hold up to
// f.most+1, and orders each cell's trigrams, the rarest first.
func (f *fuzzyRead) size(ctx context.Context, all []string) error {
	type pair struct {
		t string
		m int
	}
	sizes := map[pair]int64{}
	for chunk := range slices.Chunk(all, 500) {
		err := f.st.query(ctx, "SELECT trigram, trigram_count, names FROM bounded_trigram_counts WHERE trigram IN (?)", []any{bun.List(chunk)},
			func(rows *sql.Rows) error {
				var t string
				var m, n int64
				if err := rows.Scan(nstr{&t}, &m, &n); err != nil {
					return err
				}
				sizes[pair{t, int(m)}] = n
				return nil
			})
		if err != nil {
			return err
		}
	}
	var keys [][]any
	var missing []pair
	for _, c := range f.cells {
		for _, t := range c.tri {
			if _, ok := sizes[pair{t, c.m}]; !ok {
				sizes[pair{t, c.m}] = -1
				keys = append(keys, []any{t, c.m})
				missing = append(missing, pair{t, c.m})
			}
		}
	}
	if len(keys) > 0 {
		got, err := f.st.countsUpTo(ctx, "bounded_entity_trigrams", "trigram = ? AND trigram_count = ?", keys, f.most)
		if err != nil {
			return err
		}
		for i, p := range missing {
			sizes[p] = got[i]
		}
	}
	for _, c := range f.cells {
		slices.SortStableFunc(c.tri, func(a, b string) int { return cmp.Compare(sizes[pair{a, c.m}], sizes[pair{b, c.m}]) })
		c.sizes = make([]int64, len(c.tri))
		for i, t := range c.tri {
			c.sizes[i] = sizes[pair{t, c.m}]
		}
	}
	return nil
}

// levelSpan returns the least and the most trigrams a name may have to
// reach threshold with a query of n trigrams: it shares at most
// min(m, n) of them.
func levelSpan(n int, threshold float64) (lo, hi int) {
	reaches := func(m int) bool { return float64(similarity(min(m, n), m, n)) >= threshold }
	lo, hi = n, n
	for lo > 1 && reaches(lo-1) {
		lo--
	}
	for hi < fuzzy.MaxNameTrigrams && reaches(hi+1) {
		hi++
	}
	return lo, hi
}

// trigramLevels returns the levels, within each trigram's span, at which
// some name holds it: the trigram index is read from one level to the
// next, one lookup each (a loose index scan, as a recursive CTE).
func (s *Store) trigramLevels(ctx context.Context, spans map[string][2]int) (map[string][]int, error) {
	all := make([]string, 0, len(spans))
	for t := range spans {
		all = append(all, t)
	}
	slices.Sort(all)
	out := map[string][]int{}
	for chunk := range slices.Chunk(all, 100) {
		var first []string
		var args []any
		for i, t := range chunk {
			first = append(first, fmt.Sprintf("SELECT * FROM (SELECT t.trigram AS trigram, t.trigram_count AS m, ? AS hi"+
				" FROM bounded_entity_trigrams t WHERE t.trigram = ? AND t.trigram_count >= ? ORDER BY t.trigram_count LIMIT 1) AS a%d", i))
			args = append(args, spans[t][1], t, spans[t][0])
		}
		query := "WITH RECURSIVE lv (trigram, m, hi) AS (" + strings.Join(first, " UNION ALL ") +
			" UNION ALL SELECT lv.trigram, (SELECT min(t.trigram_count) FROM bounded_entity_trigrams t" +
			" WHERE t.trigram = lv.trigram AND t.trigram_count > lv.m), lv.hi FROM lv WHERE lv.m < lv.hi)" +
			" SELECT trigram, m FROM lv WHERE m IS NOT NULL AND m <= hi"
		err := s.query(ctx, query, args, func(rows *sql.Rows) error {
			var t string
			var m int64
			if err := rows.Scan(nstr{&t}, &m); err != nil {
				return err
			}
			out[t] = append(out[t], int(m))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bound is the best score a name not read yet may reach, and the cell
// whose names may reach it; nil when no name left may reach the
// threshold.
func (f *fuzzyRead) bound() (float32, *fuzzyCell) {
	var best float32
	var at *fuzzyCell
	for _, c := range f.cells {
		if f.done[c.m] {
			continue
		}
		if b := c.bound(); b > best {
			best, at = b, c
		}
	}
	if float64(best) < f.threshold {
		return best, nil
	}
	return best, at
}

// step lowers c's bound b by one, the cheaper way: by reading the next
// place of the level's names, up to place m-b, or the names holding
// c's next trigram, up to b-1 left ([fuzzyCell.bound]). A read of more
// than f.most names counts the whole level at once instead.
func (f *fuzzyRead) step(ctx context.Context, c *fuzzyCell) error {
	b := min(c.m-c.depth, len(c.tri)-c.read)
	var byList int64
	for _, n := range c.sizes[c.read : len(c.tri)-b+1] {
		byList += n
	}
	if to := c.m - b + 1; to <= trigramPlaces {
		cheaper, err := f.placesWithin(ctx, c, to, min(byList, int64(f.most)))
		if err != nil {
			return err
		}
		if cheaper {
			// The index holds the first places only: SQLite reads it
			// for a query that names its condition.
			if _, err := f.readNames(ctx, placeCond, []any{bun.List(c.tri), c.m, c.depth}); err != nil {
				return err
			}
			c.depth++
			return nil
		}
	}
	if c.sizes[c.read] > int64(f.most) {
		return f.countLevel(ctx, c.m)
	}
	if _, err := f.readNames(ctx, "t.trigram = ? AND t.trigram_count = ?", []any{c.tri[c.read], c.m}); err != nil {
		return err
	}
	c.read++
	return nil
}

// placeCond selects the rows of a level's trigrams at one place.
var placeCond = fmt.Sprintf("t.trigram IN (?) AND t.trigram_count = ? AND t.pos = ? AND t.pos < %d", trigramPlaces)

// placesWithin reports whether c's rows at the places from its depth to
// to are at most budget. Each place is counted up to budget+1, or
// reused if counted before as exactly as needed.
func (f *fuzzyRead) placesWithin(ctx context.Context, c *fuzzyCell, to int, budget int64) (bool, error) {
	for len(c.places) < to {
		c.places = append(c.places, -1)
		c.placeLimits = append(c.placeLimits, -1)
	}
	var keys [][]any
	var idx []int
	for d := c.depth; d < to; d++ {
		if c.places[d] < 0 || c.places[d] > c.placeLimits[d] && c.placeLimits[d] < budget {
			keys = append(keys, []any{bun.List(c.tri), c.m, d})
			idx = append(idx, d)
		}
	}
	if len(keys) > 0 {
		got, err := f.st.countsUpTo(ctx, "bounded_entity_trigrams t", placeCond, keys, int(budget))
		if err != nil {
			return false, err
		}
		for i, d := range idx {
			c.places[d], c.placeLimits[d] = got[i], budget
		}
	}
	var sum int64
	for _, n := range c.places[c.depth:to] {
		sum += n
	}
	return sum <= budget, nil
}

// readNames scores the names of the trigram table's rows t where cond
// holds, up to f.most+1 of them, and returns how many it read.
func (f *fuzzyRead) readNames(ctx context.Context, cond string, args []any) (int, error) {
	n := 0
	err := f.st.query(ctx, "SELECT t.name FROM bounded_entity_trigrams t WHERE "+cond+f.tags+" LIMIT ?",
		append(append(args, f.tagArgs...), f.most+1), func(rows *sql.Rows) error {
			var name string
			if err := rows.Scan(nstr{&name}); err != nil {
				return err
			}
			n++
			if f.seen[name] {
				return nil
			}
			f.seen[name] = true
			if score, _ := f.sc.score(name); float64(score) >= f.threshold {
				f.matches = append(f.matches, fuzzyMatch{name: name, score: score})
			}
			return nil
		})
	return n, err
}

// countLevel finds every match of level m with one GROUP BY per query
// over the level's rows of the query's held trigrams.
func (f *fuzzyRead) countLevel(ctx context.Context, m int) error {
	best := map[string]float32{}
	for _, c := range f.cells {
		if c.m != m || float64(similarity(min(m, len(c.tri)), m, len(c.q.tri))) < f.threshold {
			continue
		}
		n := len(c.q.tri)
		least := leastShared(min(m, len(c.tri)), m, n, f.threshold)
		err := f.st.query(ctx, "SELECT t.name, count(*) FROM bounded_entity_trigrams t WHERE t.trigram IN (?) AND t.trigram_count = ?"+f.tags+
			" GROUP BY t.name HAVING count(*) >= ?", append(append([]any{bun.List(c.tri), m}, f.tagArgs...), least), func(rows *sql.Rows) error {
			var name string
			var shared int
			if err := rows.Scan(nstr{&name}, &shared); err != nil {
				return err
			}
			best[name] = max(best[name], similarity(shared, m, n))
			return nil
		})
		if err != nil {
			return err
		}
	}
	f.done[m] = true
	for name, score := range best {
		if !f.seen[name] && float64(score) >= f.threshold {
			f.seen[name] = true
			f.matches = append(f.matches, fuzzyMatch{name: name, score: score})
		}
	}
	return nil
}

// page reads what req needs and returns its page: the rows of the page,
// from the cursor on (or from the start, skipping Offset), are those of
// the matches read that no name left can reach, or every match once no
// name left can reach the threshold; the count needs as many matches.
func (f *fuzzyRead) page(ctx context.Context, req driver.Request) (driver.Rows[ports.NodeMatch], error) {
	backward := req.Backward()
	var atScore float64
	var atName string
	if req.At != nil {
		atScore, _ = req.At.Keys[0].(float64)
		atName, _ = req.At.Keys[1].(string)
	}
	// before reports whether a comes before b in the order read: score
	// descending then name ascending, or the reverse backward.
	before := func(a, b fuzzyMatch) int {
		c := cmp.Compare(b.score, a.score)
		if c == 0 {
			c = strings.Compare(a.name, b.name)
		}
		if backward {
			return -c
		}
		return c
	}
	inRange := func(m fuzzyMatch) bool {
		if req.At == nil {
			return true
		}
		c := cmp.Compare(atScore, float64(m.score))
		if c == 0 {
			c = strings.Compare(m.name, atName)
		}
		return c != 0 && c > 0 != backward
	}
	want := 0
	switch req.Count {
	case bounded.CountExact:
		want = math.MaxInt
	case bounded.CountCapped:
		want = req.CountCap + 1
	}
	rows := pageRows(req)
	// ready reports whether the page is known when no name left scores
	// over u: it holds rows that score more (forward), or the cursor
	// does (backward).
	ready := func(u float32) bool {
		if backward {
			return float64(u) < atScore
		}
		ahead := 0
		for _, m := range f.matches {
			if m.score > u && inRange(m) {
				ahead++
			}
		}
		return ahead >= rows
	}
	for {
		u, c := f.bound()
		if c == nil || ready(u) && len(f.matches) >= want {
			break
		}
		if err := f.step(ctx, c); err != nil {
			return driver.Rows[ports.NodeMatch]{}, err
		}
	}
	var page []fuzzyMatch
	for _, m := range f.matches {
		if inRange(m) {
			page = append(page, m)
		}
	}
	slices.SortFunc(page, before)
	if req.At == nil {
		page = page[min(req.Offset, len(page)):]
	}
	page = page[:min(len(page), req.Limit+1)]
	more := len(page) > req.Limit
	if more {
		page = page[:req.Limit]
	}
	items, err := f.st.entitiesOf(ctx, page)
	if err != nil {
		return driver.Rows[ports.NodeMatch]{}, err
	}
	if backward {
		slices.Reverse(items)
	}
	count := 0
	if req.Count != bounded.CountNone {
		count = min(len(f.matches), want)
	}
	return driver.Rows[ports.NodeMatch]{Items: items, More: more, Count: count}, nil
}
