package bunpage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
					req    driver.Request
					ranged bool
				}{
					{"offset 0", driver.Request{Limit: 20}, false},
					{"offset 100", driver.Request{Limit: 20, Offset: 100}, false},
					{"cursor", driver.Request{Limit: 20, At: &driver.Cursor{Keys: eventKeys(deep)}}, true},
					{"backward", driver.Request{Limit: 20, At: &driver.Cursor{Backward: true, Keys: eventKeys(deep)}}, true},
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

// item is a row of the plan tests of order shapes: a time with ties, a
// kind of eight values, an amount that may be NULL, a float32 score and
// a name ordered by lower(name).
type item struct {
	bun.BaseModel `bun:"table:items"`

	ID      int64     `bun:"id,pk"`
	Kind    string    `bun:"kind,notnull"`
	Created time.Time `bun:"created,notnull"`
	Amount  *float64  `bun:"amount"`
	Score   float32   `bun:"score,notnull"`
	Name    string    `bun:"name,notnull"`
	NameKey string    `bun:"name_key,scanonly"`
}

func makeItem(i int) item {
	it := item{
		ID:      int64(i),
		Kind:    fmt.Sprintf("k%d", i%8),
		Created: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i-i%3/2) * 1500 * time.Millisecond),
		Score:   float32(i%997) / 3,
		Name:    fmt.Sprintf("%s%05d", []string{"Ann", "bob", "Cy"}[i%3], i*7919%10007),
	}
	if i%7 != 0 {
		a := float64(i*37%1000) / 4
		it.Amount = &a
	}
	return it
}

// shape is an order and the index that serves it.
type shape struct {
	name  string
	order []bunpage.Column[item]
	// index is the index's columns on SQLite and MariaDB, pgIndex on
	// Postgres: "" where no index serves the order (NULLs sort where
	// the engine's indexes have none), or the engine has no index on
	// an expression.
	index, pgIndex string
	noMySQL        bool
	// nulls is where the first key's NULLs sort read forward: "first",
	// "last", or "" for a key never NULL.
	nulls string
}

// shapes are the shapes of orders: one direction, mixed directions in
// two and three runs, a first key that may be NULL with its NULLs first
// or last in either direction, a key that may be NULL after another,
// a float32 key and a key that is an expression.
func shapes() []shape {
	f := bunpage.Field[item]
	return []shape{
		{"ascending", []bunpage.Column[item]{f("created"), f("id")}, "created, id", "created, id", false, ""},
		{"descending", []bunpage.Column[item]{f("created").Desc(), f("id").Desc()}, "created, id", "created, id", false, ""},
		{"mixed", []bunpage.Column[item]{f("created").Desc(), f("id")}, "created DESC, id", "created DESC, id", false, ""},
		{"mixed, three runs", []bunpage.Column[item]{f("kind"), f("created").Desc(), f("id")}, "kind, created DESC, id", "kind, created DESC, id", false, ""},
		{"NULLs first", []bunpage.Column[item]{f("amount").NullsFirst(), f("id")}, "amount, id", "amount NULLS FIRST, id", false, "first"},
		{"descending, NULLs last", []bunpage.Column[item]{f("amount").Desc(), f("id").Desc()}, "amount, id", "amount NULLS FIRST, id", false, "last"},
		{"NULLs last", []bunpage.Column[item]{f("amount"), f("id")}, "", "amount, id", false, "last"},
		{"descending, NULLs first", []bunpage.Column[item]{f("amount").Desc().NullsFirst(), f("id").Desc()}, "", "amount, id", false, "first"},
		{"NULLs after a key", []bunpage.Column[item]{f("created").Desc(), f("amount").Desc(), f("id").Desc()}, "created, amount, id", "created, amount NULLS FIRST, id", false, ""},
		{"float32", []bunpage.Column[item]{f("score").Desc(), f("id")}, "score DESC, id", "score DESC, id", false, ""},
		{"expression", []bunpage.Column[item]{f("NameKey").Expr("lower(name)"), f("id")}, "lower(name), id", "lower(name), id", true, ""},
	}
}

