package mysql_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/mysql"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// dsnEnv names the environment variable holding the test server's
// address, in go-sql-driver/mysql's format.
const dsnEnv = "BOUNDED_MYSQL_DSN"

// example is an address to show in the messages about dsnEnv.
const example = "root@tcp(127.0.0.1:3306)/test?parseTime=true"

// tb is the part of testing.T and conformance.TB that the helpers use.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Cleanup(func())
}

var (
	runID     = randomID()
	databases atomic.Int64
	setup     sync.Once
	admin     *bun.DB
	errInit   error
)

func randomID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// dsn returns the test server's address. Without BOUNDED_MYSQL_DSN the
// test is skipped, or fails when CI=true.
func dsn(t tb) string {
	t.Helper()
	v := os.Getenv(dsnEnv)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the MariaDB tests (e.g. %s=%s)", dsnEnv, dsnEnv, example)
		}
		t.Skipf("MariaDB tests skipped: set %s (e.g. %s=%s) to run them", dsnEnv, dsnEnv, example)
	}
	return v
}

// adminDB is a connection used to create and drop the tests' databases.
func adminDB(t tb) *bun.DB {
	t.Helper()
	addr := dsn(t)
	setup.Do(func() {
		cfg, err := gomysql.ParseDSN(addr)
		if err != nil {
			errInit = fmt.Errorf("%s: %w", dsnEnv, err)
			return
		}
		conn, err := gomysql.NewConnector(cfg)
		if err != nil {
			errInit = err
			return
		}
		admin = bun.NewDB(sql.OpenDB(conn), mysqldialect.New())
		errInit = admin.Ping()
	})
	if errInit != nil {
		t.Fatalf("mysql: %v", errInit)
	}
	return admin
}

// free holds the tests' databases not in use, emptied: creating a
// database and the store's schema takes half a second, emptying one a few
// milliseconds.
var free struct {
	sync.Mutex
	names []string
	all   []string
}

// newDatabase returns the address of a database of its own for one test,
// empty (its tables, if it has any, hold no rows), emptied and put back
// for another test when t ends; TestMain drops them. Its default
// collation is the server's case-insensitive utf8mb4_general_ci, on
// purpose: the store's tables name their own.
func newDatabase(t tb) string {
	t.Helper()
	db := adminDB(t)
	free.Lock()
	var name string
	if n := len(free.names); n > 0 {
		name, free.names = free.names[n-1], free.names[:n-1]
	} else {
		name = fmt.Sprintf("bounded_test_%s_%d", runID, databases.Add(1))
		free.all = append(free.all, name)
	}
	free.Unlock()
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := empty(db, name); err != nil {
			t.Fatalf("empty database %s: %v", name, err)
		}
		free.Lock()
		free.names = append(free.names, name)
		free.Unlock()
	})
	cfg, err := gomysql.ParseDSN(dsn(t))
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	cfg.DBName = name
	return cfg.FormatDSN()
}

// freshDatabase returns the address of a new database, with no tables,
// dropped when t ends.
func freshDatabase(t tb) string {
	t.Helper()
	db := adminDB(t)
	name := fmt.Sprintf("bounded_fresh_%s_%d", runID, databases.Add(1))
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + name); err != nil {
			t.Fatalf("drop database %s: %v", name, err)
		}
	})
	cfg, err := gomysql.ParseDSN(dsn(t))
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	cfg.DBName = name
	return cfg.FormatDSN()
}

// empty deletes every row of the database name's tables.
func empty(db *bun.DB, name string) error {
	var tables []string
	if err := db.NewRaw("SELECT table_name FROM information_schema.tables WHERE table_schema = ?", name).Scan(context.Background(), &tables); err != nil {
		return err
	}
	for _, table := range tables {
		if _, err := db.Exec("DELETE FROM " + name + "." + table); err != nil {
			return err
		}
	}
	return nil
}

// TestMain drops the tests' databases after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, name := range free.all {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			fmt.Fprintf(os.Stderr, "drop database %s: %v\n", name, err)
			code = 1
		}
	}
	os.Exit(code)
}

