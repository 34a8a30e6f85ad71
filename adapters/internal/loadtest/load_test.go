// Package loadtest measures many agents paging at once: N concurrent
// agents (default 50) each walk a large set by cursor, side by side with
// the same keyset queries written with bun and run by as many goroutines.
// It is a benchmark, not a timed test: `go test` alone runs only
// TestAgentsAgree, which checks on a small set that every variant reads
// the same rows.
//
// BenchmarkAgents measures bunpage on Postgres and on SQLite in WAL mode
// (a pool of one connection and pools of readers), and the adapters'
// ListNotes through their public API: Postgres at several pool sizes,
// SQLite (opened with sqlite.Open, WAL) with its one connection and with
// two. BenchmarkSQLitePool runs the SQLite adapter's walks on one
// connection and on a pool of readers alternately. The commands, from the
// module root (BOUNDED_PG_DSN set):
//
//	go test -run '^$' -bench Agents -benchtime 3x ./adapters/internal/loadtest/
//	BOUNDED_LOAD_ROWS=1000000 go test -run '^$' -bench Agents -benchtime 3x -timeout 2h ./adapters/internal/loadtest/
//	BOUNDED_LOAD_ROWS=1000000 BOUNDED_LOAD_KEEP=1 go test -run '^$' -bench SQLitePool -benchtime 5x ./adapters/internal/loadtest/
//
// BOUNDED_LOAD_ROWS is the set's size (default 20,000), BOUNDED_LOAD_AGENTS
// the number of agents (default 50), BOUNDED_LOAD_PAGES the pages each
// agent walks in a round (default 20, of 50 items), BOUNDED_LOAD_READERS
// the pool sizes BenchmarkSQLitePool compares with one connection
// (default 2). BOUNDED_LOAD_KEEP=1 keeps the adapters' notes (a Postgres
// schema and a file in the temporary directory, named after the set's
// size) for the next run, as loading a million notes through PutNote
// takes minutes.
package loadtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
	"github.com/uptrace/bun/schema"
)

// limit is the page size of every walk: ListNotes' default.
const limit = 50

// config is the size of a load.
type config struct {
	rows, agents, pages int
}

// loadConfig reads the load's size from the environment.
func loadConfig(tb testing.TB) config {
	tb.Helper()
	c := config{rows: 20_000, agents: 50, pages: 20}
	for _, v := range []struct {
		env string
		n   *int
	}{{"BOUNDED_LOAD_ROWS", &c.rows}, {"BOUNDED_LOAD_AGENTS", &c.agents}, {"BOUNDED_LOAD_PAGES", &c.pages}} {
		if s := os.Getenv(v.env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				tb.Fatalf("%s=%q: want a positive integer", v.env, s)
			}
			*v.n = n
		}
	}
	if c.rows < (c.pages+1)*limit {
		tb.Fatalf("%d rows: too few for walks of %d pages of %d", c.rows, c.pages, limit)
	}
	return c
}

// starts returns each agent's starting offset, spread evenly over the set
// so that every walk ends inside it.
func (c config) starts() []int {
	span := c.rows - (c.pages+1)*limit
	out := make([]int, c.agents)
	for i := range out {
		out[i] = i * span / c.agents
	}
	return out
}

// reader reads a set in one order by cursor. seek reads the page at
// offset by offset and returns the position after it; page reads the
// page after pos and returns the position after it and a hash of its
// items' ids, in order.
type reader struct {
	seek func(ctx context.Context, offset int) (pos any, err error)
	page func(ctx context.Context, pos any) (next any, sum uint64, err error)
}

// sample is one page's latency and the quarter of the set it was read
// in (0 to 3).
type sample struct {
	d       time.Duration
	quarter int
}

// round is what the agents did in one round: its wall time, each page's
// sample, and each agent's hash of what it read.
type round struct {
	wall    time.Duration
	samples []sample
	sums    []uint64
}

