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
// DO UPDATE) is the same in SQLite (3.24 and later) and Postgres; with
// [Dialect.OnDuplicateKey], INSERT ... ON DUPLICATE KEY UPDATE.
func (s *Store) upsert(ctx context.Context, db bun.IDB, table string, cols []string, vals []any) error {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	b.WriteString(strings.Join(cols, ", "))
	b.WriteString(") VALUES (")
	b.WriteString(placeholders(len(cols)))
	if s.d.OnDuplicateKey {
		b.WriteString(") ON DUPLICATE KEY UPDATE ")
	} else {
		b.WriteString(") ON CONFLICT (")
		b.WriteString(cols[0])
		b.WriteString(") DO UPDATE SET ")
	}
	for i, c := range cols[1:] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c)
		if s.d.OnDuplicateKey {
			b.WriteString(" = VALUES(" + c + ")")
		} else {
			b.WriteString(" = excluded.")
			b.WriteString(c)
		}
	}
	_, err := db.ExecContext(ctx, b.String(), vals...)
	return err
}

// ignoreDuplicates is the suffix of an INSERT into a table whose primary
// key is the columns key, skipping the rows already there.
func (s *Store) ignoreDuplicates(key ...string) string {
	if s.d.OnDuplicateKey {
		return "ON DUPLICATE KEY UPDATE " + key[0] + " = " + key[0]
	}
	return "ON CONFLICT (" + strings.Join(key, ", ") + ") DO NOTHING"
}