// openDB opens a bun.DB on a new database, as mysql.Open sets it up.
func openDB(t tb) *bun.DB {
	t.Helper()
	db, err := mysql.OpenDB(newDatabase(t))
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// open opens a new, empty store in a database of its own.
func open(t tb) *mysql.Store {
	t.Helper()
	s, err := mysql.New(context.Background(), openDB(t))
	if err != nil {
		t.Fatalf("%v", err)
	}
	return s
}

func TestDifferential(t *testing.T) {
	adaptertest.Differential(t, func(t *testing.T) adaptertest.Store { return open(t) })
}

// TestConformance runs the conformance suite on a new database per
// subtest.
func TestConformance(t *testing.T) {
	dsn(t)
	conformance.Run(t, conformance.Harness{
		Name:    "mysql",
		Cursors: true,
		New: func(t conformance.TB) conformance.Store {
			s := open(t)
			return conformance.Store{Notes: s, Knowledge: s, History: s, Code: s}
		},
	})
}

func TestHostileInput(t *testing.T) {
	adaptertest.Hostile(t, func(t *testing.T) adaptertest.Store { return open(t) })
}

func TestHugeBody(t *testing.T) {
	adaptertest.HugeBody(t, func(t *testing.T) adaptertest.Store { return open(t) })
}

// TestInCallersTx runs the store inside a caller's transaction. The
// schema is created first, by a store on the database: MariaDB commits a
// transaction at any DDL, so New on a bun.Tx creates nothing.
func TestInCallersTx(t *testing.T) {
	db := openDB(t)
	if _, err := mysql.New(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	adaptertest.InTx(t, db, func(ctx context.Context, db bun.IDB) (adaptertest.Store, error) { return mysql.New(ctx, db) })
}

// TestNewInTxNeedsSchema checks that New on a transaction, with no schema
// to find, fails saying so and leaves the transaction open.
func TestNewInTxNeedsSchema(t *testing.T) {
	db, err := mysql.OpenDB(freshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := mysql.New(t.Context(), tx); err == nil || !strings.Contains(err.Error(), "schema is missing") {
		t.Errorf("New on a transaction without the schema: %v, want an error saying the schema is missing", err)
	}
	if _, err := tx.Exec("SELECT 1"); err != nil {
		t.Errorf("the transaction is unusable after New: %v", err)
	}
}

// TestSessionChecks checks that New refuses the session settings that
// would change results, naming them, and that Open sets max_sort_length.
func TestSessionChecks(t *testing.T) {
	ctx := t.Context()
	for _, c := range []struct{ set, want string }{
		{"SET SESSION max_sort_length = 1024", "max_sort_length is 1024"},
		{"SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')", "NO_BACKSLASH_ESCAPES"},
	} {
		db := openDB(t)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, c.set); err != nil {
			t.Fatal(err)
		}
		if _, err := mysql.New(ctx, conn); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New: %v, want an error containing %q", c.set, err, c.want)
		}
		conn.Close()
	}
	var n int
	if err := openDB(t).QueryRow("SELECT @@SESSION.max_sort_length").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != mysql.MinSortLength {
		t.Errorf("OpenDB's max_sort_length is %d, want %d", n, mysql.MinSortLength)
	}
}

func TestSignedCursors(t *testing.T) {
	adaptertest.SignedCursors(t, func(t *testing.T, key []byte) (ports.Notes, ports.Notes, ports.Notes) {
		db := openDB(t)
		var stores []ports.Notes
		for _, opts := range [][]mysql.Option{{mysql.CursorKey(key)}, nil, {mysql.CursorKey([]byte("another key"))}} {
			s, err := mysql.New(t.Context(), db, opts...)
			if err != nil {
				t.Fatal(err)
			}
			stores = append(stores, s)
		}
		return stores[0], stores[1], stores[2]
	})
}

func TestRotatedCursors(t *testing.T) {
	adaptertest.RotatedCursors(t, func(t *testing.T, codecs ...driver.Codec) []ports.Notes {
		addr := newDatabase(t)
		var stores []ports.Notes
		for _, c := range codecs {
			s, db, err := mysql.Open(t.Context(), addr, mysql.Cursors(c)) // a pool of its own
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			stores = append(stores, s)
		}
		return stores
	})
}

func TestTrigramMigration(t *testing.T) {
	adaptertest.TrigramMigration(t, openDB(t), mysql.Dialect.Text, func(db *bun.DB) (ports.Knowledge, error) { return mysql.New(context.Background(), db) })
}

// TestContextErrors checks that the error of Open and of every method
// wraps the call's context's when the context is canceled or expires
// before or during the call.
func TestContextErrors(t *testing.T) {
	addr := newDatabase(t)
	n, calls := adaptertest.ContextErrors(t, open(t), func(ctx context.Context) (*bun.DB, error) {
		_, db, err := mysql.Open(ctx, addr)
		return db, err
	})
	t.Logf("%d of %d calls ended with the context's error", n, calls)
}
