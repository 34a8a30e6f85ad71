package bunpage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
)

// benchRowsEnv names the environment variable with a larger number of
// events to benchmark, e.g. BOUNDED_BENCH_ROWS=1000000, after 10,000.
const benchRowsEnv = "BOUNDED_BENCH_ROWS"

// benchLimit is the page size of the benchmarks: an agent tool's usual
// default.
const benchLimit = 20

// benchRows returns the table sizes to benchmark.
func benchRows(b *testing.B) []int {
	rows := []int{10_000}
	if v := os.Getenv(benchRowsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("%s=%q: want a number of rows of 1000 or more", benchRowsEnv, v)
		}
		if n != rows[0] {
			rows = append(rows, n)
		}
	}
	return rows
}

// loaded are the databases the benchmarks loaded, kept for the process:
// -count runs a benchmark again on the same data. TestMain removes them.
var loaded struct {
	sync.Mutex
	dbs     map[string]*bun.DB
	removes []func() error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, remove := range loaded.removes {
		if err := remove(); err != nil {
			fmt.Fprintln(os.Stderr, "remove a benchmark database:", err)
		}
	}
	os.Exit(code)
}

// benchDB returns a database of e holding n events, loading it on first
// use.
func benchDB(b *testing.B, e engine, n int) *bun.DB {
	loaded.Lock()
	defer loaded.Unlock()
	key := fmt.Sprintf("%s/%d", e.name, n)
	if db := loaded.dbs[key]; db != nil {
		return db
	}
	db, remove := e.create(b)
	loaded.removes = append(loaded.removes, remove)
	start := time.Now()
	if err := loadEvents(context.Background(), db, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: loaded %d events in %v", e.name, n, time.Since(start).Round(time.Second))
	if loaded.dbs == nil {
		loaded.dbs = map[string]*bun.DB{}
	}
	loaded.dbs[key] = db
	return db
}

// variant is one way of reading a page; it returns the ids read.
type variant struct {
	name string
	read func(ctx context.Context) ([]int64, error)
	// other: it reads another page than the first variant.
	other bool
}

// BenchmarkPage reads pages of 20 events, newest first, on 10,000 events
// (and BOUNDED_BENCH_ROWS more), side by side with the hand-written bun
// query for the same page, and reports each variant's median time and
// the ratios of the medians:
//
//   - page0: the first page by offset;
//   - cursor: the page after the event 90% deep, by cursor; the plain
//     keyset query is (created, id) < (?, ?), on MariaDB created <= ?
//     AND (created < ? OR created = ? AND id < ?), the form its index
//     serves;
//
// each read by the plain query (the same columns, ORDER BY and LIMIT 21,
// no count, no transaction), by bunpage.New with value functions
// ("bunpage"), by bunpage.By, whose keys are read from the model's
// fields ("by"), and by bunpage.New with a capped count (the default cap,
// 200 for pages of 20: "capped"); the cursor page also against
// bunpage's first page.
func BenchmarkPage(b *testing.B) {
	ctx := context.Background()
	for _, e := range engines {
		for _, n := range benchRows(b) {
			b.Run(fmt.Sprintf("%s/rows=%d", e.name, n), func(b *testing.B) {
				db := benchDB(b, e, n)
				q := db.NewSelect().Model((*event)(nil))
				src, err := bunpage.New(db, q, newestFirst()...)
				if err != nil {
					b.Fatal(err)
				}
				by, err := bunpage.By[event](db, q, "-created")
				if err != nil {
					b.Fatal(err)
				}
				fetch := func(src *bunpage.Source[event], r driver.Request) func(ctx context.Context) ([]int64, error) {
					return func(ctx context.Context) ([]int64, error) {
						rows, err := src.Fetch(ctx, r)
						return eventIDs(rows.Items), err
					}
				}
				// variants are the ways of reading the page after at (the
				// first page for nil), then plain, the hand-written query.
				variants := func(at *driver.Cursor, plain func(ctx context.Context) ([]int64, error)) []variant {
					none := driver.Request{Limit: benchLimit, Count: bounded.CountNone, At: at}
					capped := driver.Request{Limit: benchLimit, Count: bounded.CountCapped, At: at}
					return []variant{
						{"bunpage", fetch(src, none), false},
						{"plain", plain, false},
						{"by", fetch(by, none), false},
						{"capped", fetch(src, capped), false},
					}
				}
				pairs := [][2]string{{"bunpage", "plain"}, {"by", "plain"}, {"capped", "bunpage"}}
				deep := makeEvent(n - n*9/10) // 90% deep in newest-first order
				b.Run("page0", func(b *testing.B) {
					sideBySide(ctx, b, variants(nil, func(ctx context.Context) ([]int64, error) {
						var evs []event
						err := db.NewSelect().Model(&evs).OrderExpr("created DESC, id DESC").Limit(benchLimit + 1).Scan(ctx)
						return eventIDs(evs[:min(len(evs), benchLimit)]), err
					}), pairs)
				})
				b.Run("cursor", func(b *testing.B) {
					after, args := "(created, id) < (?, ?)", []any{deep.Created, deep.ID}
					if isMySQL(db) {
						// MariaDB enters the index at this form, not at a
						// row value (TestPlans).
						after = "created <= ? AND (created < ? OR (created = ? AND id < ?))"
						args = []any{deep.Created, deep.Created, deep.Created, deep.ID}
					}
					vs := variants(&driver.Cursor{Keys: eventKeys(deep)}, func(ctx context.Context) ([]int64, error) {
						var evs []event
						err := db.NewSelect().Model(&evs).Where(after, args...).
							OrderExpr("created DESC, id DESC").Limit(benchLimit + 1).Scan(ctx)
						return eventIDs(evs[:min(len(evs), benchLimit)]), err
					})
					vs = append(vs, variant{"page0", fetch(src, driver.Request{Limit: benchLimit, Count: bounded.CountNone}), true})
					sideBySide(ctx, b, vs, append(pairs, [2]string{"bunpage", "page0"}))
				})
			})
		}
	}
}

// BenchmarkMixed reads the page after the event 90% deep (and 99% deep,
// where a page of rows follows it) in an order of mixed directions,
// created descending then id ascending, with an index on (created DESC,
// id), in pages of 20 and 200, on SQLite and Postgres: by bunpage
// ("bunpage"), by bunpage with the expanded keyset, as it wrote it
// before the nested form, created <= ? AND ((created < ?) OR (created =
// ? AND id > ?)) ("expanded"), and by the hand-written bun query with
// created <= ? AND (created < ? OR id > ?) ("plain").
func BenchmarkMixed(b *testing.B) {
	ctx := context.Background()
	for _, e := range engines[:2] {
		for _, n := range benchRows(b) {
			for _, depth := range []int{90, 99} {
				for _, limit := range []int{20, 200} {
					deep := makeEvent(n - n*depth/100)
					if deep.ID <= int64(limit) {
						continue // fewer rows than a page follow it
					}
					b.Run(fmt.Sprintf("%s/rows=%d/deep=%d%%/limit=%d", e.name, n, depth, limit), func(b *testing.B) {
						benchMixed(ctx, b, benchDB(b, e, n), deep, limit)
					})
				}
			}
		}
	}
}

func benchMixed(ctx context.Context, b *testing.B, db *bun.DB, deep event, limit int) {
	for _, s := range []string{"CREATE INDEX IF NOT EXISTS events_created_desc_id ON events (created DESC, id)", analyze(db, "events")} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	src, err := bunpage.New(db, db.NewSelect().Model((*event)(nil)),
		bunpage.Col("created", func(e event) time.Time { return e.Created }).Desc(),
		bunpage.Col("id", func(e event) int64 { return e.ID }).Unique())
	if err != nil {
		b.Fatal(err)
	}
	r := driver.Request{Limit: limit, Count: bounded.CountNone, At: &driver.Cursor{Keys: eventKeys(deep)}}
	fetch := func(src *bunpage.Source[event]) func(ctx context.Context) ([]int64, error) {
		return func(ctx context.Context) ([]int64, error) {
			rows, err := src.Fetch(ctx, r)
			return eventIDs(rows.Items), err
		}
	}
	plain := func(ctx context.Context) ([]int64, error) {
		var evs []event
		err := db.NewSelect().Model(&evs).Where("created <= ? AND (created < ? OR id > ?)", deep.Created, deep.Created, deep.ID).
			OrderExpr("created DESC, id ASC").Limit(int64(limit) + 1).Scan(ctx)
		return eventIDs(evs[:min(len(evs), limit)]), err
	}
	sideBySideN(ctx, b, limit, []variant{
		{"bunpage", fetch(src), false},
		{"plain", plain, false},
		{"expanded", fetch(bunpage.Portable(src)), false},
	}, [][2]string{{"bunpage", "plain"}, {"expanded", "plain"}, {"expanded", "bunpage"}})
}

func eventIDs(evs []event) []int64 {
	ids := make([]int64, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return ids
}

// sideBySide runs the variants in a new random order at every iteration,
// after checking that they read the same page (the first variant's), and
// reports each one's median time in µs ("<name>-us", the first one's as
// ns/op too) and the ratios of the medians of the pairs.
func sideBySide(ctx context.Context, b *testing.B, vs []variant, pairs [][2]string) {
	sideBySideN(ctx, b, benchLimit, vs, pairs)
}

// sideBySideN is sideBySide for pages of limit.
func sideBySideN(ctx context.Context, b *testing.B, limit int, vs []variant, pairs [][2]string) {
	want, err := vs[0].read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(want) != limit {
		b.Fatalf("%s read %d events, want %d", vs[0].name, len(want), limit)
	}
	for _, v := range vs[1:] {
		got, err := v.read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if !v.other && !slices.Equal(got, want) {
			b.Fatalf("%s read %v, %s %v", v.name, got, vs[0].name, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	times := make([][]time.Duration, len(vs))
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	for b.Loop() {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			start := time.Now()
			if _, err := vs[i].read(ctx); err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	med := map[string]float64{}
	for i, v := range vs {
		med[v.name] = median(times[i])
		b.ReportMetric(med[v.name]/1e3, v.name+"-us")
	}
	b.ReportMetric(med[vs[0].name], "ns/op")
	for _, p := range pairs {
		b.ReportMetric(med[p[0]]/med[p[1]], p[0]+"/"+p[1])
	}
}

// median returns the median of d in ns.
func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}