// seekAll returns the position of each start offset, read by at most
// 8 goroutines.
func seekAll(ctx context.Context, r reader, starts []int) ([]any, error) {
	pos := make([]any, len(starts))
	errs := make([]error, len(starts))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, off := range starts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			pos[i], errs[i] = r.seek(ctx, off)
		})
	}
	wg.Wait()
	return pos, errors.Join(errs...)
}

// walk runs one round: every agent at once (released together) walks
// c.pages pages by cursor from its position.
func walk(ctx context.Context, c config, r reader, starts []int, pos []any) (round, error) {
	out := round{samples: make([]sample, 0, c.agents*c.pages), sums: make([]uint64, c.agents)}
	perAgent := make([][]sample, c.agents)
	errs := make([]error, c.agents)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range c.agents {
		wg.Go(func() {
			samples := make([]sample, 0, c.pages)
			p, sum := pos[i], uint64(0)
			<-release
			for k := range c.pages {
				t0 := time.Now()
				next, s, err := r.page(ctx, p)
				d := time.Since(t0)
				if err != nil {
					errs[i] = fmt.Errorf("agent %d, page %d: %w", i, k, err)
					return
				}
				depth := starts[i] + (k+1)*limit
				samples = append(samples, sample{d, min(3, depth*4/c.rows)})
				p, sum = next, sum*1_099_511_628_211^s
			}
			perAgent[i], out.sums[i] = samples, sum
		})
	}
	t0 := time.Now()
	close(release)
	wg.Wait()
	out.wall = time.Since(t0)
	for _, s := range perAgent {
		out.samples = append(out.samples, s...)
	}
	return out, errors.Join(errs...)
}

// hashID folds an item's id into a page's hash (FNV-1a of its bytes).
func hashID(sum uint64, id string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(id) {
		h = (h ^ uint64(id[i])) * 1099511628211
	}
	return sum*31 + h
}

// hashInt is hashID for an integer id.
func hashInt(sum uint64, id int64) uint64 { return sum*31 + uint64(id)*0x9e3779b97f4a7c15 }

// stats are a variant's figures over its rounds.
type stats struct {
	pages int
	wall  time.Duration
	all   []time.Duration
	byQ   [4][]time.Duration
}

func (s *stats) add(r round) {
	s.pages += len(r.samples)
	s.wall += r.wall
	for _, x := range r.samples {
		s.all = append(s.all, x.d)
		s.byQ[x.quarter] = append(s.byQ[x.quarter], x.d)
	}
}

func (s *stats) perSecond() float64 { return float64(s.pages) / s.wall.Seconds() }

// pct returns the p'th percentile of ds in milliseconds.
func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	i := min(len(ds)-1, int(p/100*float64(len(ds))))
	return float64(ds[i]) / float64(time.Millisecond)
}

// compare runs a round of the store and of the raw query untimed, then
// b.N rounds of each, in alternating order, and reports
// each one's pages/s and p50/p99 latency (overall and by quarter of the
// set, q1 the newest) and the ratios raw/bounded (throughput) and
// bounded/raw (p99). On a shared machine another load's burst can fall
// on one variant's round: raw/bounded-pages/s-median, the median over
// iterations of the ratio within an iteration (its two rounds run back
// to back), is less sensitive to it than the ratio of the totals.
func compare(b *testing.B, c config, store, raw reader, storePos, rawPos []any) {
	compareNamed(b, c, [2]string{"bounded", "raw"}, store, raw, storePos, rawPos)
}

