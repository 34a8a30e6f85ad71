package tools_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
	"github.com/uptrace/bun"
)

// costEngines are the SQL engines of TestToolStatements and
// BenchmarkToolCost: SQLite in a temporary file, Postgres at
// BOUNDED_PG_DSN (skipped without it).
var costEngines = []struct {
	name  string
	open  func(tb testing.TB) store
	newOn func(ctx context.Context, db bun.IDB) (ports.Notes, error)
}{
	{"sqlite", func(tb testing.TB) store {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "cost.db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return s
	}, func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return sqlite.New(ctx, db) }},
	{"postgres", openPostgres, func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return postgres.New(ctx, db) }},
}

// rawIDs runs query with args and returns the first column of its rows,
// reading every column.
func rawIDs(ctx context.Context, db *bun.DB, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	var ids []string
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return nil, err
		}
		ids = append(ids, string(*vals[0].(*sql.RawBytes)))
	}
	return ids, rows.Err()
}

// Hand-written statements: what a user would write for the same data,
// without counts or transactions.
const (
	rawNote     = "SELECT id, title, tags, created_at, updated_at, content FROM bounded_notes WHERE id = ?"
	rawParents  = "SELECT t.id, t.title, t.is_note FROM bounded_note_parents r JOIN bounded_note_nodes t ON t.id = r.parent_id WHERE r.note_id IN (?) ORDER BY t.title, t.id LIMIT 5"
	rawChildren = "SELECT id, parent_id, title, is_note FROM (SELECT t.id, p.parent_id, t.title, t.is_note," +
		" ROW_NUMBER() OVER (PARTITION BY p.parent_id ORDER BY t.title, t.id) AS rn" +
		" FROM bounded_note_parents p JOIN bounded_note_nodes t ON t.id = p.note_id WHERE p.parent_id IN (?)) AS c WHERE rn <= 10"
	rawHeads = "SELECT id, title, tags, created_at, updated_at, content FROM bounded_notes WHERE id IN (?)"
	rawList  = "SELECT id, title, tags, updated_at FROM bounded_notes ORDER BY updated_at DESC, id LIMIT 11"
)

// rawContext reads the first 10 children of each of ids (and the parents
// of one id) and
// the heads of the notes among them: the context get_note and the
// listings attach.
func rawContext(ctx context.Context, db *bun.DB, ids []string, parents bool) error {
	var heads []string
	if parents {
		p, err := rawIDs(ctx, db, rawParents, bun.List(ids))
		if err != nil {
			return err
		}
		heads = append(heads, p...)
	}
	c, err := rawIDs(ctx, db, rawChildren, bun.List(ids))
	if err != nil {
		return err
	}
	heads = append(heads, c...)
	if len(heads) == 0 {
		return nil
	}
	_, err = rawIDs(ctx, db, rawHeads, bun.List(heads))
	return err
}

// rawSearch is the plain page of search_notes for the folded query q on
// engine, and its arguments: on SQLite through the FTS5 index (selective)
// or walking the notes in order, title matches first (walk); on Postgres
// as a user writes it with LIKE.
func rawSearch(engine, q string, walk bool) (string, []any) {
	like := "%" + q + "%"
	switch {
	case engine == "postgres":
		return "SELECT id, title, tags, updated_at, CASE WHEN strpos(title_fold, ?) > 0 THEN 0 ELSE 1 END AS rnk FROM bounded_notes" +
			" WHERE title_fold LIKE ? OR content_fold LIKE ? ORDER BY rnk, updated_at DESC, id LIMIT 11", []any{q, like, like}
	case walk:
		return "SELECT * FROM (SELECT id, title, tags, updated_at FROM bounded_notes WHERE instr(title_fold, ?) > 0 ORDER BY updated_at DESC, id LIMIT 11)" +
			" UNION ALL SELECT * FROM (SELECT id, title, tags, updated_at FROM bounded_notes WHERE instr(title_fold, ?) = 0 AND instr(content_fold, ?) > 0" +
			" ORDER BY updated_at DESC, id LIMIT 11) LIMIT 11", []any{q, q, q}
	}
	return "SELECT id, title, tags, updated_at, CASE WHEN instr(title_fold, ?) > 0 THEN 0 ELSE 1 END AS rnk FROM bounded_notes" +
		" WHERE id IN (SELECT i.id FROM bounded_notes_fts f JOIN bounded_note_fts_ids i ON i.rid = f.rowid WHERE bounded_notes_fts MATCH ?)" +
		" AND (instr(title_fold, ?) > 0 OR instr(content_fold, ?) > 0) ORDER BY rnk, updated_at DESC, id LIMIT 11", []any{q, `"` + q + `"`, q, q}
}

