package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
	"github.com/uptrace/bun"
)

// benchVault is the vault of BenchmarkContext: 2,500 notes top/NNNN under
// one root, each with 3 children of 40 lines behind front matter (10,001
// notes).
func benchVault(yield func(ports.Note) bool) {
	if !yield(ports.Note{ID: "root", Title: "Root", Content: "the root\n", UpdatedAt: base}) {
		return
	}
	body := strings.Repeat("A line of the child.\n", 40)
	for i := range 2500 {
		top := fmt.Sprintf("top/%04d", i)
		if !yield(ports.Note{ID: top, Title: fmt.Sprintf("Top %04d", i), Content: "top note\n",
			Parents: []string{"root"}, UpdatedAt: base.Add(time.Duration(i) * time.Hour)}) {
			return
		}
		for k := range 3 {
			if !yield(ports.Note{ID: fmt.Sprintf("%s/c%d", top, k), Title: fmt.Sprintf("Child %d of %04d", k, i),
				Content: fmt.Sprintf("---\ntags: [x]\n---\n\nChild %d of top %04d.\n%s", k, i, body),
				Parents: []string{top}, UpdatedAt: base.Add(time.Duration(i)*time.Hour - time.Minute)}) {
				return
			}
		}
	}
}

// BenchmarkContext measures list_notes and search_notes, limit 50, in
// Balanced mode (one level of children with snippets for every result) at
// 10,001 notes on SQLite and Postgres (with BOUNDED_PG_DSN): "page" is the
// page alone (detail="concise"), "batched" the page with its context read
// by the batched methods, "one-by-one" the same response with the context
// read one result at a time, as before them. Each reports its statements
// per call as stmts/op.
//
//	BOUNDED_PG_DSN=... go test ./tools -run '^$' -bench Context -benchtime 2s
func BenchmarkContext(b *testing.B) {
	engines := []struct {
		name  string
		open  func(b *testing.B) store
		newOn func(ctx context.Context, db bun.IDB) (ports.Notes, error)
	}{
		{"sqlite", func(b *testing.B) store {
			s, db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return s
		}, func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return sqlite.New(ctx, db) }},
		{"postgres", func(b *testing.B) store { return openPostgres(b) },
			func(ctx context.Context, db bun.IDB) (ports.Notes, error) { return postgres.New(ctx, db) }},
	}
	calls := []struct{ tool, args string }{
		{"list_notes", `{"limit":50}`},
		{"search_notes", `{"query":"top 1","limit":50}`},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s := e.open(b)
			db := s.(interface{ DB() bun.IDB }).DB().(*bun.DB)
			err := db.RunInTx(b.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
				ts, err := e.newOn(ctx, tx)
				if err != nil {
					return err
				}
				for n := range benchVault {
					if err := ts.PutNote(ctx, n); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			// Statistics, as a database in use has them (autovacuum).
			if _, err := db.ExecContext(b.Context(), "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			counter := &statementCounter{}
			//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
			db.AddQueryHook(counter)
			sets := map[string]store{"batched": s, "one-by-one": perResult{s}}
			for _, c := range calls {
				for _, variant := range []string{"page", "batched", "one-by-one"} {
					st, args := sets[variant], c.args
					if variant == "page" {
						st, args = s, strings.TrimSuffix(args, "}")+`,"detail":"concise"}`
					}
					set, err := tools.New(tools.Config{Notes: st, Knowledge: st, History: st, Code: st, Budget: quiet, Mode: tools.Balanced})
					if err != nil {
						b.Fatal(err)
					}
					b.Run(c.tool+"/"+variant, func(b *testing.B) {
						start := counter.n.Load()
						for b.Loop() {
							if _, err := set.Call(b.Context(), c.tool, json.RawMessage(args)); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(counter.n.Load()-start)/float64(b.N), "stmts/op")
					})
				}
			}
		})
	}
}