// compareNamed is compare with the metrics named after names (the first
// reader's, then the second's) instead of bounded and raw.
func compareNamed(b *testing.B, c config, names [2]string, store, raw reader, storePos, rawPos []any) {
	ctx := context.Background()
	starts := c.starts()
	// A round of each, untimed, fills the pool and the caches.
	for _, r := range []struct {
		r   reader
		pos []any
	}{{store, storePos}, {raw, rawPos}} {
		if _, err := walk(ctx, c, r.r, starts, r.pos); err != nil {
			b.Fatal(err)
		}
	}
	var st [2]stats
	var pairs []float64 // each iteration's raw/bounded pages/s
	b.ResetTimer()
	for i := range b.N {
		var pps [2]float64
		for j := range 2 {
			v := (i + j) % 2
			r, pos := store, storePos
			if v == 1 {
				r, pos = raw, rawPos
			}
			got, err := walk(ctx, c, r, starts, pos)
			if err != nil {
				b.Fatal(err)
			}
			st[v].add(got)
			pps[v] = float64(len(got.samples)) / got.wall.Seconds()
		}
		pairs = append(pairs, pps[1]/pps[0])
	}
	b.StopTimer()
	for v, name := range names {
		b.ReportMetric(st[v].perSecond(), name+"-pages/s")
		b.ReportMetric(pct(st[v].all, 50), name+"-p50-ms")
		b.ReportMetric(pct(st[v].all, 99), name+"-p99-ms")
		for q, ds := range st[v].byQ {
			if len(ds) > 0 {
				b.ReportMetric(pct(ds, 99), fmt.Sprintf("%s-p99-ms-q%d", name, q+1))
			}
		}
	}
	b.ReportMetric(st[1].perSecond()/st[0].perSecond(), names[1]+"/"+names[0]+"-pages/s")
	slices.Sort(pairs)
	b.ReportMetric(pairs[len(pairs)/2], names[1]+"/"+names[0]+"-pages/s-median")
	b.ReportMetric(pct(st[0].all, 99)/pct(st[1].all, 99), names[0]+"/"+names[1]+"-p99")
}

// positions returns the agents' starting positions for the store and
// for the raw query, after checking that a round of each reads the same
// items for every agent.
func positions(ctx context.Context, c config, store, raw reader) (storePos, rawPos []any, err error) {
	starts := c.starts()
	if storePos, err = seekAll(ctx, store, starts); err != nil {
		return nil, nil, err
	}
	if rawPos, err = seekAll(ctx, raw, starts); err != nil {
		return nil, nil, err
	}
	rs, err := walk(ctx, c, store, starts, storePos)
	if err != nil {
		return nil, nil, err
	}
	rr, err := walk(ctx, c, raw, starts, rawPos)
	if err != nil {
		return nil, nil, err
	}
	for i := range rs.sums {
		if rs.sums[i] != rr.sums[i] {
			return nil, nil, fmt.Errorf("agent %d read other items through the store than through the raw query", i)
		}
	}
	return storePos, rawPos, nil
}

// item is a row of the set bunpage pages: newest first.
type item struct {
	bun.BaseModel `bun:"table:load_items,alias:i"`

	ID      int64  `bun:"id,pk"`
	Created int64  `bun:"created"` // microseconds; every third ties the one before
	Title   string `bun:"title"`
	Body    string `bun:"body"`
}

// loadItems creates load_items with rows 1 to n, generated by the
// database, and its index for the order (created, id).
func loadItems(ctx context.Context, db *bun.DB, n int) error {
	gen := `INSERT INTO load_items SELECT g, 1672531200000000 + (g - g % 3 / 2) * 1500000, 'item ' || g, repeat('x', 200) FROM generate_series(1::bigint, ?) g`
	analyze := "VACUUM ANALYZE load_items"
	if db.Dialect().Name().String() == "sqlite" {
		gen = `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ?)
			INSERT INTO load_items SELECT g, 1672531200000000 + (g - g % 3 / 2) * 1500000, 'item ' || g, hex(zeroblob(100)) FROM s`
		analyze = "ANALYZE"
	}
	for _, q := range []string{
		"CREATE TABLE load_items (id BIGINT PRIMARY KEY, created BIGINT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL)",
		gen,
		"CREATE INDEX load_items_created_id ON load_items (created, id)",
		analyze,
	} {
		var args []any
		if q == gen {
			args = []any{n}
		}
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%.40s...: %w", q, err)
		}
	}
	return nil
}

