package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// boundQuery runs query through bun with args bound through the context,
// as the store's statements are, and returns the first column of its rows.
func boundQuery(ctx context.Context, q bun.IConn, query string, args ...any) ([]string, error) {
	b := &sqlstore.Bound{Query: query}
	for i, a := range args {
		b.Args = append(b.Args, driver.NamedValue{Name: fmt.Sprint("p", i+1), Ordinal: i + 1, Value: a})
	}
	rows, err := q.QueryContext(sqlstore.WithBound(ctx, b), query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// rawConn returns the connection of c as the driver made it.
func rawConn(t *testing.T, c *sql.Conn) *conn {
	t.Helper()
	var cc *conn
	if err := c.Raw(func(dc any) error {
		var ok bool
		cc, ok = dc.(*conn)
		if !ok {
			return fmt.Errorf("the connection is a %T", dc)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return cc
}

func TestStmtCache(t *testing.T) {
	ctx := t.Context()
	s, db, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range []string{"a/b", "a/c", "d"} {
		if err := s.PutNote(ctx, ports.Note{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	// The store's context statement, for other notes, is prepared once.
	for _, ids := range [][]string{{"a"}, {"a/b", "d"}, {"d", "a", "a/c"}} {
		nc, err := s.ContextOf(ctx, ids, ports.ContextQuery{Parents: true, ChildLevels: 1, ChildrenPerNote: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(nc.Children.Lists) == 0 {
			t.Fatalf("ContextOf(%q) read no list", ids)
		}
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cc := rawConn(t, c.Conn)
	if len(cc.stmts) != 1 {
		t.Fatalf("%d statements kept after three calls of one shape, want 1", len(cc.stmts))
	}
	for q, e := range cc.stmts {
		e.stmt.Close()
		delete(cc.stmts, q)
	}
	const q = "SELECT value FROM json_each(:p1) WHERE value > :p2 ORDER BY value"

	got, err := boundQuery(ctx, c, q, `["a","b","c"]`, "a")
	if err != nil || !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("first run: %q, %v", got, err)
	}
	first := cc.stmts[q]
	if first == nil || len(cc.stmts) != 1 {
		t.Fatalf("kept %d statements, %v for the query", len(cc.stmts), first)
	}
	got, err = boundQuery(ctx, c, q, `["x","y"]`, "x")
	if err != nil || !slices.Equal(got, []string{"y"}) {
		t.Fatalf("second run: %q, %v", got, err)
	}
	if cc.stmts[q] != first || first.busy {
		t.Errorf("the second run did not reuse the kept statement, or left it busy")
	}

	// The same statement while its rows are open runs on one of its own.
	rows, err := c.QueryContext(sqlstore.WithBound(ctx, &sqlstore.Bound{Query: q, Args: []driver.NamedValue{
		{Name: "p1", Ordinal: 1, Value: `["1","2"]`}, {Name: "p2", Ordinal: 2, Value: "0"}}}), q)
	if err != nil {
		t.Fatal(err)
	}
	if !first.busy {
		t.Error("the kept statement is not busy while its rows are open")
	}
	inner, err := boundQuery(ctx, c, q, `["m","n"]`, "a")
	if err != nil || !slices.Equal(inner, []string{"m", "n"}) {
		t.Fatalf("run beside open rows: %q, %v", inner, err)
	}
	var outer []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, v)
	}
	if err := rows.Close(); err != nil || !slices.Equal(outer, []string{"1", "2"}) {
		t.Fatalf("outer rows %q, %v", outer, err)
	}
	if first.busy || cc.stmts[q] != first || len(cc.stmts) != 1 {
		t.Errorf("after both: busy %v, %d kept", first.busy, len(cc.stmts))
	}

	// Arguments bound for another text are not used: the statement goes
	// to the driver as it came, and fails for its missing argument.
	if _, err := c.QueryContext(sqlstore.WithBound(ctx, &sqlstore.Bound{Query: q + " ", Args: nil}), q); err == nil {
		t.Error("a statement ran with the arguments of another")
	}
	if _, err := boundQuery(ctx, c, q, `["a"]`); err == nil {
		t.Error("a statement ran with an argument missing")
	}

	// The least recently used statement goes beyond stmtCacheSize.
	for i := range stmtCacheSize + 5 {
		qi := fmt.Sprintf("SELECT value FROM json_each(:p1) WHERE value <> '%d'", i)
		if _, err := boundQuery(ctx, c, qi, "[1]"); err != nil {
			t.Fatal(err)
		}
	}
	if len(cc.stmts) != stmtCacheSize || cc.stmts[q] != nil {
		t.Errorf("kept %d statements, the oldest among them: %v", len(cc.stmts), cc.stmts[q] != nil)
	}
}

// TestConformanceUnbound runs the conformance suite on a store over a
// database of the plain driver, which formats the arguments into the
// statements: the statements' other form.
func TestConformanceUnbound(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		Name:    "sqlite-unbound",
		Cursors: true,
		New: func(t conformance.TB) conformance.Store {
			sqldb, err := sql.Open(sqliteshim.ShimName, dsn(filepath.Join(t.TempDir(), "test.db")))
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			sqldb.SetMaxOpenConns(1)
			db := bun.NewDB(sqldb, sqlitedialect.New())
			t.Cleanup(func() { db.Close() })
			s, err := New(t.Context(), db)
			if err != nil {
				t.Fatalf("new: %v", err)
			}
			return conformance.Store{Notes: s, Knowledge: s, History: s, Code: s}
		},
	})
}
