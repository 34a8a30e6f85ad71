package benchutil

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// FuzzyStores are the stores [RunFuzzy] compares, all on one database.
type FuzzyStores struct {
	// Store is the adapter as it is configured by default.
	Store ports.Knowledge
	// PgTrgm, on Postgres, searches with pg_trgm's % operator over a GIN
	// index and ranks by similarity(); nil elsewhere.
	PgTrgm ports.Knowledge
}

// FuzzyOpener opens the database of [RunFuzzy] for rows entities, which
// may hold them already (see [KeepFixtures]) or be empty, and returns a
// function opening its stores once it holds them.
type FuzzyOpener func(b *testing.B, rows int) (*bun.DB, func(b *testing.B) FuzzyStores)

// KeepFixtures reports whether BOUNDED_BENCH_KEEP=1 asks benchmarks to
// keep their loaded databases for the next run (a file in the temporary
// directory, a Postgres schema, named after the data set's size).
func KeepFixtures() bool { return os.Getenv("BOUNDED_BENCH_KEEP") == "1" }

// LoadEntities bulk-loads the n entities [Load] writes, with their
// trigrams ([LoadTrigrams]), and nothing else, then analyzes the tables.
func LoadEntities(ctx context.Context, db *bun.DB, n int) error {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ins := newInserter(ctx, tx)
		for i := range n {
			name := entityName(i)
			ins.add("bounded_entities", "name, entity_type, name_fold, type_fold, observations, tags, updated_at, trigram_count",
				name, "concept", ports.Fold(name), "concept", "", "", base+int64((i*7919+13)%n)*1_000_000, len(ports.Trigrams(name)))
			if ins.err != nil {
				return ins.err
			}
		}
		ins.flushAll()
		return ins.err
	})
	if err != nil {
		return err
	}
	if err := LoadTrigrams(ctx, db, n); err != nil {
		return err
	}
	analyze := "ANALYZE"
	if db.Dialect().Name() == dialect.PG {
		analyze = "VACUUM ANALYZE bounded_entities, bounded_entity_trigrams, bounded_trigram_counts"
	}
	_, err = db.ExecContext(ctx, analyze)
	return err
}

// FuzzyCase is a query of the fuzzy benchmark.
type FuzzyCase struct {
	Name  string
	Query ports.NodeQuery
}

// fuzzyWords are the words of the names [entityName] makes.
var fuzzyWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}

// FuzzyAdversarial are queries whose trigrams are all common, or that
// match no name: at threshold 0.3 over the names [entityName] makes.
func FuzzyAdversarial() []FuzzyCase {
	var eight []string
	for i, w := range slices.Concat(fuzzyWords[1:8], fuzzyWords[9:]) {
		eight = append(eight, fmt.Sprintf("alpha %s %d", w, i+1))
	}
	cases := []FuzzyCase{
		{"repeated word", ports.NodeQuery{Queries: []string{"alpha alpha 4"}}},
		{"common words and digits", ports.NodeQuery{Queries: []string{"zeta theta 4243"}}},
		{"every word", ports.NodeQuery{Queries: []string{strings.Join(fuzzyWords, " ")}}},
		{"digits", ports.NodeQuery{Queries: []string{"1 2 3 4 5 6 7 8 9"}}},
		{"eight queries", ports.NodeQuery{Queries: eight}},
		{"one word", ports.NodeQuery{Queries: []string{"alpha"}}},
		{"two words", ports.NodeQuery{Queries: []string{"alpha beta"}}},
		{"one letter", ports.NodeQuery{Queries: []string{"a"}}},
		{"word and digit", ports.NodeQuery{Queries: []string{"eta 7"}}},
		{"every word twice", ports.NodeQuery{Queries: []string{strings.Join(slices.Concat(fuzzyWords, fuzzyWords), "")}}},
		{"digits in words", ports.NodeQuery{Queries: []string{"12 23 34 45 56 67 78 89 90"}}},
	}
	for i := range cases {
		cases[i].Query.Mode = ports.Fuzzy
		cases[i].Query.Threshold = ports.DefaultThreshold
	}
	return cases
}

// FuzzyTypos returns n names of the first rows entities [Load] writes,
// drawn at random (seeded), each with one to three typos: a letter or
// digit replaced, deleted, inserted or swapped with the next.
func FuzzyTypos(rows, n int, seed uint64) []FuzzyCase {
	r := rand.New(rand.NewPCG(seed, seed))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]FuzzyCase, n)
	for i := range out {
		name := []byte(entityName(r.IntN(rows)))
		typos := 1 + r.IntN(3)
		for range typos {
			p := r.IntN(len(name))
			switch r.IntN(4) {
			case 0:
				name[p] = alphabet[r.IntN(len(alphabet))]
			case 1:
				if len(name) > 1 {
					name = slices.Delete(name, p, p+1)
				}
			case 2:
				name = slices.Insert(name, p, alphabet[r.IntN(len(alphabet))])
			default:
				if p+1 < len(name) {
					name[p], name[p+1] = name[p+1], name[p]
				}
			}
		}
		out[i] = FuzzyCase{fmt.Sprintf("typos %d", i), ports.NodeQuery{Queries: []string{string(name)}, Mode: ports.Fuzzy, Threshold: ports.DefaultThreshold}}
	}
	return out
}