// pagedReader reads pages through list: by offset to seek, then by
// NextCursor, without a count.
func pagedReader[T any](list func(ctx context.Context, p bounded.Page) (bounded.Paged[T], error), hash func(uint64, T) uint64) reader {
	read := func(ctx context.Context, p bounded.Page) (any, uint64, error) {
		p.Limit, p.Count = limit, bounded.CountNone
		pg, err := list(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		var sum uint64
		for _, it := range pg.Items {
			sum = hash(sum, it)
		}
		return pg.Page.NextCursor, sum, nil
	}
	return reader{
		seek: func(ctx context.Context, off int) (any, error) {
			pos, _, err := read(ctx, bounded.Page{Offset: off})
			return pos, err
		},
		page: func(ctx context.Context, pos any) (any, uint64, error) {
			return read(ctx, bounded.Page{Cursor: pos.(string)})
		},
	}
}

// rawReader reads rows of type R with hand-written bun queries: sel
// returns the rows' query, order is its ORDER BY, after adds the keyset
// predicate for the rows after last, and hash folds a row's id into a
// page's hash. Its position is the last row read.
func rawReader[R any](sel func() *bun.SelectQuery, order string, after func(q *bun.SelectQuery, last R) *bun.SelectQuery, hash func(uint64, R) uint64) reader {
	read := func(ctx context.Context, q *bun.SelectQuery) (any, uint64, error) {
		var rows []R
		if err := q.OrderExpr(order).Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
			return nil, 0, err
		}
		if len(rows) == 0 {
			return nil, 0, errors.New("an empty page")
		}
		rows = rows[:min(len(rows), limit)]
		var sum uint64
		for _, r := range rows {
			sum = hash(sum, r)
		}
		return rows[len(rows)-1], sum, nil
	}
	return reader{
		seek: func(ctx context.Context, off int) (any, error) {
			pos, _, err := read(ctx, sel().Offset(int64(off)))
			return pos, err
		},
		page: func(ctx context.Context, pos any) (any, uint64, error) {
			return read(ctx, after(sel(), pos.(R)))
		},
	}
}

// bunpageReaders returns bunpage's reader over db's items (through
// bounded.FetchPage, as a tool reads it: cursors encoded and decoded) and
// the raw bun keyset query's.
func bunpageReaders(db *bun.DB) (paged, raw reader, err error) {
	src, err := bunpage.New(db, db.NewSelect().Model((*item)(nil)),
		bunpage.Col("created", func(it item) int64 { return it.Created }).Desc(),
		bunpage.Col("id", func(it item) int64 { return it.ID }).Desc().Unique())
	if err != nil {
		return reader{}, reader{}, err
	}
	limits := bounded.Limits{Default: limit, Max: limit}
	hash := func(sum uint64, it item) uint64 { return hashInt(sum, it.ID) }
	paged = pagedReader(func(ctx context.Context, p bounded.Page) (bounded.Paged[item], error) {
		return bounded.FetchPage(ctx, src, "list_items", p, limits, driver.Codec{})
	}, hash)
	raw = rawReader(func() *bun.SelectQuery { return db.NewSelect().Model((*item)(nil)) }, "created DESC, id DESC",
		func(q *bun.SelectQuery, last item) *bun.SelectQuery {
			return q.Where("(created, id) < (?, ?)", last.Created, last.ID)
		}, hash)
	return paged, raw, nil
}

// noteRow is a row of the adapter's notes as the raw query reads it:
// its tags decoded from their JSON array by bun, as ListNotes decodes
// them, so that both deliver the same fields.
type noteRow struct {
	ID        string   `bun:"id"`
	Title     string   `bun:"title"`
	Tags      []string `bun:"tags"`
	UpdatedAt int64    `bun:"updated_at"`
}

// notesReaders returns the reader of store's ListNotes (all notes, no
// count) and the raw keyset query on its table, in ListNotes' order
// (updated_at descending, id ascending).
func notesReaders(store ports.Notes, db *bun.DB) (adapter, raw reader) {
	adapter = pagedReader(func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return store.ListNotes(ctx, ports.ListFilter{}, p)
	}, func(sum uint64, n ports.NoteRef) uint64 { return hashID(sum, n.ID) })
	raw = rawReader(func() *bun.SelectQuery {
		return db.NewSelect().TableExpr("bounded_notes").ColumnExpr("id, title, tags, updated_at")
	}, "updated_at DESC, id", func(q *bun.SelectQuery, last noteRow) *bun.SelectQuery {
		return q.Where("updated_at <= ? AND (updated_at < ? OR (updated_at = ? AND id > ?))",
			last.UpdatedAt, last.UpdatedAt, last.UpdatedAt, last.ID)
	}, func(sum uint64, r noteRow) uint64 { return hashID(sum, r.ID) })
	return adapter, raw
}

