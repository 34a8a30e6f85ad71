package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"database/sql"
	"database/sql/driver"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/conformance"
	bdriver "github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// dsnEnv names the environment variable holding the test database's
// address, e.g.
// BOUNDED_PG_DSN=postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const dsnEnv = "BOUNDED_PG_DSN"

// tb is the part of testing.T and conformance.TB that open uses.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Cleanup(func())
}

var (
	runID   = randomID()
	schemas atomic.Int64
	setup   sync.Once
	admin   *bun.DB
	errInit error
)

func randomID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// dsn returns the test database's address. Without BOUNDED_PG_DSN the test
// is skipped, or fails when CI=true.
func dsn(t tb) string {
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

// adminDB is a connection used to create and drop the tests' schemas.
func adminDB(t tb) *bun.DB {
	t.Helper()
	addr := dsn(t)
	setup.Do(func() {
		admin = bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(addr))), pgdialect.New())
		errInit = admin.Ping()
	})
	if errInit != nil {
		t.Fatalf("postgres: %v", errInit)
	}
	return admin
}

// newSchema creates a schema of its own for one store, dropped when t ends.
func newSchema(t tb) string {
	t.Helper()
	db := adminDB(t)
	name := fmt.Sprintf("bounded_test_%s_%d", runID, schemas.Add(1))
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			t.Fatalf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// openDB opens a bun.DB with the adapter's driver (postgres.OpenDB, as
// postgres.Open uses it) whose connections use a fresh schema, then public
// (for pg_trgm).
func openDB(t tb) *bun.DB {
	t.Helper()
	u, err := url.Parse(dsn(t))
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	q := u.Query()
	q.Set("search_path", newSchema(t)+",public")
	u.RawQuery = q.Encode()
	db, err := postgres.OpenDB(u.String())
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schemaConnector sets the search_path of every new connection of
// pgdriver (bun's own driver, which New accepts as well) to its schema,
// then public (where pg_trgm lives). pgdriver's WithConnParams cannot: it
// sends the value as one quoted string, a single schema name.
type schemaConnector struct {
	*pgdriver.Connector
	schema string
}

func (c schemaConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := cn.(driver.ExecerContext).ExecContext(ctx, "SET search_path TO "+c.schema+", public", nil); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

// openPgdriver opens a bun.DB with bun's pgdriver whose connections use a
// fresh schema, then public.
func openPgdriver(t tb) *bun.DB {
	t.Helper()
	db := bun.NewDB(sql.OpenDB(schemaConnector{pgdriver.NewConnector(pgdriver.WithDSN(dsn(t))), newSchema(t)}), pgdialect.New())
	t.Cleanup(func() { db.Close() })
	return db
}

// open opens a new, empty store in a schema of its own.
func open(t tb) *postgres.Store {
	t.Helper()
	s, err := postgres.New(context.Background(), openDB(t))
	if err != nil {
		t.Fatalf("%v", err)
	}
	return s
}

func TestDifferential(t *testing.T) {
	adaptertest.Differential(t, func(t *testing.T) adaptertest.Store { return open(t) })
}

// TestConformance runs the conformance suite on a fresh schema per
// subtest.
func TestConformance(t *testing.T) {
	dsn(t)
	conformance.Run(t, conformance.Harness{
		Name:    "postgres",
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

func TestInCallersTx(t *testing.T) {
	adaptertest.InTx(t, openDB(t), func(ctx context.Context, db bun.IDB) (adaptertest.Store, error) { return postgres.New(ctx, db) })
}

// TestPgTrgm checks the PgTrgm option against memrepo on ASCII names,
// where pg_trgm and ports.Similarity agree, inside and outside a caller's
// transaction, and that the caller's similarity_threshold is kept.
func TestPgTrgm(t *testing.T) {
	ctx := context.Background()
	// Created here once, in public (on every test connection's
	// search_path), so that stores do not race to create it.
	if _, err := adminDB(t).Exec("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err != nil {
		t.Fatalf("pg_trgm is needed by the PgTrgm option: %v", err)
	}
	db := openDB(t)
	s, err := postgres.New(ctx, db, postgres.PgTrgm())
	if err != nil {
		t.Fatal(err)
	}
	ref := memrepo.New()
	names := []string{"alpha", "Alpha Beta", "alphabet", "beta-gamma", "gamma ray", "a", "ab", "abc", "x y z", "foo_bar", "foo bar baz",
		"Alfa", "alpaca", "ALPHA-1", "al", "1st 2nd", "R2-D2", "C-3PO", "hello, world!", "it's", "50%"}
	for i, n := range names {
		e := ports.Entity{Name: n, Type: "t", UpdatedAt: time.Unix(int64(i), 0)}
		if err := ref.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("SET pg_trgm.similarity_threshold = 0.7"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	inTx, err := postgres.New(ctx, tx, postgres.PgTrgm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("SELECT set_config('pg_trgm.similarity_threshold', '0.6', true)"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"alpha", "alfa", "beta", "gamma", "a", "ab", "foo", "r2d2", "hello world", "zzz", "!!!", "ALPHA beta"} {
		for _, th := range []float64{0, 0.1, 0.25, 0.5, 1} {
			nq := ports.NodeQuery{Queries: []string{q, q + " x"}, Mode: ports.Fuzzy, Threshold: th}
			want, err := ref.SearchNodes(ctx, nq, bounded.Page{Limit: 5, Offset: 1})
			if err != nil {
				t.Fatal(err)
			}
			for name, st := range map[string]*postgres.Store{"db": s, "tx": inTx} {
				got, err := st.SearchNodes(ctx, nq, bounded.Page{Limit: 5, Offset: 1})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got, adaptertest.CursorAtPresence); d != "" {
					t.Errorf("%s: SearchNodes(%+v) (-memrepo +pg_trgm):\n%s", name, nq, d)
				}
			}
		}
	}
	var th string
	if err := tx.QueryRow("SHOW pg_trgm.similarity_threshold").Scan(&th); err != nil {
		t.Fatal(err)
	}
	if th != "0.6" {
		t.Errorf("caller's transaction: similarity_threshold is %s after SearchNodes, want 0.6", th)
	}
}

func TestSignedCursors(t *testing.T) {
	adaptertest.SignedCursors(t, func(t *testing.T, key []byte) (ports.Notes, ports.Notes, ports.Notes) {
		db := openDB(t)
		var stores []ports.Notes
		for _, opts := range [][]postgres.Option{{postgres.CursorKey(key)}, nil, {postgres.CursorKey([]byte("another key"))}} {
			s, err := postgres.New(t.Context(), db, opts...)
			if err != nil {
				t.Fatal(err)
			}
			stores = append(stores, s)
		}
		return stores[0], stores[1], stores[2]
	})
}

func TestRotatedCursors(t *testing.T) {
	adaptertest.RotatedCursors(t, func(t *testing.T, codecs ...bdriver.Codec) []ports.Notes {
		u, err := url.Parse(dsn(t))
		if err != nil {
			t.Fatalf("%s: %v", dsnEnv, err)
		}
		q := u.Query()
		q.Set("search_path", newSchema(t)+",public")
		u.RawQuery = q.Encode()
		var stores []ports.Notes
		for _, c := range codecs {
			db, err := postgres.OpenDB(u.String()) // a pool of its own
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			s, err := postgres.New(t.Context(), db, postgres.Cursors(c))
			if err != nil {
				t.Fatal(err)
			}
			stores = append(stores, s)
		}
		return stores
	})
}