// TestPlanShapes checks on 10,000 items, for every shape of order with
// the index that serves it, that CheckIndex passes and that each page
// reads the index in page order, with no sort: the first, and those by
// cursor forward and backward at items 5%, 50% and 95% deep. A cursor
// page enters the index at the cursor (a range in its search
// condition), except where the rows after the cursor hold both NULLs
// and values of a first key that may be NULL: after a value with the
// NULLs last, or after a NULL with the NULLs first. Those rows are no
// range SQLite or Postgres can search, and the page reads the index from
// its start; MariaDB searches them as two ranges.
func TestPlanShapes(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, created TIMESTAMP NOT NULL, amount REAL, score REAL NOT NULL, name TEXT NOT NULL)"))
		const n = 10_000
		for start := 1; start <= n; start += 1000 {
			items := make([]item, 0, 1000)
			for i := start; i < start+1000; i++ {
				items = append(items, makeItem(i))
			}
			if _, err := db.NewInsert().Model(&items).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		shapes := shapes()
		// indexes names the index on each list of columns.
		indexes := map[string]string{}
		for _, s := range shapes {
			cols := s.index
			if isPG(db) {
				cols = s.pgIndex
			}
			if cols != "" && indexes[cols] == "" && !(isMySQL(db) && s.noMySQL) {
				indexes[cols] = fmt.Sprintf("items_%d", len(indexes))
				exec(t, db, fmt.Sprintf("CREATE INDEX %s ON items (%s)", indexes[cols], cols))
			}
		}
		exec(t, db, analyze(db, "items"))
		ldb, log := logged(db)
		for _, s := range shapes {
			index := indexes[map[bool]string{false: s.index, true: s.pgIndex}[isPG(db)]]
			if index == "" || isMySQL(db) && s.noMySQL {
				continue
			}
			src, err := bunpage.New(ldb, ldb.NewSelect().Model((*item)(nil)), s.order...)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if err := src.CheckIndex(ctx); err != nil {
				t.Errorf("%s: CheckIndex: %v", s.name, err)
			}
			type page struct {
				name   string
				req    driver.Request
				ranged bool
			}
			pages := []page{{"offset 0", driver.Request{Limit: 20}, false}}
			for _, deep := range []int{5, 50, 95} {
				at, err := src.Fetch(ctx, driver.Request{Limit: 1, Offset: n * deep / 100, Count: bounded.CountNone})
				if err != nil {
					t.Fatal(err)
				}
				keys := at.Keys(at.Items[0])
				for _, back := range []bool{false, true} {
					// both: the rows after the cursor hold both NULLs
					// and values of the first key.
					last := s.nulls == "last" != back
					both := s.nulls != "" && (keys[0] != nil) == last
					name := fmt.Sprintf("cursor %d%% deep (%v)", deep, keys[0])
					if back {
						name += " backward"
					}
					pages = append(pages, page{name, driver.Request{Limit: 20, At: &driver.Cursor{Backward: back, Keys: keys}}, !both || isMySQL(db)})
				}
			}
			for _, p := range pages {
				name := s.name + "/" + p.name
				p.req.Count = bounded.CountNone
				log.take()
				if _, err := src.Fetch(ctx, p.req); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ran := log.take()
				if len(ran) != 1 {
					t.Fatalf("%s: ran %q", name, ran)
				}
				switch {
				case isPG(db):
					checkPGPlan(t, name, db, ran[0], []string{index}, p.ranged)
				case isMySQL(db):
					checkMySQLPlan(t, name, db, ran[0], []string{index}, p.ranged)
				default:
					checkSQLitePlan(t, name, db, ran[0], []string{index}, p.ranged)
				}
			}
		}
	})
}
