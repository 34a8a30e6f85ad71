// Package benchutil benchmarks an adapter's pages against the same query
// written by hand with bun's query builder, on data bulk-loaded straight
// into the adapter's tables. The adapters' bench_test.go files run it:
// [Run] as BenchmarkPages, [RunDepth] (deep pages by offset and by cursor,
// count strategies, application baselines) as BenchmarkDepth.
//
//	go test -run '^$' -bench Pages -benchtime 200x ./adapters/sqlite/
//	BOUNDED_BENCH_ROWS=1000000 go test -run '^$' -bench Pages -benchtime 50x -timeout 2h ./adapters/sqlite/
package benchutil

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Store is the ports an adapter under benchmark implements.
type Store interface {
	ports.Notes
	ports.Knowledge
	ports.History
	ports.Code
}

// Opener opens a new, empty store and its bun database for a data set of
// rows rows (e.g. a fresh file or schema); cleanup with b.Cleanup.
type Opener func(b *testing.B, rows int) (Store, *bun.DB)

// Rows returns the data set sizes to run: 10,000, and BOUNDED_BENCH_ROWS
// when set (e.g. 1000000; loading takes minutes).
func Rows() []int {
	rows := []int{10_000}
	if v := os.Getenv("BOUNDED_BENCH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil && n > 0 && n != 10_000 {
			rows = append(rows, n)
		}
	}
	return rows
}

// Offsets are the page depths measured.
var offsets = []int{0, 1_000, 10_000, 100_000, 500_000}

// Run loads each data set into a store from open and runs, for SearchNodes
// (exact), Backlinks and ResponseHistory at each offset depth below the
// data set's size, side by side in each iteration and reported as metrics
// (ns/op each, and the ratio adapter/bun), the adapter's method
// ("adapter") and the same page and
// total read with hand-written bun queries ("bun": one SELECT ... LIMIT
// OFFSET for the page and one SELECT count(*) for the total, in one
// transaction, REPEATABLE READ on Postgres; the rows decoded into the same
// values), the hand-written page query alone without a total ("bunpage"),
// and, for Backlinks and ResponseHistory, the naive page query that fetches
// and joins the rows of the items the OFFSET skips ("bunnaive"; the
// adapter and the other two read the page's keys from a covering index
// first, then join only those).
func Run(b *testing.B, open Opener) {
	for _, rows := range Rows() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			store, db := open(b, rows)
			loadAndAnalyze(ctx, b, db, rows)
			cases := []struct {
				name    string
				limit   int
				total   int
				adapter func(ctx context.Context, p bounded.Page) (int, error)
				bun     func(ctx context.Context, p bounded.Page, v variant) (int, error)
			}{
				{"SearchNodes", 100, rows / 2,
					func(ctx context.Context, p bounded.Page) (int, error) {
						pg, err := store.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alpha"}}, p)
						return len(pg.Items), err
					},
					func(ctx context.Context, p bounded.Page, v variant) (int, error) {
						return handSearchNodes(ctx, db, "alpha", p, v)
					}},
				{"Backlinks", 100, rows,
					func(ctx context.Context, p bounded.Page) (int, error) {
						pg, err := store.Backlinks(ctx, "hub", p)
						return len(pg.Items), err
					},
					func(ctx context.Context, p bounded.Page, v variant) (int, error) {
						return handBacklinks(ctx, db, "hub", p, v)
					}},
				{"ResponseHistory", 10, rows,
					func(ctx context.Context, p bounded.Page) (int, error) {
						pg, err := store.ResponseHistory(ctx, "ep", p)
						return len(pg.Items), err
					},
					func(ctx context.Context, p bounded.Page, v variant) (int, error) {
						return handHistory(ctx, db, "ep", p, v)
					}},
			}
			for _, c := range cases {
				for _, off := range offsets {
					if off >= c.total {
						continue
					}
					p := bounded.Page{Limit: c.limit, Offset: off}
					impls := []struct {
						name string
						f    func(ctx context.Context, p bounded.Page) (int, error)
					}{
						{"adapter", c.adapter},
						{"bun", func(ctx context.Context, p bounded.Page) (int, error) { return c.bun(ctx, p, pageCount) }},
						{"bunpage", func(ctx context.Context, p bounded.Page) (int, error) { return c.bun(ctx, p, page) }},
					}
					if c.name != "SearchNodes" { // no deferred join there: bunnaive would be bunpage
						impls = append(impls, struct {
							name string
							f    func(ctx context.Context, p bounded.Page) (int, error)
						}{"bunnaive", func(ctx context.Context, p bounded.Page) (int, error) { return c.bun(ctx, p, naive) }})
					}
					// One benchmark runs every version in turn, each
					// iteration, so that the load of the machine weighs on
					// all alike; ns/op is their sum, the metrics each one's
					// time and the ratio adapter / bun.
					b.Run(fmt.Sprintf("%s/offset=%d", c.name, off), func(b *testing.B) {
						spent := make([]time.Duration, len(impls))
						n := 0
						for b.Loop() {
							for i, impl := range impls {
								start := time.Now()
								got, err := impl.f(ctx, p)
								spent[i] += time.Since(start)
								if err != nil {
									b.Fatalf("%s: %v", impl.name, err)
								}
								if got != c.limit {
									b.Fatalf("%s: got %d items, want %d", impl.name, got, c.limit)
								}
							}
							n++
						}
						for i, impl := range impls {
							b.ReportMetric(float64(spent[i].Nanoseconds())/float64(n), impl.name+"-ns/op")
						}
						b.ReportMetric(float64(spent[0])/float64(spent[1]), "adapter/bun")
					})
				}
			}
		})
	}
}