// loadNote is the i'th of n notes a load puts: updated times shuffled,
// every third tying another.
func loadNote(i, n int) ports.Note {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return ports.Note{
		ID: fmt.Sprintf("notes/%07d", i), Title: fmt.Sprintf("Note %d", i),
		Content: fmt.Sprintf("Content of note %d.", i), Tags: []string{fmt.Sprintf("t%d", i%5)},
		CreatedAt: base, UpdatedAt: base.Add(time.Duration((i*7919)%n-(i*7919)%n%3/2) * time.Second),
	}
}

// loadNotes puts n notes (see loadNote) through store.PutNote, from 16
// goroutines.
func loadNotes(ctx context.Context, store ports.Notes, n int) error {
	work := make(chan int)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				if err := store.PutNote(ctx, loadNote(i, n)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case work <- i:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	return errors.Join(err, <-errs)
}

// pgDSN returns BOUNDED_PG_DSN, skipping tb without it.
func pgDSN(tb testing.TB) string {
	tb.Helper()
	v := os.Getenv("BOUNDED_PG_DSN")
	if v == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("BOUNDED_PG_DSN is not set; CI must run the Postgres load test")
		}
		tb.Skip("Postgres skipped: set BOUNDED_PG_DSN (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	return v
}

// pgSchema creates schema (unless it exists) and returns a function
// opening a pool of at most pool connections whose search_path is it,
// closed when its tb ends.
func pgSchema(tb testing.TB, schema string, drop bool) func(tb testing.TB, pool int) *bun.DB {
	tb.Helper()
	dsn := pgDSN(tb)
	admin := pgOpen(tb, dsn, 2)
	if _, err := admin.Exec("CREATE SCHEMA IF NOT EXISTS " + schema); err != nil {
		tb.Fatal(err)
	}
	if drop {
		tb.Cleanup(func() {
			if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
				tb.Error(err)
			}
		})
	}
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return func(tb testing.TB, pool int) *bun.DB { return pgOpen(tb, u.String(), pool) }
}

func pgOpen(tb testing.TB, dsn string, pool int) *bun.DB {
	tb.Helper()
	return pooled(tb, "pgx", dsn, pool, pgdialect.New())
}

// pooled opens dsn with driver in a pool of at most pool connections,
// closed when tb ends.
func pooled(tb testing.TB, driver, dsn string, pool int, d schema.Dialect) *bun.DB {
	tb.Helper()
	sqldb, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	sqldb.SetMaxOpenConns(pool)
	sqldb.SetMaxIdleConns(pool)
	db := bun.NewDB(sqldb, d)
	tb.Cleanup(func() { db.Close() })
	return db
}

// sqliteOpen opens the SQLite file at path in WAL mode with a pool of at
// most pool connections.
func sqliteOpen(tb testing.TB, path string, pool int) *bun.DB {
	tb.Helper()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath()
	if sqliteshim.DriverName() == "sqlite3" { // mattn/go-sqlite3
		dsn += "?_journal_mode=WAL&_busy_timeout=5000"
	} else {
		dsn += "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)"
	}
	return pooled(tb, sqliteshim.ShimName, dsn, pool, sqlitedialect.New())
}

var runID = strconv.FormatInt(time.Now().UnixNano(), 36)

// target is a store under load: how to open it with a pool of a size,
// its readers on such a pool, and the pool sizes to measure.
type target struct {
	name  string
	pools []int
	// setup loads the set and returns the opener of pools on it, whose
	// pools close when their tb ends.
	setup func(tb testing.TB, c config) func(tb testing.TB, pool int) (store, raw reader)
}