// fuzzyQueryCount is the number of names with typos [RunFuzzy] queries:
// BOUNDED_FUZZY_QUERIES, 1,000 by default.
func fuzzyQueryCount() int {
	if n, err := strconv.Atoi(os.Getenv("BOUNDED_FUZZY_QUERIES")); err == nil && n >= 0 {
		return n
	}
	return 1000
}

// fuzzyPage is what [RunFuzzy] compares of a page: its items' names and
// scores, and its info but for the cursors' values.
type fuzzyPage struct {
	Items      []string
	Info       bounded.PageInfo
	Next, Prev bool
}

func viewFuzzy(pg bounded.Paged[ports.NodeMatch]) fuzzyPage {
	v := fuzzyPage{Info: pg.Page, Next: pg.Page.NextCursor != "", Prev: pg.Page.PrevCursor != ""}
	v.Info.NextCursor, v.Info.PrevCursor = "", ""
	for _, m := range pg.Items {
		v.Items = append(v.Items, fmt.Sprintf("%s %.7g", m.Name, m.Score))
	}
	return v
}

// fuzzyTimes are the times of the calls of one kind, by case.
type fuzzyTimes struct {
	kind  string
	cases []string
	spent map[string][]time.Duration
}

func (t *fuzzyTimes) add(name string, d time.Duration) {
	if t.spent == nil {
		t.spent = map[string][]time.Duration{}
	}
	if _, ok := t.spent[name]; !ok {
		t.cases = append(t.cases, name)
	}
	t.spent[name] = append(t.spent[name], d)
}

// report logs the p50, p99 and maximum over the cases of each case's
// median time, and the slowest cases, and reports the three as metrics.
func (t *fuzzyTimes) report(b *testing.B, slowest int) {
	if len(t.cases) == 0 {
		return
	}
	med := make([]time.Duration, len(t.cases))
	for i, c := range t.cases {
		med[i] = time.Duration(median(t.spent[c]) * float64(time.Millisecond))
	}
	idx := make([]int, len(med))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int { return cmp.Compare(med[x], med[y]) })
	at := func(p float64) time.Duration { return med[idx[min(len(idx)-1, int(p*float64(len(idx))))]] }
	p50, p99, top := at(0.5), at(0.99), med[idx[len(idx)-1]]
	var slow []string
	for _, i := range slices.Backward(idx[max(0, len(idx)-slowest):]) {
		slow = append(slow, fmt.Sprintf("%s %.1f", t.cases[i], ms(med[i])))
	}
	b.Logf("%s: %d queries, p50 %.2f ms, p99 %.2f ms, max %.1f ms; slowest: %s", t.kind, len(med), ms(p50), ms(p99), ms(top), strings.Join(slow, ", "))
	b.ReportMetric(ms(p50), t.kind+"-p50-ms")
	b.ReportMetric(ms(p99), t.kind+"-p99-ms")
	b.ReportMetric(ms(top), t.kind+"-max-ms")
}