// BenchmarkToolCost times, on a vault of 6,000 Markdown notes in four
// languages ([costVault]), each call of costCalls in Balanced mode against
// the hand-written statements that read the same data, side by side in
// every iteration: "tool-ms" and "tool-stmts" are the call's, "raw-ms"
// and "raw-stmts" the statements', "ratio" the call's time over theirs.
// "pk-ms" is the note's primary-key lookup alone (get_note) or the plain
// page alone (the listings).
//
//	BOUNDED_PG_DSN=... go test ./tools -run '^$' -bench ToolCost -benchtime 200x -count 3
func BenchmarkToolCost(b *testing.B) {
	for _, e := range costEngines {
		b.Run(e.name, func(b *testing.B) {
			s := e.open(b)
			db := loadCostVault(b, s, 6000, e.newOn)
			counter := &statementCounter{}
			//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
			db.AddQueryHook(counter)
			set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet, Mode: tools.Balanced})
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range costCalls {
				var args struct {
					ID, Query string
				}
				if err := json.Unmarshal([]byte(c.args), &args); err != nil {
					b.Fatal(err)
				}
				// page is the plain page; rest reads the context of its rows.
				var page func(ctx context.Context) ([]string, error)
				parents := false
				switch c.tool {
				case "get_note":
					page = func(ctx context.Context) ([]string, error) { return rawIDs(ctx, db, rawNote, args.ID) }
					parents = true
				case "list_notes":
					page = func(ctx context.Context) ([]string, error) { return rawIDs(ctx, db, rawList) }
				default:
					q, qargs := rawSearch(e.name, ports.Fold(args.Query), c.name == "search_notes/broad")
					page = func(ctx context.Context) ([]string, error) { return rawIDs(ctx, db, q, qargs...) }
				}
				b.Run(c.name, func(b *testing.B) {
					ctx := b.Context()
					var tool, raw, pk time.Duration
					var toolStmts, rawStmts int64
					for b.Loop() {
						n := counter.n.Load()
						start := time.Now()
						if _, err := set.Call(ctx, c.tool, json.RawMessage(c.args)); err != nil {
							b.Fatal(err)
						}
						tool += time.Since(start)
						toolStmts += counter.n.Load() - n
						n = counter.n.Load()
						start = time.Now()
						ids, err := page(ctx)
						if err == nil {
							pk += time.Since(start)
							err = rawContext(ctx, db, ids[:min(len(ids), 10)], parents)
						}
						raw += time.Since(start)
						rawStmts += counter.n.Load() - n
						if err != nil {
							b.Fatal(err)
						}
					}
					n := float64(b.N)
					b.ReportMetric(float64(tool.Microseconds())/1e3/n, "tool-ms")
					b.ReportMetric(float64(raw.Microseconds())/1e3/n, "raw-ms")
					b.ReportMetric(float64(pk.Microseconds())/1e3/n, "pk-ms")
					b.ReportMetric(float64(toolStmts)/n, "tool-stmts")
					b.ReportMetric(float64(rawStmts)/n, "raw-stmts")
					b.ReportMetric(float64(tool)/float64(raw), "ratio")
				})
			}
		})
	}
}