// Load bulk-loads n notes (each linking to "hub", so Backlinks("hub") has
// n items, in the folder "notes"), n runs of endpoint "ep" (every tenth body 1,500 characters,
// the others 100) and n entities (half named "alpha ...") straight into
// the adapter's tables, with multi-row INSERTs in one transaction. The
// entities' trigrams are loaded by [LoadTrigrams].
func Load(ctx context.Context, db *bun.DB, n int) error {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	// A permutation of 0..n-1: distinct, shuffled times.
	perm := func(i int) int64 { return int64((i*7919 + 13) % n) }
	if db.Dialect().Name() == dialect.SQLite {
		// A page cache big enough for the indexes being filled.
		if _, err := db.ExecContext(ctx, "PRAGMA cache_size = -1000000"); err != nil {
			return err
		}
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ins := newInserter(ctx, tx)
		for i := range n {
			id := fmt.Sprintf("notes/%07d", i)
			title := fmt.Sprintf("Note %d", i)
			content := fmt.Sprintf("Content of note %d, linking to the hub.", i)
			tags := []string{fmt.Sprintf("t%d", i%5)}
			tj, _ := json.Marshal(tags)
			updated := base + perm(i)*1_000_000
			ins.add("bounded_notes", "id, title, title_fold, content, content_fold, tags, created_at, updated_at",
				id, title, ports.Fold(title), content, ports.Fold(content), string(tj), base, updated)
			ins.add("bounded_note_tags", "note_id, tag, updated_at", id, tags[0], updated)
			ins.add("bounded_note_links", "source_id, pos, target, is_external, link_text, host", id, 0, "hub", 0, "", "")
			ins.add("bounded_note_backlinks", "target, source_id, updated_at", "hub", id, updated)
			ins.add("bounded_note_nodes", "id, is_note, below, depth, name_fold, title, id_fold", id, 1, 0, 1, ports.Fold(ports.NodeName(id)), title, ports.Fold(id))
			ins.add("bounded_note_parents", "note_id, parent_id", id, "notes")

			body := strings.Repeat("x", 100)
			if i%10 == 0 {
				body = strings.Repeat("é", 1500)
			}
			ins.add("bounded_runs", "id, endpoint_id, started_at, finished_at, status, status_code, body, body_chars",
				fmt.Sprintf("run/%07d", i), "ep", base+perm(i)*1_000_000, base+perm(i)*1_000_000+500, "ok", 200, body, utf8.RuneCountInString(body))

			name := entityName(i)
			tri := ports.Trigrams(name)
			ins.add("bounded_entities", "name, entity_type, name_fold, type_fold, observations, tags, updated_at, trigram_count",
				name, "concept", ports.Fold(name), "concept", "", "", base+perm(i)*1_000_000, len(tri))
			if ins.err != nil {
				return ins.err
			}
		}
		// The folder of the notes.
		ins.add("bounded_note_nodes", "id, is_note, below, depth, name_fold, title, id_fold", "notes", 0, n, 0, "notes", "notes", "notes")
		ins.flushAll()
		return ins.err
	})
}