var targets = []target{
	{"bunpage-postgres", []int{4, 16, 50}, func(tb testing.TB, c config) func(testing.TB, int) (reader, reader) {
		open := pgSchema(tb, "loadtest_items_"+runID, true)
		if err := loadItems(context.Background(), open(tb, 1), c.rows); err != nil {
			tb.Fatal(err)
		}
		return func(tb testing.TB, pool int) (reader, reader) { return mustBunpage(tb, open(tb, pool)) }
	}},
	{"bunpage-sqlite", []int{1, 2, 4}, func(tb testing.TB, c config) func(testing.TB, int) (reader, reader) {
		dir, err := os.MkdirTemp("", "loadtest")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(dir) })
		path := filepath.Join(dir, "items.db")
		if err := loadItems(context.Background(), sqliteOpen(tb, path, 1), c.rows); err != nil {
			tb.Fatal(err)
		}
		return func(tb testing.TB, pool int) (reader, reader) { return mustBunpage(tb, sqliteOpen(tb, path, pool)) }
	}},
	{"adapter-postgres", []int{4, 16, 50}, func(tb testing.TB, c config) func(testing.TB, int) (reader, reader) {
		ctx := context.Background()
		keep := os.Getenv("BOUNDED_LOAD_KEEP") == "1"
		schema := "loadtest_notes_" + runID
		if keep {
			schema = fmt.Sprintf("loadtest_notes_%d", c.rows)
		}
		open := pgSchema(tb, schema, !keep)
		db := open(tb, 16)
		store, err := postgres.New(ctx, db)
		if err != nil {
			tb.Fatal(err)
		}
		pg, err := store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 1})
		if err != nil {
			tb.Fatal(err)
		}
		if pg.Page.Total != c.rows {
			if pg.Page.Total != 0 {
				tb.Fatalf("schema %s holds %d notes, want 0 or %d: drop it", schema, pg.Page.Total, c.rows)
			}
			t0 := time.Now()
			if err := loadNotes(ctx, store, c.rows); err != nil {
				tb.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
				tb.Fatal(err)
			}
			tb.Logf("loaded %d notes through PutNote in %v", c.rows, time.Since(t0).Round(time.Second))
		}
		db.Close()
		return func(tb testing.TB, pool int) (reader, reader) {
			db := open(tb, pool)
			store, err := postgres.New(ctx, db)
			if err != nil {
				tb.Fatal(err)
			}
			return notesReaders(store, db)
		}
	}},
	{"adapter-sqlite", []int{1, 2}, func(tb testing.TB, c config) func(testing.TB, int) (reader, reader) {
		ctx := context.Background()
		path := filepath.Join(tb.TempDir(), "notes.db")
		if os.Getenv("BOUNDED_LOAD_KEEP") == "1" {
			path = filepath.Join(os.TempDir(), fmt.Sprintf("bounded-loadtest-notes-%d.db", c.rows))
		}
		store, db := sqliteNotes(tb, path, 1)
		pg, err := store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 1})
		if err != nil {
			tb.Fatal(err)
		}
		if pg.Page.Total != c.rows {
			if pg.Page.Total != 0 {
				tb.Fatalf("%s holds %d notes, want 0 or %d: remove it", path, pg.Page.Total, c.rows)
			}
			t0 := time.Now()
			if err := loadSQLiteNotes(ctx, db, c.rows); err != nil {
				tb.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
				tb.Fatal(err)
			}
			tb.Logf("loaded %d notes through PutNote in %v", c.rows, time.Since(t0).Round(time.Second))
		}
		db.Close()
		return func(tb testing.TB, pool int) (reader, reader) {
			store, db := sqliteNotes(tb, path, pool)
			return notesReaders(store, db)
		}
	}},
}

// sqliteNotes opens the adapter's database file at path with
// sqlite.Open (WAL, its pragmas) and sets its pool to at most pool
// connections, closed when tb ends.
func sqliteNotes(tb testing.TB, path string, pool int) (*sqlite.Store, *bun.DB) {
	tb.Helper()
	store, db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	tb.Cleanup(func() { db.Close() })
	return store, db
}

