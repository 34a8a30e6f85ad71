package sqlstore

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// insertBatch is the most rows one INSERT statement carries.
const insertBatch = 200

// insertRows inserts rows into table's cols with multi-row INSERTs of at
// most insertBatch rows. suffix (e.g. "ON CONFLICT DO NOTHING") ends each
// statement.
func insertRows(ctx context.Context, db bun.IDB, table string, cols []string, rows [][]any, suffix string) error {
	row := "(" + placeholders(len(cols)) + ")"
	for len(rows) > 0 {
		n := min(len(rows), insertBatch)
		var b strings.Builder
		b.WriteString("INSERT INTO ")
		b.WriteString(table)
		b.WriteString(" (")
		b.WriteString(strings.Join(cols, ", "))
		b.WriteString(") VALUES ")
		args := make([]any, 0, n*len(cols))
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(row)
			args = append(args, r...)
		}
		if suffix != "" {
			b.WriteString(" ")
			b.WriteString(suffix)
		}
		if _, err := db.ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// upsert inserts one row into table, replacing the row with the same key
// (the first column) if there is one. The syntax (INSERT ... ON CONFLICT
// DO UPDATE) is the same in SQLite (3.24 and later) and Postgres.
func upsert(ctx context.Context, db bun.IDB, table string, cols []string, vals []any) error {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	b.WriteString(strings.Join(cols, ", "))
	b.WriteString(") VALUES (")
	b.WriteString(placeholders(len(cols)))
	b.WriteString(") ON CONFLICT (")
	b.WriteString(cols[0])
	b.WriteString(") DO UPDATE SET ")
	for i, c := range cols[1:] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c)
		b.WriteString(" = excluded.")
		b.WriteString(c)
	}
	_, err := db.ExecContext(ctx, b.String(), vals...)
	return err
}