// RunFuzzy measures fuzzy SearchNodes over each data set ([Rows]) of
// entities ([LoadEntities]) for a query set: BOUNDED_FUZZY_QUERIES
// (1,000 by default) names drawn from the data with one to three typos
// ([FuzzyTypos]) and the adversarial queries ([FuzzyAdversarial]), at
// threshold 0.3, pages of 20 with the capped count.
//
// "set" times each query's first page and the page after it by cursor
// once an iteration, and compares them with memrepo's: any difference
// fails the benchmark. Its metrics are the p50, p99 and maximum over the
// queries of each query's median time, in ms.
//
// "sample" times, call for call on the adversarial queries and every
// 50th name with typos, the adapter's first page, the same page by a
// hand-written GROUP BY over the trigram table (the baseline, checked
// against memrepo too) and, on Postgres, by pg_trgm's % operator and
// similarity() ([FuzzyStores.PgTrgm]). Its metrics are the medians and
// the median and largest ratio of the adapter's time to each other's.
//
//	BOUNDED_BENCH_ROWS=100000 go test -run '^$' -bench Fuzzy -benchtime 3x -timeout 2h ./adapters/sqlite/
//	BOUNDED_BENCH_KEEP=1 BOUNDED_BENCH_ROWS=1000000 go test -run '^$' -bench 'Fuzzy/rows=1000000/set' -benchtime 3x -timeout 4h ./adapters/sqlite/
func RunFuzzy(b *testing.B, open FuzzyOpener) {
	for _, rows := range Rows() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			db, stores := open(b, rows)
			var held int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM bounded_entities").Scan(&held); err != nil {
				b.Fatal(err)
			}
			switch held {
			case rows:
				b.Logf("load: %d entities kept from an earlier run", rows)
			case 0:
				start := time.Now()
				if err := LoadEntities(ctx, db, rows); err != nil {
					b.Fatal(err)
				}
				b.Logf("load: %d entities and their trigrams in %v", rows, time.Since(start).Round(time.Millisecond))
			default:
				b.Fatalf("the database holds %d entities, want 0 or %d: remove it", held, rows)
			}
			st := stores(b)
			mem := memrepo.New()
			for i := range rows {
				if err := mem.PutEntity(ctx, ports.Entity{Name: entityName(i), Type: "concept", UpdatedAt: time.Unix(int64(i), 0)}); err != nil {
					b.Fatal(err)
				}
			}
			cases := slices.Concat(FuzzyAdversarial(), FuzzyTypos(rows, fuzzyQueryCount(), 29))
			p := bounded.Page{Limit: 20, Count: bounded.CountCapped}
			// want holds memrepo's pages of each case, read by need.
			want := make([][2]fuzzyPage, len(cases))
			read := make([]bool, len(cases))
			// pages reads the first page of c and the next by cursor,
			// compares them with memrepo's, and returns their times (-1:
			// no next page).
			pages := func(b *testing.B, name string, s ports.Knowledge, i int) (first, next time.Duration) {
				c := cases[i]
				search := func(p bounded.Page) (bounded.Paged[ports.NodeMatch], time.Duration) {
					start := time.Now()
					pg, err := s.SearchNodes(ctx, c.Query, p)
					took := time.Since(start)
					if err != nil {
						b.Fatalf("%s, %s %q: %v", name, c.Name, c.Query.Queries, err)
					}
					return pg, took
				}
				got, first := search(p)
				if diff := gocmp.Diff(want[i][0], viewFuzzy(got)); diff != "" {
					b.Fatalf("%s, %s %q, first page (-memrepo +store):\n%s", name, c.Name, c.Query.Queries, diff)
				}
				if got.Page.NextCursor == "" {
					return first, -1
				}
				q := p
				q.Cursor = got.Page.NextCursor
				got, next = search(q)
				if diff := gocmp.Diff(want[i][1], viewFuzzy(got)); diff != "" {
					b.Fatalf("%s, %s %q, by cursor (-memrepo +store):\n%s", name, c.Name, c.Query.Queries, diff)
				}
				return first, next
			}
			b.Run("set", func(b *testing.B) {
				all := make([]int, len(cases))
				for i := range all {
					all[i] = i
				}
				referencePages(ctx, b, mem, cases, all, p, want, read)
				first, next := fuzzyTimes{kind: "first"}, fuzzyTimes{kind: "cursor"}
				for b.Loop() {
					for i, c := range cases {
						f, n := pages(b, "adapter", st.Store, i)
						first.add(c.Name, f)
						if n >= 0 {
							next.add(c.Name, n)
						}
					}
				}
				first.report(b, 12)
				next.report(b, 12)
			})
			b.Run("sample", func(b *testing.B) {
				var sample []int
				for i, c := range cases {
					if !strings.HasPrefix(c.Name, "typos") || i%50 == 0 {
						sample = append(sample, i)
					}
				}
				referencePages(ctx, b, mem, cases, sample, p, want, read)
				var adapter, groupBy, pgTrgm []time.Duration
				for b.Loop() {
					for _, i := range sample {
						c := cases[i]
						f, _ := pages(b, "adapter", st.Store, i)
						adapter = append(adapter, f)
						start := time.Now()
						got, err := groupByPage(ctx, db, c.Query, p.Limit)
						g := time.Since(start)
						if err != nil {
							b.Fatalf("GROUP BY, %s %q: %v", c.Name, c.Query.Queries, err)
						}
						if diff := gocmp.Diff(want[i][0].Items, got); diff != "" {
							b.Fatalf("GROUP BY, %s %q (-memrepo +GROUP BY):\n%s", c.Name, c.Query.Queries, diff)
						}
						groupBy = append(groupBy, g)
						line := fmt.Sprintf("%s %q: adapter %.2f ms, GROUP BY %.2f ms", c.Name, c.Query.Queries, ms(f), ms(g))
						if st.PgTrgm != nil {
							t, _ := pages(b, "pg_trgm", st.PgTrgm, i)
							pgTrgm = append(pgTrgm, t)
							line += fmt.Sprintf(", pg_trgm %.2f ms", ms(t))
						}
						fmt.Println(line)
					}
				}
				b.ReportMetric(median(adapter), "adapter-median-ms")
				for _, o := range []struct {
					name  string
					spent []time.Duration
				}{{"groupby", groupBy}, {"pgtrgm", pgTrgm}} {
					if len(o.spent) == 0 {
						continue
					}
					b.ReportMetric(median(o.spent), o.name+"-median-ms")
					var ratio []float64
					for j := range adapter {
						ratio = append(ratio, float64(adapter[j])/float64(o.spent[j]))
					}
					slices.Sort(ratio)
					b.ReportMetric(ratio[len(ratio)/2], "adapter/"+o.name+"-median")
					b.ReportMetric(ratio[len(ratio)-1], "adapter/"+o.name+"-max")
				}
			})
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// groupByPage is the first page of limit items of fuzzy SearchNodes(q)
// written by hand: for each query, the trigrams each name shares with it
// counted by one GROUP BY over their rows of the trigram index, the best
// similarity of each name, ordered, each item as "name score".
func groupByPage(ctx context.Context, db *bun.DB, q ports.NodeQuery, limit int) ([]string, error) {
	var parts []string
	var args []any
	for _, query := range q.Queries {
		tri, ok := fuzzy.QueryTrigrams(query, q.Threshold)
		if !ok || len(tri) == 0 {
			continue
		}
		parts = append(parts, "SELECT t.name, CAST(count(*) AS DOUBLE PRECISION) / (min(t.trigram_count) + ? - count(*)) AS sim"+
			" FROM bounded_entity_trigrams t WHERE t.trigram IN (?) GROUP BY t.name HAVING count(*) >= ?")
		args = append(args, len(tri), bun.List(tri), fuzzy.MinShared(len(tri), q.Threshold))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	var rows []struct {
		entityRow
		Sim float64 `bun:"sim"`
	}
	err := db.NewRaw("SELECT e.name, e.entity_type, e.observations, e.tags, e.updated_at, p.sim FROM ("+
		"SELECT name, max(sim) AS sim FROM ("+strings.Join(parts, " UNION ALL ")+") AS s"+
		" GROUP BY name HAVING max(sim) >= ? ORDER BY max(sim) DESC, name LIMIT ?"+
		") AS p JOIN bounded_entities e ON e.name = p.name ORDER BY p.sim DESC, e.name", append(args, q.Threshold, limit)...).Scan(ctx, &rows)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s %.7g", r.Name, float32(r.Sim)))
	}
	return out, err
}

