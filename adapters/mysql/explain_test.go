package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/mysql"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// recorder is a bun query hook keeping the last paged SELECT run.
type recorder struct {
	mu   sync.Mutex
	last string
}

func (r *recorder) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if q := strings.TrimSpace(e.Query); strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH") {
		r.mu.Lock()
		r.last = e.Query
		r.mu.Unlock()
	}
}

// step is a row of MariaDB's EXPLAIN.
type step struct {
	selectType, table, typ, key, rows, extra string
	// rRows is the rows the step read (ANALYZE only).
	rRows string
}

func (s step) String() string {
	return fmt.Sprintf("%s %s %s key=%s rows=%s r_rows=%s %s", s.selectType, s.table, s.typ, s.key, s.rows, s.rRows, s.extra)
}

// explain returns MariaDB's plan of query, run by ANALYZE: with the rows
// each step read.
func explain(t *testing.T, db *bun.DB, query string) []step {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "ANALYZE "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[strings.ToLower(c)] = vals[i].String
		}
		steps = append(steps, step{m["select_type"], m["table"], m["type"], m["key"], m["rows"], m["extra"], m["r_rows"]})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// badSteps returns the steps that read a whole table (type ALL) or sort
// or group rows of a table through a temporary table or a filesort. Only
// a derived table, at most the page's rows, may be read whole or sorted
// (the outer ORDER BY of the page).
func badSteps(steps []step) []string {
	var bad []string
	for _, s := range steps {
		if strings.HasPrefix(s.table, "<derived") {
			continue
		}
		if s.typ == "ALL" || strings.Contains(s.extra, "filesort") || strings.Contains(s.extra, "temporary") {
			bad = append(bad, s.String())
		}
	}
	return bad
}

// rangedOn reports whether a step reads index as a range of at most n
// rows: the page enters its index at the cursor.
func rangedOn(steps []step, index string, n float64) bool {
	return slices.ContainsFunc(steps, func(s step) bool {
		r, err := strconv.ParseFloat(s.rRows, 64)
		return s.key == index && s.typ == "range" && err == nil && r <= n
	})
}

func lines(steps []step) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.String())
	}
	return strings.Join(out, "\n")
}

// TestPlans checks on 10,000 rows that the main list methods read their
// page from the index of their order, by offset and by cursor: no step
// scans a table or sorts its rows (only the page's own rows, in a derived
// table, may be sorted), and a cursor page 1,000 rows deep reads a range
// of the index entered at the cursor: the page's 11 rows (limit+1), not
// the 1,000 before them.
func TestPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s, err := mysql.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchutil.Load(ctx, db, 10_000); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"bounded_notes", "bounded_note_tags", "bounded_note_links", "bounded_note_backlinks", "bounded_runs", "bounded_entities"} {
		if _, err := db.ExecContext(ctx, "ANALYZE TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	for _, c := range []struct {
		name string
		// call reads page p and returns its NextCursor.
		call func(p bounded.Page) (string, error)
		// index is the index the page is read from.
		index string
	}{
		{"ListNotes", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
			return pg.Page.NextCursor, err
		}, "bounded_notes_updated"},
		{"ListNotes/tag", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{Tag: "t1"}, p)
			return pg.Page.NextCursor, err
		}, "bounded_note_tags_list"},
		{"Backlinks", func(p bounded.Page) (string, error) {
			pg, err := s.Backlinks(ctx, "hub", p)
			return pg.Page.NextCursor, err
		}, "bounded_note_backlinks_list"},
		{"ResponseHistory", func(p bounded.Page) (string, error) {
			pg, err := s.ResponseHistory(ctx, "ep", p)
			return pg.Page.NextCursor, err
		}, "bounded_runs_history"},
	} {
		_, err := c.call(bounded.Page{Limit: 10, Offset: 20})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plan := explain(t, db, rec.last)
		if bad := badSteps(plan); len(bad) > 0 {
			t.Errorf("%s: steps scan or sort a table: %s\n%s", c.name, bad, lines(plan))
		} else {
			t.Logf("%s:\n%s", c.name, lines(plan))
		}
		// The cursor page reads from the middle of the index. (Near its
		// start, MariaDB may read the index from the endpoint's first
		// entry, by ref, as its cost equals the range's: a few rows.)
		next, err := c.call(bounded.Page{Limit: 10, Offset: 1000})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if next == "" {
			t.Fatalf("%s: no NextCursor", c.name)
		}
		for _, count := range []bounded.CountMode{bounded.CountNone, bounded.CountCapped} {
			name := fmt.Sprintf("%s by cursor, %v", c.name, count)
			pg := bounded.Page{Limit: 10, Cursor: next, Count: count}
			if _, err := c.call(pg); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			plan := explain(t, db, rec.last)
			switch bad := badSteps(plan); {
			case len(bad) > 0:
				t.Errorf("%s: steps scan or sort a table: %s\n%s", name, bad, lines(plan))
			case !rangedOn(plan, c.index, 11):
				t.Errorf("%s: no range of %s entered at the cursor, reading at most the 11 rows of the page:\n%s", name, c.index, lines(plan))
			default:
				t.Logf("%s:\n%s", name, lines(plan))
			}
		}
	}
}
