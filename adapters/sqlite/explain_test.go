package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// recorder is a bun query hook keeping the last SELECT run.
type recorder struct {
	mu   sync.Mutex
	last string
	all  []string // since the last take
}

// take returns the statements recorded since it was last called.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.all
	r.all = nil
	return all
}

func (r *recorder) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(strings.TrimSpace(e.Query), "SELECT") || strings.HasPrefix(strings.TrimSpace(e.Query), "WITH") {
		r.mu.Lock()
		r.last = e.Query
		r.all = append(r.all, e.Query)
		r.mu.Unlock()
	}
}

// step is one line of EXPLAIN QUERY PLAN.
type step struct {
	id, parent int
	detail     string
}

// plan returns SQLite's query plan of query.
func plan(t *testing.T, db *bun.DB, query string) []step {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []step
	for rows.Next() {
		var s step
		var notused int
		if err := rows.Scan(&s.id, &s.parent, &notused, &s.detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

func format(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "%d<%d %s\n", s.id, s.parent, s.detail)
	}
	return b.String()
}

// planDB opens a store on a new database file for a plan test, closed
// when the test ends.
func planDB(t *testing.T) (*sqlite.Store, *bun.DB) {
	t.Helper()
	s, db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, db
}

// TestPlans checks that the main list methods page in index order: their
// page subquery never sorts in a temporary B-tree, by offset or by cursor,
// and a cursor page enters its index at the cursor (a range on the keys)
// rather than reading it from the start. (The outer query may re-sort the
// one page it returns.)
func TestPlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	for i := range 50 {
		n := ports.Note{ID: fmt.Sprintf("n%02d", i), Title: "t", Tags: []string{"x"},
			Links: []ports.Link{{Target: "hub"}, {Target: "gone"}}}
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordRun(ctx, ports.Run{ID: n.ID, EndpointID: "ep"}); err != nil {
			t.Fatal(err)
		}
	}
	// A thousand more of each, bulk-loaded: with the statistics of a
	// one-value index prefix ("hub", "ep"), the planner has choices (a
	// skip-scan, a sort) it does not have on a few rows.
	if err := benchutil.Load(ctx, db, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	// Each call returns its page's NextCursor; cursor: the method is also
	// checked reading the page after by cursor.
	for _, c := range []struct {
		name   string
		call   func(p bounded.Page) (string, error)
		cursor bool
	}{
		{"ListNotes", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
			return pg.Page.NextCursor, err
		}, true},
		{"ListNotes/tag", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{Tag: "x"}, p)
			return pg.Page.NextCursor, err
		}, true},
		{"Backlinks", func(p bounded.Page) (string, error) {
			pg, err := s.Backlinks(ctx, "hub", p)
			return pg.Page.NextCursor, err
		}, true},
		{"ResponseHistory", func(p bounded.Page) (string, error) {
			pg, err := s.ResponseHistory(ctx, "ep", bounded.Page{Limit: 10, Offset: p.Offset, Cursor: p.Cursor, Count: p.Count})
			return pg.Page.NextCursor, err
		}, true},
		{"FindBrokenLinks", func(p bounded.Page) (string, error) {
			pg, err := s.FindBrokenLinks(ctx, p)
			return pg.Page.NextCursor, err
		}, false},
	} {
		next, err := c.call(bounded.Page{Limit: 10, Offset: 20})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkPagePlan(t, c.name, plan(t, db, rec.last), false)
		if !c.cursor {
			continue
		}
		if next == "" {
			t.Fatalf("%s: no NextCursor", c.name)
		}
		for _, count := range []bounded.CountMode{bounded.CountNone, bounded.CountCapped} {
			if _, err := c.call(bounded.Page{Limit: 10, Cursor: next, Count: count}); err != nil {
				t.Fatalf("%s by cursor: %v", c.name, err)
			}
			checkPagePlan(t, fmt.Sprintf("%s by cursor, %v", c.name, count), plan(t, db, rec.last), true)
		}
	}
}

// checkPagePlan checks the plan of a paged statement: its page is the
// subquery materialized as p (with the keys of the page in its subquery k,
// scanned as a co-routine), or the statement itself when it reads no
// count, which must read an index in page order, never
// sort, never scan a table without an index, and, for a cursor page
// (keyset), search its first index with a range (< or >) on the keys. The
// outer query may sort the at most Limit rows of the page (parent 0).
func checkPagePlan(t *testing.T, name string, steps []step, keyset bool) {
	t.Helper()
	pageRoot := -1
	for _, st := range steps {
		if st.detail == "MATERIALIZE p" || st.detail == "CO-ROUTINE p" {
			pageRoot = st.id
		}
	}
	if pageRoot < 0 {
		// A page without counts is the statement itself.
		pageRoot = 0
	}
	inPage := map[int]bool{pageRoot: true}
	ranged := false
	for _, st := range steps { // parents come before their children
		if !inPage[st.parent] {
			continue
		}
		inPage[st.id] = true
		if strings.Contains(st.detail, "TEMP B-TREE") {
			t.Errorf("%s: the page subquery sorts (%s):\n%s", name, st.detail, format(steps))
		}
		if strings.Contains(st.detail, "SCAN") && !strings.Contains(st.detail, "INDEX") && st.detail != "SCAN k" {
			t.Errorf("%s: the page subquery scans a table without an index (%s):\n%s", name, st.detail, format(steps))
		}
		if strings.HasPrefix(st.detail, "SEARCH") && strings.ContainsAny(st.detail, "<>") {
			ranged = true
		}
	}
	if keyset && !ranged {
		t.Errorf("%s: the page subquery does not enter its index at the cursor:\n%s", name, format(steps))
	}
}