// loadTrigrams writes the trigrams of the names name(i), i < n, as the
// adapter's PutEntity would write them one by one (each row with its
// place among its name's trigrams, [sqlstore.Store.PutEntity]), but with
// every place ordered by the final counts, and the counts.
func loadTrigrams(ctx context.Context, db *bun.DB, n int, name func(i int) string) error {
	type pair struct {
		t string
		m int
	}
	counts := map[pair]int{}
	for i := range n {
		tri := ports.Trigrams(name(i))
		for _, t := range tri {
			counts[pair{t, len(tri)}]++
		}
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ins := newInserter(ctx, tx)
		for i := range n {
			tri := ports.Trigrams(name(i))
			m := len(tri)
			slices.SortStableFunc(tri, func(a, b string) int { return counts[pair{a, m}] - counts[pair{b, m}] })
			for pos, t := range tri {
				ins.add("bounded_entity_trigrams", "trigram, trigram_count, name, pos", t, m, name(i), pos)
			}
			if ins.err != nil {
				return ins.err
			}
		}
		for p, c := range counts {
			ins.add("bounded_trigram_counts", "trigram, trigram_count, names", p.t, p.m, c)
		}
		ins.flushAll()
		return ins.err
	})
}

// referencePages reads into want memrepo's first page p of each case of
// idx not read yet, and the next page by cursor (zero if none), with as
// many goroutines as there are CPUs.
func referencePages(ctx context.Context, b *testing.B, mem *memrepo.Store, cases []FuzzyCase, idx []int, p bounded.Page, want [][2]fuzzyPage, read []bool) {
	next := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				pg, err := mem.SearchNodes(ctx, cases[i].Query, p)
				if err == nil && pg.Page.NextCursor != "" {
					q := p
					q.Cursor = pg.Page.NextCursor
					var second bounded.Paged[ports.NodeMatch]
					second, err = mem.SearchNodes(ctx, cases[i].Query, q)
					want[i][1] = viewFuzzy(second)
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
				want[i][0] = viewFuzzy(pg)
			}
		})
	}
	for _, i := range idx {
		if !read[i] {
			read[i] = true
			next <- i
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}
