package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
	"github.com/uptrace/bun"
)

// costCalls are the calls TestToolStatements counts and BenchmarkToolCost
// times on [costVault]: stmts is the most statements each may run on
// SQLite, then on Postgres, in Balanced mode.
var costCalls = []struct {
	name, tool, args string
	stmts            [2]int
}{
	// The note, then its context: parents, two levels of children and
	// the snippets of both.
	{"get_note", "get_note", `{"id":"en/topics/t001/Note 150"}`, [2]int{2, 2}},
	{"get_note/index", "get_note", `{"id":"en/topics/t001/index"}`, [2]int{2, 2}},
	// The page, then its context.
	{"list_notes", "list_notes", `{"limit":10}`, [2]int{2, 2}},
	// SQLite reads a term its FTS5 index finds in at most 2,000 notes
	// through the index, with its count, in one statement (each term on
	// TestToolStatements' 800 notes); past them that statement reads no
	// note, and the density probe and the walk follow ("budget" on
	// BenchmarkToolCost's 6,000). Postgres' planner chooses alone.
	{"search_notes/broad", "search_notes", `{"query":"budget","limit":10}`, [2]int{4, 2}},
	{"search_notes/selective", "search_notes", `{"query":"note 123","limit":10}`, [2]int{2, 2}},
	{"search_notes/rare", "search_notes", `{"query":"note 1234","limit":10}`, [2]int{2, 2}},
}

// loadCostVault writes costVault(n) into the store of a SQL engine in one
// transaction, through a store on it made by newOn, and gathers the
// statistics.
func loadCostVault(tb testing.TB, s store, n int, newOn func(ctx context.Context, db bun.IDB) (ports.Notes, error)) *bun.DB {
	tb.Helper()
	db := s.(interface{ DB() bun.IDB }).DB().(*bun.DB)
	err := db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		ts, err := newOn(ctx, tx)
		if err != nil {
			return err
		}
		for _, note := range costVault(n) {
			if err := ts.PutNote(ctx, note); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
	return db
}

// TestToolStatements counts the statements of get_note, list_notes and
// search_notes (a broad and a selective term) in Balanced mode on SQLite
// and Postgres, and fails when a call runs more than costCalls allows.
// Every call but the selective and rare searches (whose results have no
// children) must return the context of its first result.
func TestToolStatements(t *testing.T) {
	for i, e := range costEngines {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t)
			loadCostVault(t, s, 800, e.newOn)
			counter := countStatements(t, s)
			set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet, Mode: tools.Balanced})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range costCalls {
				before := counter.n.Load()
				out, err := set.Call(t.Context(), c.tool, json.RawMessage(c.args))
				if err != nil {
					t.Fatalf("%s(%s): %v", c.tool, c.args, err)
				}
				got := int(counter.n.Load() - before)
				if got > c.stmts[i] {
					t.Errorf("%s(%s): %d statements, want at most %d", c.tool, c.args, got, c.stmts[i])
				}
				var env struct {
					Results []struct{ Context *tools.Context }
				}
				if err := json.Unmarshal(out, &env); err != nil {
					t.Fatal(err)
				}
				first := func() *tools.Context { return env.Results[0].Context }
				if c.name != "search_notes/selective" && c.name != "search_notes/rare" && (len(env.Results) == 0 || first() == nil || first().Parents == nil && first().Children == nil) {
					t.Errorf("%s(%s): no context in the response:\n%.1000s", c.tool, c.args, out)
				}
				t.Logf("%s(%s): %d statements", c.tool, c.args, got)
			}
		})
	}
}