// loadSQLiteNotes puts n notes (see loadNote) through PutNote into the
// SQLite database db, in transactions of 10,000 notes, each through a
// store made with sqlite.New on it: a commit a note would wait for a
// sync each.
func loadSQLiteNotes(ctx context.Context, db *bun.DB, n int) error {
	const batch = 10_000
	for lo := 0; lo < n; lo += batch {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			store, err := sqlite.New(ctx, tx)
			if err != nil {
				return err
			}
			for i := lo; i < min(n, lo+batch); i++ {
				if err := store.PutNote(ctx, loadNote(i, n)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func mustBunpage(tb testing.TB, db *bun.DB) (reader, reader) {
	tb.Helper()
	b, r, err := bunpageReaders(db)
	if err != nil {
		tb.Fatal(err)
	}
	return b, r
}

// BenchmarkAgents loads each target's set, then, for each pool size,
// runs rounds of c.agents agents walking c.pages pages by cursor from
// starts spread over the set, through the store and through the raw
// keyset query alternately: see compare for the metrics. The starts'
// cursors are read once, by offset, before the timed rounds.
func BenchmarkAgents(b *testing.B) {
	c := loadConfig(b)
	ctx := context.Background()
	for _, tg := range targets {
		b.Run(fmt.Sprintf("%s/rows=%d", tg.name, c.rows), func(b *testing.B) {
			open := tg.setup(b, c)
			// Positions hold no connection: read once, for every pool.
			store, raw := open(b, 8)
			bPos, rPos, err := positions(ctx, c, store, raw)
			if err != nil {
				b.Fatal(err)
			}
			for _, pool := range tg.pools {
				b.Run(fmt.Sprintf("pool=%d", pool), func(b *testing.B) {
					store, raw := open(b, pool)
					compare(b, c, store, raw, bPos, rPos)
				})
			}
		})
	}
}

// BenchmarkSQLitePool runs the SQLite adapter's ListNotes walks (the
// adapter-sqlite target's set) on a pool of one connection, as
// sqlite.Open sets it, and on a pool of each size in
// BOUNDED_LOAD_READERS (default 2) read connections, alternately: the
// metrics of compare, "one" the pool of one, "pool" the larger one.
func BenchmarkSQLitePool(b *testing.B) {
	c := loadConfig(b)
	sizes := []int{2}
	if s := os.Getenv("BOUNDED_LOAD_READERS"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 2 {
				b.Fatalf("BOUNDED_LOAD_READERS=%q: want sizes of 2 or more, separated by commas", s)
			}
			sizes = append(sizes, n)
		}
	}
	i := slices.IndexFunc(targets, func(t target) bool { return t.name == "adapter-sqlite" })
	b.Run(fmt.Sprintf("rows=%d", c.rows), func(b *testing.B) {
		open := targets[i].setup(b, c)
		store, _ := open(b, 8)
		pos, err := seekAll(context.Background(), store, c.starts())
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range sizes {
			b.Run(fmt.Sprintf("readers=%d", n), func(b *testing.B) {
				one, _ := open(b, 1)
				pool, _ := open(b, n)
				compareNamed(b, c, [2]string{"one", "pool"}, one, pool, pos, pos)
			})
		}
	})
}

// TestAgentsAgree runs a small load on every target and checks that the
// store and the raw query read the same items for every agent, with a
// pool smaller than the number of agents.
func TestAgentsAgree(t *testing.T) {
	c := config{rows: 3_000, agents: 8, pages: 5}
	ctx := context.Background()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			if strings.HasPrefix(tg.name, "adapter-") && os.Getenv("BOUNDED_LOAD_KEEP") == "1" {
				t.Skip("BOUNDED_LOAD_KEEP=1 keeps benchmark sets, not this test's")
			}
			store, raw := tg.setup(t, c)(t, 2)
			if _, _, err := positions(ctx, c, store, raw); err != nil {
				t.Fatal(err)
			}
		})
	}
}
