package peerbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/pilagod/gorm-cursor-paginator/v2/paginator"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// event is a row of an activity log, read by bun and gorm alike, newest
// first.
type event struct {
	bun.BaseModel `bun:"table:events,alias:e" gorm:"-"`

	ID      int64     `bun:"id,pk" gorm:"column:id;primaryKey"`
	Kind    string    `bun:"kind,notnull" gorm:"column:kind"`
	Created time.Time `bun:"created,notnull" gorm:"column:created"`
	Title   string    `bun:"title,notnull" gorm:"column:title"`
	Body    string    `bun:"body,notnull" gorm:"column:body"`
}

// TableName names gorm's table.
func (event) TableName() string { return "events" }

// limit is the page size: an agent tool's usual default.
const limit = 20

// body is the start of every event's body, about 200 characters of
// French, Japanese, Russian and Greek.
var body = strings.Repeat("le serveur a redémarré après la mise à jour; 東京のサーバー再起動; ошибка в модуле; καθυστέρηση ", 2)

// events are n events, created 1.5 s apart, every third at the time of
// the one before: ids 1 to n, each with its creation time.
const (
	sqliteEvents = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
INSERT INTO events SELECT i, 'kind ' || (i % 8),
	strftime('%Y-%m-%d %H:%M:%S', 1672531200 + (i - i % 3 / 2) * 3 / 2, 'unixepoch')
		|| CASE (i - i % 3 / 2) % 2 WHEN 1 THEN '.5' ELSE '' END || '+00:00',
	'event ' || i, ? || i FROM s`
	pgEvents = `INSERT INTO events SELECT i, 'kind ' || (i % 8),
	timestamptz '2023-01-01 00:00:00+00' + (i - i % 3 / 2) * interval '1.5 second',
	'event ' || i, ? || i FROM generate_series(1, ?) AS i`
)

// engine opens a database of events, bun and gorm over the same
// connections.
type engine struct {
	name string
	open func(b *testing.B) (*sql.DB, *bun.DB, gorm.Dialector)
	// ddl creates the table; load inserts n events; analyze updates the
	// planner's statistics.
	ddl, load, analyze string
}

var engines = []engine{
	{"sqlite", openSQLite,
		"CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, created TIMESTAMP NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL)",
		sqliteEvents, "ANALYZE"},
	{"postgres", openPG,
		`CREATE TABLE events (id BIGINT PRIMARY KEY, kind TEXT COLLATE "C" NOT NULL, created TIMESTAMPTZ NOT NULL, title TEXT COLLATE "C" NOT NULL, body TEXT COLLATE "C" NOT NULL)`,
		pgEvents, "VACUUM ANALYZE events"},
}

// removes undo what the engines opened; TestMain runs them.
var removes []func() error

func TestMain(m *testing.M) {
	code := m.Run()
	for _, remove := range slices.Backward(removes) {
		if err := remove(); err != nil {
			fmt.Fprintln(os.Stderr, "peerbench: remove a database:", err)
		}
	}
	os.Exit(code)
}

// openSQLite opens a new database file with one connection in WAL mode,
// SQLite's driver as sqliteshim picks it (mattn/go-sqlite3 with cgo, as
// gorm's driver).
func openSQLite(b *testing.B) (*sql.DB, *bun.DB, gorm.Dialector) {
	dir, err := os.MkdirTemp("", "peerbench")
	if err != nil {
		b.Fatal(err)
	}
	removes = append(removes, func() error { return os.RemoveAll(dir) })
	sqldb, err := sql.Open(sqliteshim.ShimName, "file:"+filepath.Join(dir, "events.db"))
	if err != nil {
		b.Fatal(err)
	}
	sqldb.SetMaxOpenConns(1)
	removes = append(removes, sqldb.Close)
	if _, err := sqldb.Exec("PRAGMA journal_mode = WAL"); err != nil {
		b.Fatal(err)
	}
	return sqldb, bun.NewDB(sqldb, sqlitedialect.New()), sqlite.New(sqlite.Config{Conn: sqldb})
}

// openPG opens a new schema of the database BOUNDED_PG_DSN names, with
// pgx's database/sql driver, or skips b without it.
func openPG(b *testing.B) (*sql.DB, *bun.DB, gorm.Dialector) {
	dsn := os.Getenv("BOUNDED_PG_DSN")
	if dsn == "" {
		b.Skip("set BOUNDED_PG_DSN to run on Postgres")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	schema := "peerbench_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		b.Fatal(err)
	}
	removes = append(removes, func() error {
		_, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		return errors.Join(err, admin.Close())
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	sqldb, err := sql.Open("pgx", dsn+sep+"search_path="+schema)
	if err != nil {
		b.Fatal(err)
	}
	removes = append(removes, sqldb.Close)
	return sqldb, bun.NewDB(sqldb, pgdialect.New()), postgres.New(postgres.Config{Conn: sqldb})
}

// dbs are the databases loaded, by engine and size, kept for -count.
var dbs = map[string]*dbPair{}

type dbPair struct {
	bun  *bun.DB
	gorm *gorm.DB
}

// load returns a database of e holding n events, loading it on first use.
func load(b *testing.B, e engine, n int) *dbPair {
	key := fmt.Sprint(e.name, n)
	if p := dbs[key]; p != nil {
		return p
	}
	_, db, dialector := e.open(b)
	ctx := context.Background()
	start := time.Now()
	load := []any{n, body}
	if e.name == "postgres" {
		load = []any{body, n}
	}
	for _, s := range []struct {
		query string
		args  []any
	}{{e.ddl, nil}, {e.load, load}, {"CREATE INDEX events_created_id ON events (created, id)", nil}, {e.analyze, nil}} {
		if _, err := db.ExecContext(ctx, s.query, s.args...); err != nil {
			b.Fatalf("%s: %v", s.query, err)
		}
	}
	b.Logf("%s: loaded %d events in %v", e.name, n, time.Since(start).Round(time.Second))
	gdb, err := gorm.Open(dialector, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		b.Fatal(err)
	}
	dbs[key] = &dbPair{db, gdb}
	return dbs[key]
}

// rows is the number of events: BOUNDED_BENCH_ROWS, or 10,000.
func rows(b *testing.B) int {
	v := os.Getenv("BOUNDED_BENCH_ROWS")
	if v == "" {
		return 10_000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1000 {
		b.Fatalf("BOUNDED_BENCH_ROWS=%q: want 1000 or more", v)
	}
	return n
}

// BenchmarkPeers reads pages of 20 events newest first (created, id,
// both descending, an index on (created, id)), out of rows(b) events:
// the first page
// ("page0"), and the page after the event 90% deep ("deep"), each side
// by side in one run:
//
//   - plain: the hand-written bun query, ORDER BY created DESC, id DESC
//     LIMIT 21, after the cursor WHERE (created, id) < (?, ?);
//   - plain-count: plain, then a capped count, SELECT count(*) FROM
//     (SELECT 1 FROM events LIMIT 201);
//   - bunpage: bunpage.New with no count; capped: with its capped count
//     (the same cap, in the page's statement);
//   - gorm: gorm-cursor-paginator as configured by default, whose keyset
//     is created < ? OR created = ? AND id < ?;
//   - gorm-tuple: the paginator with AllowTupleCmp, (created, id) < ?;
//     gorm-tuple-count: then gorm's capped count.
//
// It reports each variant's median time and the ratios of the medians.
// The page after the cursor by gorm's default keyset, which reads the
// index from its start, runs apart ("deep-gorm"), with plain and bunpage.
func BenchmarkPeers(b *testing.B) {
	ctx := context.Background()
	n := rows(b)
	for _, e := range engines {
		b.Run(fmt.Sprintf("%s/rows=%d", e.name, n), func(b *testing.B) {
			db := load(b, e, n)
			var deep event
			if err := db.bun.NewSelect().Model(&deep).Where("id = ?", n-n*9/10).Scan(ctx); err != nil {
				b.Fatal(err)
			}
			b.Run("page0", func(b *testing.B) { race(ctx, b, variants(b, db, nil), pairs) })
			// gorm's default keyset reads the index from its start, a
			// thousand times as long as a page: it runs apart, as it
			// slows the variants that follow it unevenly.
			vs := variants(b, db, &deep)
			slow := slices.IndexFunc(vs, func(v variant) bool { return v.name == "gorm" })
			b.Run("deep", func(b *testing.B) { race(ctx, b, slices.Delete(slices.Clone(vs), slow, slow+1), pairs) })
			b.Run("deep-gorm", func(b *testing.B) {
				race(ctx, b, []variant{vs[0], vs[1], vs[slow]}, [][2]string{{"gorm", "plain"}, {"bunpage", "gorm"}})
			})
		})
	}
}

// variants are the ways of reading the page after the event at (the
// first page for nil).
func variants(b *testing.B, db *dbPair, at *event) []variant {
	src, err := bunpage.New(db.bun, db.bun.NewSelect().Model((*event)(nil)),
		bunpage.Col("created", func(e event) time.Time { return e.Created }).Desc(),
		bunpage.Col("id", func(e event) int64 { return e.ID }).Desc().Unique())
	if err != nil {
		b.Fatal(err)
	}
	countCap := bounded.DefaultCountCap(limit)
	r := driver.Request{Limit: limit, Count: bounded.CountNone}
	rules := []paginator.Rule{{Key: "Created"}, {Key: "ID"}}
	var after string
	if at != nil {
		r.At = &driver.Cursor{Keys: []any{at.Created.UnixMicro(), at.ID}}
		if after, err = paginator.New(&paginator.Config{Rules: rules}).GetCursorEncoder().Encode(at); err != nil {
			b.Fatal(err)
		}
	}
	fetch := func(r driver.Request) func(ctx context.Context) ([]int64, error) {
		return func(ctx context.Context) ([]int64, error) {
			rows, err := src.Fetch(ctx, r)
			return ids(rows.Items), err
		}
	}
	capped := r
	capped.Count = bounded.CountCapped
	plain := func(ctx context.Context) ([]int64, error) {
		var evs []event
		q := db.bun.NewSelect().Model(&evs).OrderExpr("created DESC, id DESC").Limit(limit + 1)
		if at != nil {
			q = q.Where("(created, id) < (?, ?)", at.Created, at.ID)
		}
		err := q.Scan(ctx)
		return ids(evs[:min(len(evs), limit)]), err
	}
	gormPage := func(tuple paginator.Flag) func(ctx context.Context) ([]int64, error) {
		return func(ctx context.Context) ([]int64, error) {
			var evs []event
			p := paginator.New(&paginator.Config{Rules: rules, Limit: limit, Order: paginator.DESC, After: after, AllowTupleCmp: tuple})
			_, _, err := p.Paginate(db.gorm.WithContext(ctx), &evs)
			return ids(evs), err
		}
	}
	return []variant{
		{"bunpage", fetch(r)},
		{"plain", plain},
		{"plain-count", func(ctx context.Context) ([]int64, error) {
			page, err := plain(ctx)
			if err == nil {
				_, err = db.bun.NewSelect().TableExpr("(?) AS c", db.bun.NewSelect().Table("events").ColumnExpr("1").Limit(int64(countCap)+1)).Count(ctx)
			}
			return page, err
		}},
		{"capped", fetch(capped)},
		{"gorm", gormPage(paginator.FALSE)},
		{"gorm-tuple", gormPage(paginator.TRUE)},
		{"gorm-tuple-count", func(ctx context.Context) ([]int64, error) {
			page, err := gormPage(paginator.TRUE)(ctx)
			if err == nil {
				var n int64
				g := db.gorm.WithContext(ctx)
				err = g.Table("(?) AS c", g.Table("events").Select("1").Limit(countCap+1)).Count(&n).Error
			}
			return page, err
		}},
	}
}

// pairs are the ratios reported of the variants.
var pairs = [][2]string{
	{"bunpage", "plain"}, {"gorm", "plain"}, {"gorm-tuple", "plain"},
	{"bunpage", "gorm"}, {"bunpage", "gorm-tuple"},
	{"capped", "bunpage"}, {"capped", "plain-count"}, {"capped", "gorm-tuple-count"},
}

func ids(evs []event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// variant is one way of reading a page, returning the ids read.
type variant struct {
	name string
	read func(ctx context.Context) ([]int64, error)
}

// race checks that the variants read the same page of limit events, then
// runs them in a new random order at every iteration and reports each
// one's median in µs (the first one's as ns/op too) and the ratios of
// the medians of pairs, of those that ran.
func race(ctx context.Context, b *testing.B, vs []variant, pairs [][2]string) {
	var want []int64
	for i, v := range vs {
		got, err := v.read(ctx)
		switch {
		case err != nil:
			b.Fatalf("%s: %v", v.name, err)
		case i == 0 && len(got) != limit:
			b.Fatalf("%s read %d events, want %d", v.name, len(got), limit)
		case i == 0:
			want = got
		case !slices.Equal(got, want):
			b.Fatalf("%s read %v, %s %v", v.name, got, vs[0].name, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	took := make(map[string][]time.Duration, len(vs))
	for b.Loop() {
		for _, i := range rng.Perm(len(vs)) {
			start := time.Now()
			if _, err := vs[i].read(ctx); err != nil {
				b.Fatal(err)
			}
			took[vs[i].name] = append(took[vs[i].name], time.Since(start))
		}
	}
	med := make(map[string]float64, len(vs))
	for name, d := range took {
		slices.Sort(d)
		med[name] = float64(d[len(d)/2])
		b.ReportMetric(med[name]/1e3, name+"-us")
	}
	b.ReportMetric(med[vs[0].name], "ns/op")
	for _, p := range pairs {
		if med[p[0]] > 0 && med[p[1]] > 0 {
			b.ReportMetric(med[p[0]]/med[p[1]], p[0]+"/"+p[1])
		}
	}
}