// entityName is the name of the i-th entity [Load] writes.
func entityName(i int) string {
	words := []string{"beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
	first := "alpha"
	if i%2 == 1 {
		first = words[i%len(words)]
	}
	return fmt.Sprintf("%s %s %d", first, words[(i/2)%len(words)], i)
}

// LoadTrigrams writes the trigrams of the n entities [Load] wrote, as
// fuzzy search over the trigram table reads them, in one transaction.
func LoadTrigrams(ctx context.Context, db *bun.DB, n int) error {
	return loadTrigrams(ctx, db, n, entityName)
}

// inserter batches rows into multi-row INSERTs, per table.
type inserter struct {
	ctx  context.Context
	db   bun.IDB
	cols map[string]string
	rows map[string][][]any
	err  error
}

func newInserter(ctx context.Context, db bun.IDB) *inserter {
	return &inserter{ctx: ctx, db: db, cols: map[string]string{}, rows: map[string][][]any{}}
}

const batch = 500

func (in *inserter) add(table, cols string, vals ...any) {
	in.cols[table] = cols
	in.rows[table] = append(in.rows[table], vals)
	if len(in.rows[table]) >= batch {
		in.flush(table)
	}
}

func (in *inserter) flush(table string) {
	rows := in.rows[table]
	if in.err != nil || len(rows) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + in.cols[table] + ") VALUES ")
	args := make([]any, 0, len(rows)*len(rows[0]))
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(rows[0])), ", ") + ")"
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
		args = append(args, r...)
	}
	_, in.err = in.db.ExecContext(in.ctx, b.String(), args...)
	in.rows[table] = rows[:0]
}

func (in *inserter) flushAll() {
	for t := range in.rows {
		in.flush(t)
	}
}

// variant is a hand-written version of a page.
type variant int

const (
	pageCount variant = iota // the page and the total in one transaction
	page                     // the page alone
	naive                    // the page alone, joining the rows of skipped items too
)

// inTx runs f in a transaction when count is set (the page and the count
// must come from one snapshot: REPEATABLE READ on Postgres), and on db
// directly otherwise (the page alone, one statement).
func inTx(ctx context.Context, db *bun.DB, count bool, f func(ctx context.Context, db bun.IDB) error) error {
	if !count {
		return f(ctx, db)
	}
	var opts *sql.TxOptions
	if db.Dialect().Name() == dialect.PG {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error { return f(ctx, tx) })
}

// keyJoin joins table's rows to the keys k.id as the adapter does: with a
// lateral subquery on Postgres (whose planner may otherwise hash a whole
// table), a plain join on SQLite.
func keyJoin(db *bun.DB, table, alias string) string {
	if db.Dialect().Name() == dialect.PG {
		return "CROSS JOIN LATERAL (SELECT * FROM " + table + " WHERE id = k.id LIMIT 1) AS " + alias
	}
	return "JOIN " + table + " AS " + alias + " ON " + alias + ".id = k.id"
}

// refRow is a note as the hand-written queries scan it.
type refRow struct {
	ID        string `bun:"id"`
	Title     string `bun:"title"`
	Tags      string `bun:"tags"`
	UpdatedAt int64  `bun:"updated_at"`
}

