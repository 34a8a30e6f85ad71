package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// nrow is a row of the keyset test table: a nullable number, a nullable
// text, and the id.
type nrow struct {
	ID string
	N  *int64
	S  *string
}

func (r nrow) keys() []any {
	var n, s any
	if r.N != nil {
		n = *r.N
	}
	if r.S != nil {
		s = *r.S
	}
	return []any{n, s, r.ID}
}

// keysetDBs are the engines the test runs on: SQLite in a temporary file
// (twice: with the row-value keyset and with the expanded one of
// [Dialect.ExpandKeyset]), Postgres when BOUNDED_PG_DSN is set and
// MariaDB when BOUNDED_MYSQL_DSN is.
func keysetDBs(t *testing.T) map[string]*bun.DB {
	dbs := map[string]*bun.DB{}
	sqldb, err := sql.Open(sqliteshim.ShimName, "file:"+filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqldb.SetMaxOpenConns(1)
	dbs["sqlite"] = bun.NewDB(sqldb, sqlitedialect.New())
	sqldb, err = sql.Open(sqliteshim.ShimName, "file:"+filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqldb.SetMaxOpenConns(1)
	dbs["sqlite-expanded"] = bun.NewDB(sqldb, sqlitedialect.New())
	if dsn := os.Getenv("BOUNDED_PG_DSN"); dsn != "" {
		pg := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		pg.SetMaxOpenConns(1) // the temporary table lives on one connection
		dbs["postgres"] = bun.NewDB(pg, pgdialect.New())
	}
	if dsn := os.Getenv("BOUNDED_MYSQL_DSN"); dsn != "" {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		my := sql.OpenDB(conn)
		my.SetMaxOpenConns(1)
		dbs["mysql"] = bun.NewDB(my, mysqldialect.New())
	}
	for _, db := range dbs {
		t.Cleanup(func() { db.Close() })
	}
	return dbs
}

// TestNullableKeys pages a table whose sort keys hold NULLs, in every
// direction, forward and backward by cursor, and compares each walk with
// the order driver.CompareKeys defines (NULLs last whatever the
// direction).
func TestNullableKeys(t *testing.T) {
	ctx := context.Background()
	var rows []nrow
	for i := range 23 {
		r := nrow{ID: fmt.Sprintf("r%02d", i)}
		if i%3 != 0 {
			n := int64(i % 4)
			r.N = &n
		}
		if i%4 != 1 {
			s := string(rune('a' + i%3))
			r.S = &s
		}
		rows = append(rows, r)
	}
	for name, db := range keysetDBs(t) {
		t.Run(name, func(t *testing.T) {
			text := map[string]string{"postgres": `TEXT COLLATE "C"`, "mysql": "VARBINARY(64)"}[name]
			if text == "" {
				text = "TEXT"
			}
			if _, err := db.ExecContext(ctx, "CREATE TEMPORARY TABLE keyset_t (id "+text+" NOT NULL PRIMARY KEY, n BIGINT, s "+text+")"); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if _, err := db.ExecContext(ctx, "INSERT INTO keyset_t VALUES (?, ?, ?)", r.ID, r.N, r.S); err != nil {
					t.Fatal(err)
				}
			}
			st := &Store{db: db, d: Dialect{Name: name, ExpandKeyset: name != "sqlite" && name != "postgres", CaseNulls: name == "mysql"}}
			for _, dirs := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				desc := []bool{dirs[0], dirs[1], false}
				o := ports.Order[nrow]{Desc: desc, Keys: nrow.keys}
				want := slices.Clone(rows)
				slices.SortFunc(want, o.Compare)
				q := paged{
					count: st.from("keyset_t AS k", ""),
					page: func(c clauses) *bun.SelectQuery {
						return c.apply(st.from("keyset_t AS k", "").ColumnExpr("k.id AS id, k.n AS n, k.s AS s"))
					},
					keys: []key{{inner: "k.n", outer: "p.n", desc: dirs[0], num: true, nullable: true},
						{inner: "k.s", outer: "p.s", desc: dirs[1], nullable: true}, {inner: "k.id", outer: "p.id"}},
				}
				scan := func(counts []any, rs *sql.Rows) (nrow, bool, error) {
					var r nrow
					var id sql.NullString
					if err := rs.Scan(append(counts, &id, &r.N, &r.S)...); err != nil {
						return r, false, err
					}
					r.ID = id.String
					return r, id.Valid, nil
				}
				read := func(ctx context.Context, req driver.Request) (driver.Rows[nrow], error) {
					rows, _, err := collect(ctx, st, q, req, o, scan)
					return rows, err
				}
				var got []nrow
				var last bounded.PageInfo
				p := bounded.Page{Limit: 4}
				for step := 0; step < 20; step++ {
					pg, err := fetch(ctx, st, p, bounded.Limits{Default: 4, Max: 10}, "t", read)
					if err != nil {
						t.Fatalf("directions %v, page %+v: %v", dirs, p, err)
					}
					got = append(got, pg.Items...)
					last = pg.Page
					if !pg.Page.HasMore {
						break
					}
					p = bounded.Page{Limit: 4, Cursor: pg.Page.NextCursor}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("directions %v: forward walk (-CompareKeys order +walk):\n%s", dirs, d)
				}
				// Back to the start by PrevCursor.
				var back []nrow
				for p := (bounded.Page{Limit: 4, Cursor: last.PrevCursor}); p.Cursor != ""; {
					pg, err := fetch(ctx, st, p, bounded.Limits{Default: 4, Max: 10}, "t", read)
					if err != nil {
						t.Fatal(err)
					}
					back = append(slices.Clone(pg.Items), back...)
					p = bounded.Page{Limit: 4, Cursor: pg.Page.PrevCursor}
				}
				if d := cmp.Diff(want[:len(want)-last.Returned], back); d != "" {
					t.Errorf("directions %v: backward walk (-CompareKeys order +walk):\n%s", dirs, d)
				}
			}
		})
	}
}
