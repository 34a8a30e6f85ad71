package bunpage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// ErrNoIndex is returned by [Source.CheckIndex] for pages no index
// serves.
var ErrNoIndex = errors.New("bunpage: no index serves the order")

// CheckIndex asks the database for the plans of the source's first page
// and of the page after its first row, and returns an error wrapping
// [ErrNoIndex] when either sorts the rows or scans the table: the index
// the order needs, which the error names, is missing. Run it in a test,
// on a database with the application's schema and its indexes; on
// MariaDB and MySQL, with a few thousand rows, as their planner prefers a
// sort for a small table. On Postgres the plans are read with sorts and
// sequential scans disabled, so that the table's size does not matter.
func (s *Source[T]) CheckIndex(ctx context.Context) error {
	pages := []driver.Request{{Limit: 20, Count: bounded.CountNone}}
	first, err := s.Fetch(ctx, driver.Request{Limit: 1, Count: bounded.CountNone})
	if err != nil {
		return err
	}
	if len(first.Items) > 0 {
		if keys := first.Keys(first.Items[0]); keys != nil {
			pages = append(pages, driver.Request{Limit: 20, Count: bounded.CountNone, At: &driver.Cursor{Keys: keys}})
		}
	}
	for _, r := range pages {
		var at []any
		if r.At != nil {
			if at, err = s.args(r.At.Keys); err != nil {
				return err
			}
		}
		query, err := s.page(r, at).AppendQuery(s.bun.QueryGen(), nil)
		if err != nil {
			return fmt.Errorf("bunpage: %w", err)
		}
		problem, err := s.explain(ctx, string(query))
		if err != nil {
			return fmt.Errorf("bunpage: explain: %w", err)
		}
		if problem != "" {
			which := "the first page"
			if r.At != nil {
				which = "a page after a cursor"
			}
			return fmt.Errorf("%w: %s: %s; create an index on %s (%s), after any columns the query compares with =\n%s", ErrNoIndex, which, problem, s.table, s.indexColumns(), query)
		}
	}
	return nil
}

// indexColumns lists the index the order needs.
func (s *Source[T]) indexColumns() string {
	pg := s.db.Dialect().Name() == dialect.PG
	cols := make([]string, len(s.cols))
	for i, c := range s.cols {
		col := c.name
		if c.expr != "" {
			col = "(" + s.bun.QueryGen().FormatQuery(c.expr, c.exprArgs...) + ")"
		}
		if c.desc {
			col += " DESC"
		}
		// Postgres orders NULLs last ascending, first descending.
		if pg && c.nullable && c.nullsFirst != c.desc {
			col += map[bool]string{false: " NULLS LAST", true: " NULLS FIRST"}[c.nullsFirst]
		}
		cols[i] = col
	}
	return strings.Join(cols, ", ")
}

// explain returns what is wrong with query's plan: "" when it reads an
// index in order.
func (s *Source[T]) explain(ctx context.Context, query string) (string, error) {
	switch s.db.Dialect().Name() {
	case dialect.PG:
		return explainPG(ctx, s.db, query)
	case dialect.MySQL:
		return explainMySQL(ctx, s.db, query)
	case dialect.SQLite:
		return explainSQLite(ctx, s.db, query)
	}
	return "", fmt.Errorf("no plan check for %s", s.db.Dialect().Name())
}

func explainSQLite(ctx context.Context, db bun.IDB, query string) (string, error) {
	steps, err := sqlitePlan(ctx, db, query)
	var problems []string
	for _, s := range steps {
		if strings.Contains(s, "TEMP B-TREE") || strings.HasPrefix(s, "SCAN") && !strings.Contains(s, "INDEX") {
			problems = append(problems, fmt.Sprintf("SQLite's plan has %q", s))
		}
	}
	return strings.Join(problems, ", "), err
}

// sqlitePlan returns the details of SQLite's plan of query.
func sqlitePlan(ctx context.Context, db bun.IDB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		steps = append(steps, detail)
	}
	return steps, rows.Err()
}

// errExplained rolls back the transaction of a Postgres plan.
var errExplained = errors.New("explained")

func explainPG(ctx context.Context, db bun.IDB, query string) (string, error) {
	var plan pgNode
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, set := range []string{"SET LOCAL enable_sort = off", "SET LOCAL enable_seqscan = off"} {
			if _, err := tx.ExecContext(ctx, set); err != nil {
				return err
			}
		}
		var err error
		if plan, err = pgPlan(ctx, tx, query); err != nil {
			return err
		}
		return errExplained
	})
	if !errors.Is(err, errExplained) {
		return "", err
	}
	var problems []string
	for _, n := range plan.All() {
		if n.Type == "Sort" || n.Type == "Incremental Sort" || n.Type == "Seq Scan" {
			problems = append(problems, fmt.Sprintf("Postgres' plan has a %s", n.Type))
		}
	}
	return strings.Join(problems, ", "), nil
}

// pgNode is a node of Postgres' EXPLAIN (FORMAT JSON).
type pgNode struct {
	Type      string   `json:"Node Type"`
	Index     string   `json:"Index Name"`
	IndexCond string   `json:"Index Cond"`
	Plans     []pgNode `json:"Plans"`
}

// All returns n and the nodes below it.
func (n pgNode) All() []pgNode {
	out := []pgNode{n}
	for _, c := range n.Plans {
		out = append(out, c.All()...)
	}
	return out
}

// pgPlan returns Postgres' plan of query.
func pgPlan(ctx context.Context, db bun.IDB, query string) (pgNode, error) {
	var out string
	if err := db.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+query).Scan(&out); err != nil {
		return pgNode{}, err
	}
	var plans []struct {
		Plan pgNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) == 0 {
		return pgNode{}, fmt.Errorf("plan %q: %v", out, err)
	}
	return plans[0].Plan, nil
}

func explainMySQL(ctx context.Context, db bun.IDB, query string) (string, error) {
	steps, err := mysqlPlan(ctx, db, query)
	var problems []string
	for _, step := range steps {
		if step["type"] == "ALL" || strings.Contains(step["extra"], "filesort") {
			problems = append(problems, fmt.Sprintf("the plan reads %s with type %s (%s)", step["table"], step["type"], step["extra"]))
		}
	}
	return strings.Join(problems, ", "), err
}

// mysqlPlan returns the steps of MariaDB's or MySQL's plan of query, each
// by its columns' names in lower case.
func mysqlPlan(ctx context.Context, db bun.IDB, query string) ([]map[string]string, error) {
	rows, err := db.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var steps []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		step := map[string]string{}
		for i, c := range cols {
			step[strings.ToLower(c)] = vals[i].String
		}
		steps = append(steps, step)
	}
	return steps, rows.Err()
}
