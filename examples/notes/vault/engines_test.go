package vault_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
)

// engine opens an empty database holding a store and a manifest.
type engine struct {
	name  string
	open  func(t *testing.T) *bun.DB
	store func(ctx context.Context, db bun.IDB) (ports.Notes, error)
}

// engines are SQLite, in a file of t.TempDir(), and Postgres, in a schema
// of its own of the database BOUNDED_PG_DSN names.
var engines = []engine{
	{"sqlite", openSQLite, func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return sqlite.New(ctx, db) }},
	{"postgres", openPostgres, func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return postgres.New(ctx, db) }},
}

func openSQLite(t *testing.T) *bun.DB {
	t.Helper()
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "vault.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var schemas atomic.Int64

func openPostgres(t *testing.T) *bun.DB {
	t.Helper()
	const env = "BOUNDED_PG_DSN"
	dsn := os.Getenv(env)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the Postgres tests", env)
		}
		t.Skipf("Postgres skipped: set %s (e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run it", env, env)
	}
	admin, err := postgres.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("bounded_vault_test_%d_%d", time.Now().UnixNano(), schemas.Add(1))
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := postgres.OpenDB(u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return db
}

// importer returns an importer into the store of e on db, with batches of
// batch files.
func (e engine) importer(db bun.IDB, batch int) *vault.Importer {
	return &vault.Importer{DB: db, BatchSize: batch,
		Store: func(ctx context.Context, tx bun.Tx) (ports.Notes, error) { return e.store(ctx, tx) }}
}

// forEngines runs f for each engine, as a subtest.
func forEngines(t *testing.T, f func(t *testing.T, e engine)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}