func (r refRow) ref() (ports.NoteRef, error) {
	ref := ports.NoteRef{ID: r.ID, Title: r.Title, UpdatedAt: time.UnixMicro(r.UpdatedAt).UTC()}
	if r.Tags != "" {
		if err := json.Unmarshal([]byte(r.Tags), &ref.Tags); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// handBacklinks is Backlinks written by hand with bun.
func handBacklinks(ctx context.Context, db *bun.DB, id string, p bounded.Page, v variant) (int, error) {
	var rows []refRow
	var total int64
	err := inTx(ctx, db, v == pageCount, func(ctx context.Context, tx bun.IDB) error {
		var err error
		if v == naive {
			err = tx.NewSelect().TableExpr("bounded_note_backlinks AS b").
				Join("JOIN bounded_notes AS n ON n.id = b.source_id").
				ColumnExpr("n.id, n.title, n.tags, n.updated_at").
				Where("b.target = ?", id).
				OrderExpr("b.updated_at DESC, b.source_id").
				Limit(int64(p.Limit)).Offset(int64(p.Offset)).Scan(ctx, &rows)
		} else {
			keys := tx.NewSelect().TableExpr("bounded_note_backlinks AS b").ColumnExpr("b.source_id AS id").
				Where("b.target = ?", id).
				OrderExpr("b.updated_at DESC, b.source_id").
				Limit(int64(p.Limit)).Offset(int64(p.Offset))
			err = tx.NewSelect().TableExpr("(?) AS k", keys).
				Join(keyJoin(db, "bounded_notes", "n")).
				ColumnExpr("n.id, n.title, n.tags, n.updated_at").
				OrderExpr("n.updated_at DESC, n.id").Scan(ctx, &rows)
		}
		if err != nil || v != pageCount {
			return err
		}
		total, err = tx.NewSelect().TableExpr("bounded_note_backlinks AS b").Where("b.target = ?", id).Count(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	items := make([]ports.NoteRef, 0, len(rows))
	for _, r := range rows {
		ref, err := r.ref()
		if err != nil {
			return 0, err
		}
		items = append(items, ref)
	}
	_ = total
	return len(items), nil
}

// runRow is a run as the hand-written query scans it.
type runRow struct {
	ID         string `bun:"id"`
	EndpointID string `bun:"endpoint_id"`
	StartedAt  int64  `bun:"started_at"`
	FinishedAt int64  `bun:"finished_at"`
	Status     string `bun:"status"`
	StatusCode int    `bun:"status_code"`
	Body       string `bun:"body"`
	BodyChars  int    `bun:"body_chars"`
}

// handHistory is ResponseHistory written by hand with bun.
func handHistory(ctx context.Context, db *bun.DB, endpoint string, p bounded.Page, v variant) (int, error) {
	var rows []runRow
	var total int64
	const cols = "r.id, r.endpoint_id, r.started_at, r.finished_at, r.status, r.status_code, substr(r.body, 1, ?) AS body, r.body_chars"
	err := inTx(ctx, db, v == pageCount, func(ctx context.Context, tx bun.IDB) error {
		var err error
		if v == naive {
			err = tx.NewSelect().TableExpr("bounded_runs AS r").
				ColumnExpr(cols, ports.HistoryBodyChars).
				Where("r.endpoint_id = ?", endpoint).
				OrderExpr("r.started_at DESC, r.id DESC").
				Limit(int64(p.Limit)).Offset(int64(p.Offset)).Scan(ctx, &rows)
		} else {
			keys := tx.NewSelect().TableExpr("bounded_runs").ColumnExpr("id").
				Where("endpoint_id = ?", endpoint).
				OrderExpr("started_at DESC, id DESC").
				Limit(int64(p.Limit)).Offset(int64(p.Offset))
			err = tx.NewSelect().TableExpr("(?) AS k", keys).
				Join(keyJoin(db, "bounded_runs", "r")).
				ColumnExpr(cols, ports.HistoryBodyChars).
				OrderExpr("r.started_at DESC, r.id DESC").Scan(ctx, &rows)
		}
		if err != nil || v != pageCount {
			return err
		}
		total, err = tx.NewSelect().TableExpr("bounded_runs AS r").Where("r.endpoint_id = ?", endpoint).Count(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	items := make([]ports.RunView, 0, len(rows))
	for _, r := range rows {
		body, info := bounded.ClipPrefix(r.Body, ports.HistoryBodyChars, r.BodyChars)
		items = append(items, ports.RunView{ID: r.ID, EndpointID: r.EndpointID,
			StartedAt: time.UnixMicro(r.StartedAt).UTC(), FinishedAt: time.UnixMicro(r.FinishedAt).UTC(),
			Status: r.Status, StatusCode: r.StatusCode, Body: body, BodyChars: info.OriginalChars, BodyTruncated: info.Clipped})
	}
	_ = total
	return len(items), nil
}

// entityRow is an entity as the hand-written query scans it.
type entityRow struct {
	Name         string `bun:"name"`
	EntityType   string `bun:"entity_type"`
	Observations string `bun:"observations"`
	Tags         string `bun:"tags"`
	UpdatedAt    int64  `bun:"updated_at"`
}

// handSearchNodes is SearchNodes in Exact mode for one query, written by
// hand with bun.
func handSearchNodes(ctx context.Context, db *bun.DB, query string, p bounded.Page, v variant) (int, error) {
	fq := ports.Fold(query)
	instr := "instr"
	if db.Dialect().Name() == dialect.PG {
		instr = "strpos"
	}
	where := func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where(instr+"(e.name_fold, ?) > 0 OR "+instr+"(e.type_fold, ?) > 0 OR e.name IN (SELECT o.name FROM bounded_entity_observations o WHERE "+instr+"(o.fold, ?) > 0)", fq, fq, fq)
	}
	var rows []entityRow
	var total int64
	err := inTx(ctx, db, v == pageCount, func(ctx context.Context, tx bun.IDB) error {
		err := where(tx.NewSelect().TableExpr("bounded_entities AS e").
			ColumnExpr("e.name, e.entity_type, e.observations, e.tags, e.updated_at")).
			OrderExpr("e.updated_at DESC, e.name").
			Limit(int64(p.Limit)).Offset(int64(p.Offset)).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		if v != pageCount {
			return nil
		}
		total, err = where(tx.NewSelect().TableExpr("bounded_entities AS e")).Count(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	items := make([]ports.NodeMatch, 0, len(rows))
	for _, r := range rows {
		e := ports.Entity{Name: r.Name, Type: r.EntityType, UpdatedAt: time.UnixMicro(r.UpdatedAt).UTC()}
		for _, l := range []struct {
			s   string
			dst *[]string
		}{{r.Observations, &e.Observations}, {r.Tags, &e.Tags}} {
			if l.s != "" {
				if err := json.Unmarshal([]byte(l.s), l.dst); err != nil {
					return 0, err
				}
			}
		}
		items = append(items, ports.NodeMatch{Entity: e, Score: 1})
	}
	_ = total
	return len(items), nil
}
