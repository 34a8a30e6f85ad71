// Command quickstart bounds the responses of a tool over your own table:
// it creates a SQLite table of tasks with bun, pages it with bunpage, and
// answers list_tasks calls with bounded.Respond: a page with a hint naming
// the next call, the next page by cursor, and a page cut to fit a budget
// that goes on at the first task cut.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
)

// Task is the user's own model: a row of the tasks table.
type Task struct {
	bun.BaseModel `bun:"table:tasks"`

	ID       int64     `bun:"id,pk" json:"id"`
	Title    string    `bun:"title,notnull" json:"title"`
	Status   string    `bun:"status,notnull" json:"status"`
	Priority int64     `bun:"priority,notnull" json:"priority"`
	Due      time.Time `bun:"due,notnull" json:"due"`
}

func main() {
	dir, err := os.MkdirTemp("", "quickstart")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), filepath.Join(dir, "tasks.db"), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, path string, w io.Writer) error {
	sqldb, err := sql.Open(sqliteshim.ShimName, "file:"+path)
	if err != nil {
		return err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	if err := load(ctx, db, 1000); err != nil {
		return err
	}

	// The tool: list_tasks(status), highest priority first. By ends the
	// order with the primary key, so pages never skip or repeat a task.
	listTasks := func(ctx context.Context, status string, page bounded.Page, budget bounded.Budget) (bounded.Fitted, error) {
		q := db.NewSelect().Model((*Task)(nil)).Where("status = ?", status)
		src, err := bunpage.By[Task](db, q, "-priority")
		if err != nil {
			return bounded.Fitted{}, err
		}
		call := bounded.Call{Tool: "list_tasks", Args: bounded.Args{{Name: "status", Value: status}}}
		return bounded.Respond(ctx, src, call, page, bounded.Options[Task]{
			Limits: bounded.Limits{Default: 20, Max: 100},
			Budget: budget,
		})
	}

	// 1. A page of 3, and the hint naming the next call.
	out, err := listTasks(ctx, "open", bounded.Page{Limit: 3}, bounded.Budget{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== list_tasks(status=\"open\", limit=3)\n%s\n\n", out.JSON)

	// 2. The next page, by the cursor in next: exact even if tasks are
	// added or closed meanwhile, and as cheap at any depth.
	cursor, _ := out.Next.Get("cursor")
	out, err = listTasks(ctx, "open", bounded.Page{Limit: 3, Cursor: cursor.(string)}, bounded.Budget{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== the next page, by cursor\n%s\n\n", out.JSON)

	// 3. 50 tasks asked for, only what fits in 1,500 characters kept; the
	// next call starts at the first task cut.
	out, err = listTasks(ctx, "open", bounded.Page{Limit: 50}, bounded.Budget{MaxChars: 1500, Margin: 1})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== list_tasks(status=\"open\", limit=50) in 1,500 characters\n%s\n", out.JSON)
	return nil
}

// load creates the tasks table and fills it with n tasks.
func load(ctx context.Context, db *bun.DB, n int) error {
	if _, err := db.NewCreateTable().Model((*Task)(nil)).IfNotExists().Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewCreateIndex().Model((*Task)(nil)).Index("tasks_by_urgency").IfNotExists().
		Column("status", "priority", "id").Exec(ctx); err != nil {
		return err
	}
	titles := []string{"Relire le rapport d'été", "Kaffee für das Team bestellen", "修复登录页面的错误", "Update the onboarding guide", "Préparer la démo de jeudi"}
	statuses := []string{"open", "open", "done"}
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	tasks := make([]Task, n)
	for i := range tasks {
		tasks[i] = Task{
			ID:       int64(i + 1),
			Title:    fmt.Sprintf("%s #%d", titles[i%len(titles)], i+1),
			Status:   statuses[i%len(statuses)],
			Priority: int64(i*7%5 + 1),
			Due:      start.Add(time.Duration(i*37%240) * time.Hour),
		}
	}
	_, err := db.NewInsert().Model(&tasks).Exec(ctx)
	return err
}
