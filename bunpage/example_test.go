package bunpage_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Task is an application's own bun model.
type Task struct {
	ID       int64      `bun:"id,pk" json:"id"`
	Title    string     `bun:"title" json:"title"`
	Priority int64      `bun:"priority" json:"priority"`
	Due      *time.Time `bun:"due" json:"due,omitempty"`
}

func day(d int) *time.Time {
	t := time.Date(2025, 5, d, 0, 0, 0, 0, time.UTC)
	return &t
}

// openTasks opens a SQLite database in a temporary directory holding a
// few tasks, and returns it with the function that removes it.
func openTasks() (*bun.DB, func(), error) {
	dir, err := os.MkdirTemp("", "bunpage-example")
	if err != nil {
		return nil, nil, err
	}
	sqldb, err := sql.Open(sqliteshim.ShimName, filepath.Join(dir, "tasks.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	done := func() { db.Close(); os.RemoveAll(dir) }
	ctx := context.Background()
	tasks := []Task{
		{1, "Write the report", 2, day(3)},
		{2, "Review PR #42", 3, nil},
		{3, "Pay the hosting", 3, day(1)},
		{4, "Reply to Zoë", 1, nil},
		{5, "Update dependencies", 2, day(2)},
	}
	if _, err := db.NewCreateTable().Model((*Task)(nil)).Exec(ctx); err != nil {
		done()
		return nil, nil, err
	}
	if _, err := db.NewInsert().Model(&tasks).Exec(ctx); err != nil {
		done()
		return nil, nil, err
	}
	return db, done, nil
}

// listTasks prints the titles of the tasks r asks for, in order.
func listTasks(r driver.Request, order ...bunpage.Column[Task]) {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	src, err := bunpage.New(db, db.NewSelect().Model((*Task)(nil)), order...)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, err := src.Fetch(context.Background(), r)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range rows.Items {
		fmt.Println(t.Title)
	}
}

// A tool that lists tasks, most urgent first, pages the application's
// own query: the agent follows the response's cursor to the next page.
func Example() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()

	q := db.NewSelect().Model((*Task)(nil)).Where("priority >= ?", 2)
	src, err := bunpage.New(db, q,
		bunpage.Col("priority", func(t Task) int64 { return t.Priority }).Desc(),
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique(),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := bounded.Call{Tool: "list_tasks", Args: bounded.Args{{Name: "minPriority", Value: 2}}}
	opts := bounded.Options[Task]{Limits: bounded.Limits{Default: 2, Max: 10}}
	page := bounded.Page{}
	for {
		out, err := bounded.Respond(ctx, src, call, page, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		var env struct {
			Results []Task `json:"results"`
		}
		if err := json.Unmarshal(out.JSON, &env); err != nil {
			fmt.Println(err)
			return
		}
		for _, t := range env.Results {
			fmt.Printf("%d %s\n", t.Priority, t.Title)
		}
		if !out.Page.HasMore {
			fmt.Printf("%d tasks\n", out.Page.Total)
			return
		}
		page = bounded.Page{Cursor: out.Page.NextCursor}
	}
	// Output:
	// 3 Review PR #42
	// 3 Pay the hosting
	// 2 Write the report
	// 2 Update dependencies
	// 4 tasks
}

// New refuses an order that can tie: it must end with a unique column.
func ExampleNew() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	q := db.NewSelect().Model((*Task)(nil))
	priority := bunpage.Col("priority", func(t Task) int64 { return t.Priority })

	_, err = bunpage.New(db, q, priority)
	fmt.Println(errors.Is(err, bunpage.ErrNoTieBreaker))
	fmt.Println(err)

	src, err := bunpage.New(db, q, priority, bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique())
	fmt.Println(src != nil, err)
	// Output:
	// true
	// bunpage: invalid source: bunpage: the order does not end with a unique column: the last column, "priority", is not Unique; end the order with a unique column, such as the primary key
	// true <nil>
}

func ExampleCol() {
	// Titles in byte order, the id breaking ties.
	listTasks(driver.Request{Limit: 3, Count: bounded.CountNone},
		bunpage.Col("title", func(t Task) string { return t.Title }),
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique(),
	)
	// Output:
	// Pay the hosting
	// Reply to Zoë
	// Review PR #42
}

func ExampleNullable() {
	// Tasks with a due date first, soonest first; then those without.
	listTasks(driver.Request{Limit: 10, Count: bounded.CountNone},
		bunpage.Nullable("due", func(t Task) *time.Time { return t.Due }),
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique(),
	)
	// Output:
	// Pay the hosting
	// Update dependencies
	// Write the report
	// Review PR #42
	// Reply to Zoë
}

func ExampleColumn_NullsFirst() {
	// Tasks without a due date first; then the latest due first.
	listTasks(driver.Request{Limit: 10, Count: bounded.CountNone},
		bunpage.Nullable("due", func(t Task) *time.Time { return t.Due }).Desc().NullsFirst(),
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique(),
	)
	// Output:
	// Review PR #42
	// Reply to Zoë
	// Write the report
	// Update dependencies
	// Pay the hosting
}

func ExampleColumn_Desc() {
	// The newest tasks first: the largest ids.
	listTasks(driver.Request{Limit: 2, Count: bounded.CountNone},
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Desc().Unique(),
	)
	// Output:
	// Update dependencies
	// Reply to Zoë
}

func ExampleColumn_Unique() {
	// Titles are unique here, so they alone order the tasks.
	listTasks(driver.Request{Limit: 2, Offset: 3, Count: bounded.CountNone},
		bunpage.Col("title", func(t Task) string { return t.Title }).Unique(),
	)
	// Output:
	// Update dependencies
	// Write the report
}

// Fetch reads the page after a cursor's keys, or before them backward,
// and counts as the request asks.
func ExampleSource_Fetch() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	src, err := bunpage.New(db, db.NewSelect().Model((*Task)(nil)),
		bunpage.Col("priority", func(t Task) int64 { return t.Priority }).Desc(),
		bunpage.Col("id", func(t Task) int64 { return t.ID }).Unique(),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	// The tasks after "Pay the hosting" (priority 3, id 3), with a count.
	at := &driver.Cursor{Keys: []any{int64(3), int64(3)}}
	rows, err := src.Fetch(ctx, driver.Request{Limit: 2, At: at})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range rows.Items {
		fmt.Println(t.Title, rows.Keys(t))
	}
	fmt.Println("more:", rows.More, "count:", rows.Count)

	// The task before it, backward.
	rows, err = src.Fetch(ctx, driver.Request{Limit: 2, At: &driver.Cursor{Backward: true, Keys: at.Keys}, Count: bounded.CountNone})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rows.Items[0].Title, "more:", rows.More)

	// A key of the wrong type.
	_, err = src.Fetch(ctx, driver.Request{Limit: 2, At: &driver.Cursor{Keys: []any{"3", int64(3)}}})
	fmt.Println(err)
	// Output:
	// Write the report [2 1]
	// Update dependencies [2 5]
	// more: true count: 5
	// Review PR #42 more: false
	// bounded: invalid cursor: key for column "priority" is string, want an integer
}

// By pages the application's query in the order of its model's fields,
// the primary key last as the tie-breaker.
func ExampleBy() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	src, err := bunpage.By[Task](db, db.NewSelect().Model((*Task)(nil)), "-Priority", "title")
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, err := src.Fetch(context.Background(), driver.Request{Limit: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range rows.Items {
		fmt.Println(t.Priority, t.Title, rows.Keys(t))
	}
	fmt.Println("count:", rows.Count)
	// Output:
	// 3 Pay the hosting [3 Pay the hosting 3]
	// 3 Review PR #42 [3 Review PR #42 2]
	// 2 Update dependencies [2 Update dependencies 5]
	// count: 5
}

// taskOrders are the orders a list_tasks tool offers: its sort argument
// takes one of their names, the first by default.
var taskOrders = bunpage.Orders[Task]{
	{Name: "urgent", Columns: bunpage.Fields[Task]("-priority")},
	{Name: "due", Columns: bunpage.Fields[Task]("due")},
	{Name: "title", Columns: bunpage.Fields[Task]("title")},
}

// Each call chooses its order by name; the names make the enum of the
// tool's sort argument.
func ExampleOrders() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	fmt.Println(taskOrders.Names())
	q := db.NewSelect().Model((*Task)(nil))
	for _, sort := range []string{"", "due", "soon"} {
		src, err := taskOrders.New(db, q, sort)
		if err != nil {
			fmt.Println(err)
			continue
		}
		rows, err := src.Fetch(context.Background(), driver.Request{Limit: 2, Count: bounded.CountNone})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q: %s, %s\n", sort, rows.Items[0].Title, rows.Items[1].Title)
	}
	// Output:
	// [urgent due title]
	// "": Pay the hosting, Review PR #42
	// "due": Pay the hosting, Update dependencies
	// bunpage: unknown order: "soon": want one of ["urgent" "due" "title"]
}

// CheckIndex, in a test, names the index an order needs.
func ExampleSource_CheckIndex() {
	db, done, err := openTasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	src, err := bunpage.By[Task](db, db.NewSelect().Model((*Task)(nil)), "-priority")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	err = src.CheckIndex(ctx)
	fmt.Println(errors.Is(err, bunpage.ErrNoIndex))
	fmt.Println(strings.SplitN(err.Error(), "\n", 2)[0])

	if _, err := db.ExecContext(ctx, "CREATE INDEX tasks_priority ON tasks (priority DESC, id DESC)"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(src.CheckIndex(ctx))
	// Output:
	// true
	// bunpage: no index serves the order: the first page: SQLite's plan has "SCAN task", SQLite's plan has "USE TEMP B-TREE FOR ORDER BY"; create an index on tasks (priority DESC, id DESC), after any columns the query compares with =
	// <nil>
}
