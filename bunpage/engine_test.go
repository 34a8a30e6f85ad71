package bunpage_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// dsnEnv names the environment variable holding the Postgres test
// database's address.
const dsnEnv = "BOUNDED_PG_DSN"

// engine is a kind of database.
type engine struct {
	name string
	// create creates a fresh, empty database and returns it with the
	// function that closes and removes it. t skips or fails the test when
	// the engine cannot run.
	create func(t testing.TB) (db *bun.DB, remove func() error)
}

// open returns a fresh, empty database removed when t ends.
func (e engine) open(t testing.TB) *bun.DB {
	t.Helper()
	db, remove := e.create(t)
	t.Cleanup(func() {
		if err := remove(); err != nil {
			t.Errorf("%s: remove the test database: %v", e.name, err)
		}
	})
	return db
}

// engines are SQLite (a file in a temporary directory), Postgres (a
// schema of its own per database, in the database BOUNDED_PG_DSN names)
// and MariaDB or MySQL (a database of its own per database, on the server
// BOUNDED_MYSQL_DSN names). Without the variable an engine's subtests are
// skipped, or fail when CI=true.
var engines = []engine{{"sqlite", createSQLite}, {"postgres", createPostgres}, {"mysql", createMySQL}}

// forEngines runs f in a subtest per engine, each on a fresh database.
func forEngines(t *testing.T, f func(t *testing.T, db *bun.DB)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e.open(t)) })
	}
}

// openSQLite opens a new database file removed when t ends.
func openSQLite(t testing.TB) *bun.DB {
	t.Helper()
	return engines[0].open(t)
}

func createSQLite(t testing.TB) (*bun.DB, func() error) {
	t.Helper()
	dir, err := os.MkdirTemp("", "bunpage-test")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqliteOpen(filepath.Join(dir, "test.db"))
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	return db, func() error { return errors.Join(db.Close(), os.RemoveAll(dir)) }
}

// openSQLiteFile opens the database file at path, closed when t ends.
func openSQLiteFile(t testing.TB, path string) *bun.DB {
	t.Helper()
	db, err := sqliteOpen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sqliteOpen opens the database file at path with the driver sqliteshim
// picks, one connection, in WAL mode.
func sqliteOpen(path string) (*bun.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath()
	if sqliteshim.DriverName() == "sqlite3" { // mattn/go-sqlite3
		dsn += "?_journal_mode=WAL&_busy_timeout=5000"
	} else {
		dsn += "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)"
	}
	sqldb, err := sql.Open(sqliteshim.ShimName, dsn)
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(1)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// pgDSN returns BOUNDED_PG_DSN, skipping t without it (failing it when
// CI=true).
func pgDSN(t testing.TB) string {
	t.Helper()
	v := os.Getenv(dsnEnv)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the Postgres tests (e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", dsnEnv, dsnEnv)
		}
		t.Skipf("Postgres tests skipped: set %s (e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run them", dsnEnv, dsnEnv)
	}
	return v
}

var (
	// runID tells this run's schemas from other runs'.
	runID   = strconv.FormatInt(time.Now().UnixNano(), 36)
	schemas atomic.Int64
	pgAdmin struct {
		once sync.Once
		db   *bun.DB
		err  error
	}
)

// createPostgres creates a database whose connections use a new schema.
func createPostgres(t testing.TB) (*bun.DB, func() error) {
	t.Helper()
	dsn := pgDSN(t)
	pgAdmin.once.Do(func() {
		pgAdmin.db, pgAdmin.err = pgOpen(dsn)
		if pgAdmin.err == nil {
			pgAdmin.err = pgAdmin.db.Ping()
		}
	})
	if pgAdmin.err != nil {
		t.Fatalf("postgres: %v", pgAdmin.err)
	}
	schema := fmt.Sprintf("bunpage_test_%s_%d", runID, schemas.Add(1))
	if _, err := pgAdmin.db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := pgOpen(u.String())
	if err != nil {
		t.Fatal(err)
	}
	return db, func() error {
		_, err := pgAdmin.db.Exec("DROP SCHEMA " + schema + " CASCADE")
		return errors.Join(db.Close(), err)
	}
}

func pgOpen(dsn string) (*bun.DB, error) {
	sqldb, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// isPG reports whether db is Postgres.
func isPG(db bun.IDB) bool { return db.Dialect().Name().String() == "pg" }

// ddl adapts a CREATE statement written for SQLite to db: on Postgres,
// TEXT compares bytewise (COLLATE "C", as SQLite's BINARY does), REAL is
// double precision and TIMESTAMP has a time zone.
// On MariaDB, see mysqlDDL.
func ddl(db bun.IDB, stmt string) string {
	if isMySQL(db) {
		return mysqlDDL(stmt)
	}
	if !isPG(db) {
		return stmt
	}
	return strings.NewReplacer("TEXT", `TEXT COLLATE "C"`, "REAL", "DOUBLE PRECISION", "TIMESTAMP", "TIMESTAMPTZ", "INTEGER", "BIGINT").Replace(stmt)
}

// analyze returns the statement updating the planner's statistics of
// table on db.
func analyze(db bun.IDB, table string) string {
	switch {
	case isPG(db):
		return "VACUUM ANALYZE " + table
	case isMySQL(db):
		return "ANALYZE TABLE " + table
	}
	return "ANALYZE"
}

// exec runs statements on db, failing t on an error.
func exec(t testing.TB, db bun.IDB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// queryLog is a bun query hook recording every statement run.
type queryLog struct {
	mu      sync.Mutex
	queries []string
}

func (l *queryLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (l *queryLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	l.queries = append(l.queries, e.Query)
	l.mu.Unlock()
}

// take returns the statements run since the last call and forgets them.
func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queries
	l.queries = nil
	return q
}

// logged returns db with a query log.
func logged(db *bun.DB) (*bun.DB, *queryLog) {
	l := &queryLog{}
	return db.WithQueryHook(l), l
}
