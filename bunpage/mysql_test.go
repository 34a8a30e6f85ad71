package bunpage_test

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded/boundedtest"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/go-sql-driver/mysql"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// mysqlDSNEnv names the environment variable holding the MariaDB or MySQL
// test database's address, in the go-sql-driver/mysql format.
const mysqlDSNEnv = "BOUNDED_MYSQL_DSN"

// mysqlExample is an address to show in the messages about mysqlDSNEnv.
const mysqlExample = "root@tcp(127.0.0.1:3306)/test?parseTime=true"

// mysqlCollation is the collation of the test schema's strings: bytewise,
// as Go and the other engines compare them, without the trailing-space
// padding of utf8mb4_bin. MySQL 8 names it utf8mb4_0900_bin.
const mysqlCollation = "utf8mb4_nopad_bin"

// mysqlDSN returns BOUNDED_MYSQL_DSN, skipping t without it (failing it
// when CI=true).
func mysqlDSN(t testing.TB) string {
	t.Helper()
	v := os.Getenv(mysqlDSNEnv)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the MariaDB tests (e.g. %s=%s)", mysqlDSNEnv, mysqlDSNEnv, mysqlExample)
		}
		t.Skipf("MariaDB/MySQL tests skipped: set %s (e.g. %s=%s) to run them", mysqlDSNEnv, mysqlDSNEnv, mysqlExample)
	}
	return v
}

var mysqlAdmin struct {
	once sync.Once
	db   *bun.DB
	err  error
}

// createMySQL creates a database (a MySQL schema) of its own, whose
// strings compare bytewise by default.
func createMySQL(t testing.TB) (*bun.DB, func() error) {
	t.Helper()
	dsn := mysqlDSN(t)
	mysqlAdmin.once.Do(func() {
		mysqlAdmin.db, mysqlAdmin.err = mysqlOpen(dsn, "")
		if mysqlAdmin.err == nil {
			mysqlAdmin.err = mysqlAdmin.db.Ping()
		}
	})
	if mysqlAdmin.err != nil {
		t.Fatalf("mysql: %v", mysqlAdmin.err)
	}
	name := fmt.Sprintf("bunpage_test_%s_%d", runID, schemas.Add(1))
	if _, err := mysqlAdmin.db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE " + mysqlCollation); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db, err := mysqlOpen(dsn, name)
	if err != nil {
		t.Fatal(err)
	}
	return db, func() error {
		_, err := mysqlAdmin.db.Exec("DROP DATABASE " + name)
		return errors.Join(db.Close(), err)
	}
}

// mysqlOpen opens the database name (the DSN's own when empty) at dsn,
// reading DATETIME columns as UTC times.
func mysqlOpen(dsn, name string) (*bun.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mysqlDSNEnv, err)
	}
	if name != "" {
		cfg.DBName = name
	}
	cfg.ParseTime, cfg.Loc = true, time.UTC
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return bun.NewDB(sql.OpenDB(conn), mysqldialect.New()), nil
}

// isMySQL reports whether db is MariaDB or MySQL.
func isMySQL(db bun.IDB) bool { return db.Dialect().Name() == dialect.MySQL }

// mysqlDDL adapts a CREATE statement written for SQLite to MariaDB:
// strings are VARCHARs (TEXT cannot be indexed whole) that compare
// bytewise, REAL is DOUBLE, TIMESTAMP a DATETIME with microseconds (read
// and written as UTC) and INTEGER a BIGINT.
func mysqlDDL(stmt string) string {
	return strings.NewReplacer("TEXT", "VARCHAR(255) COLLATE "+mysqlCollation, "REAL", "DOUBLE",
		"TIMESTAMP", "DATETIME(6)", "INTEGER", "BIGINT").Replace(stmt)
}

