package bunpage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
)

// TestPlans checks on 10,000 events that pages in an indexed order
// (created, id, both descending: a row-value keyset) read the index in
// page order: no full scan and no sort, by offset and by cursor forward
// and backward; and that a cursor page enters the index at the cursor (a
// range on the keys in its search condition), for all events and for one
// kind's. For one kind's, Postgres may rightly prefer the index on
// (created, id), filtering the kind: one event in eight has it. The same
// pages in the expanded keyset form (Portable, as MariaDB's) enter the
// index at the cursor by its first column's range on SQLite, and on
// Postgres for all events; for one kind's, Postgres reads the kind's
// events before the cursor from the index by that range and sorts them
// (a bitmap scan), which its estimates favour over a walk of the index.
func TestPlans(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		if err := loadEvents(ctx, db, 10_000); err != nil {
			t.Fatal(err)
		}
		deep := makeEvent(1_000)
		ldb, log := logged(db)
		for _, q := range []struct {
			name    string
			indexes []string // any of them serves
			query   *bun.SelectQuery
		}{
			{"all", []string{"events_created_id"}, ldb.NewSelect().Model((*event)(nil))},
			{"kind", []string{"events_kind_created_id", "events_created_id"}, ldb.NewSelect().Model((*event)(nil)).Where("kind = ?", deep.Kind)},
		} {
			rowValue, err := bunpage.New(ldb, q.query, newestFirst()...)
			if err != nil {
				t.Fatal(err)
			}
			forms := map[string]*bunpage.Source[event]{"": rowValue}
			if !isMySQL(db) && (!isPG(db) || q.name == "all") {
				forms["expanded/"] = bunpage.Portable(rowValue)
			}
			for form, src := range forms {
				for _, r := range []struct {
					name   string
					req    bounded.Request
					ranged bool
				}{
					{"offset 0", bounded.Request{Limit: 20}, false},
					{"offset 100", bounded.Request{Limit: 20, Offset: 100}, false},
					{"cursor", bounded.Request{Limit: 20, At: &driver.Cursor{Keys: eventKeys(deep)}}, true},
					{"backward", bounded.Request{Limit: 20, At: &driver.Cursor{Backward: true, Keys: eventKeys(deep)}}, true},
				} {
					name := form + q.name + "/" + r.name
					r.req.Count = bounded.CountNone
					log.take()
					rows, err := src.Fetch(ctx, r.req)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if len(rows.Items) != 20 {
						t.Fatalf("%s: %d events", name, len(rows.Items))
					}
					ran := log.take()
					if len(ran) != 1 {
						t.Fatalf("%s: ran %q", name, ran)
					}
					switch {
					case isPG(db):
						checkPGPlan(t, name, db, ran[0], q.indexes, r.ranged)
					case isMySQL(db):
						checkMySQLPlan(t, name, db, ran[0], q.indexes, r.ranged)
					default:
						checkSQLitePlan(t, name, db, ran[0], q.indexes, r.ranged)
					}
				}
			}
		}
	})
}

// checkSQLitePlan checks SQLite's plan of a page: one step reads the
// events through one of indexes (a SEARCH with a range when ranged), none
// scans the table or sorts.
func checkSQLitePlan(t *testing.T, name string, db *bun.DB, query string, indexes []string, ranged bool) {
	t.Helper()
	steps, err := bunpage.SQLitePlan(context.Background(), db, query)
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(steps, "\n")
	uses := false
	for _, s := range steps {
		if strings.Contains(s, "TEMP B-TREE") || strings.HasPrefix(s, "SCAN") && !strings.Contains(s, "INDEX") {
			t.Errorf("%s: %q sorts or scans the table:\n%s\n%s", name, s, plan, query)
		}
		for _, index := range indexes {
			if slices.Contains(strings.Fields(s), index) && (!ranged || strings.HasPrefix(s, "SEARCH") && strings.ContainsAny(s, "<>")) {
				uses = true
			}
		}
	}
	if !uses {
		t.Errorf("%s: no step reads %s (ranged: %v):\n%s\n%s", name, indexes, ranged, plan, query)
	}
}

// checkPGPlan checks Postgres' plan of a page: an index scan of one of
// indexes (with a range in its condition when ranged), no sequential
// scan, no sort.
func checkPGPlan(t *testing.T, name string, db *bun.DB, query string, indexes []string, ranged bool) {
	t.Helper()
	plan, err := bunpage.PGPlan(context.Background(), db, query)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	uses := false
	for _, n := range plan.All() {
		lines = append(lines, fmt.Sprintf("%s %s %s", n.Type, n.Index, n.IndexCond))
		if n.Type == "Sort" || n.Type == "Seq Scan" || n.Type == "Bitmap Heap Scan" {
			defer t.Errorf("%s: the plan has a %s", name, n.Type)
		}
		if strings.HasPrefix(n.Type, "Index") && slices.Contains(indexes, n.Index) && (!ranged || strings.ContainsAny(n.IndexCond, "<>")) {
			uses = true
		}
	}
	if !uses {
		t.Errorf("%s: no index scan of %s (ranged: %v):\n%s\n%s", name, indexes, ranged, strings.Join(lines, "\n"), query)
	}
}
