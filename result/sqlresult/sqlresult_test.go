package sqlresult_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/resulttest"
	"github.com/boundedkit/bounded/result/sqlresult"
)

// dsnEnv names the environment variable holding the test database's
// address, e.g.
// BOUNDED_PG_DSN=postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const dsnEnv = "BOUNDED_PG_DSN"

// pgDSN returns the test database's address. Without BOUNDED_PG_DSN the
// test is skipped, or fails when CI=true.
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
	runID   = strconv.FormatInt(time.Now().UnixNano(), 36)
	schemas atomic.Int64
)

// pgSchema creates a schema of its own, dropped when t ends, and returns
// the DSN whose connections use it.
func pgSchema(t testing.TB) string {
	t.Helper()
	dsn := pgDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("bounded_result_%s_%d", runID, schemas.Add(1))
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
		db.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// opened remembers how each store was opened, for a second instance.
var opened = map[result.Store]func(testing.TB) result.Store{}

func open(t testing.TB, f func() (*sqlresult.Store, error)) *sqlresult.Store {
	t.Helper()
	s, err := f()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sqliteHarness() resulttest.Harness {
	return resulttest.Harness{
		New: func(t testing.TB, q result.Quota) result.Store {
			path := filepath.Join(t.TempDir(), "results.db")
			s := open(t, func() (*sqlresult.Store, error) { return sqlresult.OpenSQLite(context.Background(), path, q) })
			opened[s] = func(t testing.TB) result.Store {
				return open(t, func() (*sqlresult.Store, error) { return sqlresult.OpenSQLite(context.Background(), path, q) })
			}
			return s
		},
		Share: func(t testing.TB, s result.Store) result.Store { return opened[s](t) },
	}
}

func postgresHarness() resulttest.Harness {
	return resulttest.Harness{
		New: func(t testing.TB, q result.Quota) result.Store {
			dsn := pgSchema(t)
			s := open(t, func() (*sqlresult.Store, error) { return sqlresult.OpenPostgres(context.Background(), dsn, q) })
			opened[s] = func(t testing.TB) result.Store {
				return open(t, func() (*sqlresult.Store, error) { return sqlresult.OpenPostgres(context.Background(), dsn, q) })
			}
			return s
		},
		Share: func(t testing.TB, s result.Store) result.Store { return opened[s](t) },
	}
}

func TestSQLite(t *testing.T) { resulttest.Run(t, sqliteHarness()) }

func TestPostgres(t *testing.T) {
	pgDSN(t)
	resulttest.Run(t, postgresHarness())
}
