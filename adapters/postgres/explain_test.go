package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
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
	if q := strings.TrimSpace(e.Query); strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH") {
		r.mu.Lock()
		r.last = e.Query
		r.all = append(r.all, e.Query)
		r.mu.Unlock()
	}
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	Type      string     `json:"Node Type"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// sortsUnderLimit returns the Sort nodes found below a Limit node: a page
// that sorts before its LIMIT sorts every matching row, not one page.
func sortsUnderLimit(n planNode, underLimit bool) []string {
	var found []string
	if n.Type == "Sort" && underLimit {
		found = append(found, "Sort")
	}
	for _, c := range n.Plans {
		found = append(found, sortsUnderLimit(c, underLimit || n.Type == "Limit")...)
	}
	return found
}

// rangedUnderLimit reports whether an index scan below a Limit node has a
// range (< or >) in its index condition: a cursor page enters its index at
// the cursor rather than reading it from the start.
func rangedUnderLimit(n planNode, underLimit bool) bool {
	if underLimit && n.Index != "" && strings.ContainsAny(n.IndexCond, "<>") {
		return true
	}
	for _, c := range n.Plans {
		if rangedUnderLimit(c, underLimit || n.Type == "Limit") {
			return true
		}
	}
	return false
}

func nodes(n planNode) []string {
	out := []string{n.Type + " " + n.Index + " " + n.IndexCond}
	for _, c := range n.Plans {
		for _, s := range nodes(c) {
			out = append(out, "  "+s)
		}
	}
	return out
}

// TestPlans checks on 10,000 rows that the main list methods read their
// page from an index in page order, by offset and by cursor: no Sort below
// a Limit, and for a cursor page an index condition with a range on the
// keys. (Postgres may sort the at most Limit rows of the page above it.)
func TestPlans(t *testing.T) {
	ctx := context.Background()
	s, db := loadedStore(ctx, t, 10_000)
	for i := range 100 {
		n := ports.Note{ID: "broken/" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Links: []ports.Link{{Target: "gone"}}}
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	vacuumAnalyze(ctx, t, db)
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	explain := func(name string) planNode {
		t.Helper()
		var out string
		if err := db.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+rec.last).Scan(&out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plans []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(out), &plans); err != nil {
			t.Fatal(err)
		}
		return plans[0].Plan
	}
	for _, c := range []struct {
		name string
		// call reads page p and returns its NextCursor.
		call func(p bounded.Page) (string, error)
		// sortOK: the planner may sort the matching rows. FindBrokenLinks
		// walks the links in (source, position) order and keeps those
		// whose target is missing; when few are (here 100 of 10,100),
		// Postgres rightly prefers a hash anti-join and sorts only the
		// broken links. (SQLite walks the primary key; see its TestPlans.)
		sortOK bool
		// cursor: the page after is also read by cursor and checked.
		cursor bool
	}{
		{"ListNotes", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
			return pg.Page.NextCursor, err
		}, false, true},
		{"ListNotes/tag", func(p bounded.Page) (string, error) {
			pg, err := s.ListNotes(ctx, ports.ListFilter{Tag: "t1"}, p)
			return pg.Page.NextCursor, err
		}, false, true},
		{"Backlinks", func(p bounded.Page) (string, error) {
			pg, err := s.Backlinks(ctx, "hub", p)
			return pg.Page.NextCursor, err
		}, false, true},
		{"ResponseHistory", func(p bounded.Page) (string, error) {
			pg, err := s.ResponseHistory(ctx, "ep", p)
			return pg.Page.NextCursor, err
		}, false, true},
		{"FindBrokenLinks", func(p bounded.Page) (string, error) {
			pg, err := s.FindBrokenLinks(ctx, p)
			return pg.Page.NextCursor, err
		}, true, false},
	} {
		next, err := c.call(bounded.Page{Limit: 10, Offset: 20})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plan := explain(c.name)
		if sorts := sortsUnderLimit(plan, false); len(sorts) > 0 && !c.sortOK {
			t.Errorf("%s: the page sorts before its LIMIT:\n%s", c.name, strings.Join(nodes(plan), "\n"))
		} else {
			t.Logf("%s:\n%s", c.name, strings.Join(nodes(plan), "\n"))
		}
		if !c.cursor {
			continue
		}
		if next == "" {
			t.Fatalf("%s: no NextCursor", c.name)
		}
		for _, count := range []bounded.CountMode{bounded.CountNone, bounded.CountCapped} {
			name := fmt.Sprintf("%s by cursor, %v", c.name, count)
			if _, err := c.call(bounded.Page{Limit: 10, Cursor: next, Count: count}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			plan := explain(name)
			switch {
			case len(sortsUnderLimit(plan, false)) > 0:
				t.Errorf("%s: the page sorts before its LIMIT:\n%s", name, strings.Join(nodes(plan), "\n"))
			case !rangedUnderLimit(plan, false):
				t.Errorf("%s: the page does not enter its index at the cursor:\n%s", name, strings.Join(nodes(plan), "\n"))
			default:
				t.Logf("%s:\n%s", name, strings.Join(nodes(plan), "\n"))
			}
		}
	}
}

// loadedStore returns a store on a new schema holding n rows per table
// ([benchutil.Load]) and its database.
func loadedStore(ctx context.Context, t *testing.T, n int) (*postgres.Store, *bun.DB) {
	t.Helper()
	db := openDB(t)
	s, err := postgres.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchutil.Load(ctx, db, n); err != nil {
		t.Fatal(err)
	}
	return s, db
}

// vacuumAnalyze vacuums and analyzes the tables of the test's schema only,
// so that its time does not depend on what else the database holds.
func vacuumAnalyze(ctx context.Context, t *testing.T, db *bun.DB) {
	t.Helper()
	var tables []string
	if err := db.NewRaw("SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema()").Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("no tables in the test's schema")
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+strings.Join(tables, ", ")); err != nil {
		t.Fatal(err)
	}
}