// checkMySQLPlan checks MariaDB's (or MySQL's) plan of a page: a table
// read through one of indexes (a range when ranged: the index entered at
// the cursor), no full table scan, no filesort, no temporary table.
func checkMySQLPlan(t *testing.T, name string, db *bun.DB, query string, indexes []string, ranged bool) {
	t.Helper()
	steps, err := bunpage.MySQLPlan(context.Background(), db, query)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	uses := false
	for _, step := range steps {
		lines = append(lines, fmt.Sprintf("%s %s key=%s rows=%s %s", step["table"], step["type"], step["key"], step["rows"], step["extra"]))
		if step["type"] == "ALL" || strings.Contains(step["extra"], "filesort") || strings.Contains(step["extra"], "temporary") {
			defer t.Errorf("%s: step %q scans the table or sorts", name, lines[len(lines)-1])
		}
		if slices.Contains(indexes, step["key"]) && (!ranged || step["type"] == "range") {
			uses = true
		}
	}
	if !uses {
		t.Errorf("%s: no step reads %s (ranged: %v):\n%s\n%s", name, indexes, ranged, strings.Join(lines, "\n"), query)
	}
}

// word is a row of the collation test.
type word struct {
	bun.BaseModel `bun:"table:words"`

	ID   int64  `bun:"id,pk"`
	Word string `bun:"word"`
}

// collationWords are strings that collations order differently: case,
// accents, ß, a trailing space or tab, a backslash and a quote (which the
// MySQL dialect escapes), characters outside the BMP, the empty string.
var collationWords = []string{"a", "a ", "a\t", "A", "á", "b", "B", `a\`, `a\'`, "ß", "ss", "Ærø", "émile", "東京", "😀", "🙂", "", " ", "z"}

// TestMySQLCollations pages words, each twice (ties broken by the id),
// under MariaDB's collations with boundedtest.TestSource, against the
// order the database itself returns in one statement: every collation
// pages consistently, as the ORDER BY and the keyset compare alike. Only
// the binary one without pad space orders as Go and the other engines
// do, bytewise; the others tie "a" and "a " (pad space), "a" and "A"
// (case), or "😀" and "🙂" (general_ci), which is why the test schema,
// and bunpage's doc, choose utf8mb4_nopad_bin.
func TestMySQLCollations(t *testing.T) {
	db := engineNamed("mysql").open(t)
	ctx := t.Context()
	var words []word
	for i, w := range collationWords {
		words = append(words, word{ID: int64(i + 1), Word: w}, word{ID: int64(i + 101), Word: w})
	}
	goOrder := slices.Clone(words)
	slices.SortFunc(goOrder, func(a, b word) int {
		return cmp.Or(strings.Compare(a.Word, b.Word), cmp.Compare(a.ID, b.ID))
	})
	for _, c := range []struct {
		collation string
		bytewise  bool
	}{
		{"utf8mb4_nopad_bin", true},
		{"utf8mb4_bin", false},
		{"utf8mb4_general_ci", false},
		{"utf8mb4_unicode_520_ci", false},
	} {
		t.Run(c.collation, func(t *testing.T) {
			exec(t, db, "DROP TABLE IF EXISTS words",
				"CREATE TABLE words (id BIGINT PRIMARY KEY, word VARCHAR(64) CHARACTER SET utf8mb4 COLLATE "+c.collation+" NOT NULL)")
			if _, err := db.NewInsert().Model(&words).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			var dbOrder []word
			if err := db.NewSelect().Model(&dbOrder).OrderExpr("word, id").Scan(ctx); err != nil {
				t.Fatal(err)
			}
			byID := func(ws []word) []int64 {
				out := make([]int64, len(ws))
				for i, w := range ws {
					out[i] = w.ID
				}
				return out
			}
			if same := slices.Equal(byID(dbOrder), byID(goOrder)); same != c.bytewise {
				t.Errorf("the database's order is Go's: %v, want %v; ids (-go +database):\n%s", same, c.bytewise, gocmp.Diff(byID(goOrder), byID(dbOrder)))
			}
			src, err := bunpage.New(db, db.NewSelect().Model((*word)(nil)),
				bunpage.Col("word", func(w word) string { return w.Word }),
				bunpage.Col("id", func(w word) int64 { return w.ID }).Unique())
			if err != nil {
				t.Fatal(err)
			}
			boundedtest.TestSource(t, src, dbOrder)
		})
	}
}

// engineNamed returns the engine called name.
func engineNamed(name string) engine {
	for _, e := range engines {
		if e.name == name {
			return e
		}
	}
	panic("no engine " + name)
}
