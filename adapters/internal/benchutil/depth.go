package benchutil

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Depths returns the page depths RunDepth measures on a data set of rows
// items: 0, 1%, 10% and 90% of it (0, 10,000, 100,000 and 900,000 at a
// million rows).
func Depths(rows int) []int {
	return []int{0, rows / 100, rows / 10, rows * 9 / 10}
}

// RunDepth loads each data set ([Rows], [Load]) into a store from open and
// measures, for ListNotes (all notes, pages of 100), Backlinks("hub")
// (pages of 100) and ResponseHistory("ep") (pages of 10, its maximum),
// each variant side by side in every iteration, in a random order (so
// that the machine's load and the caches weigh on all alike), reported as
// metrics: each variant's median time in ms ("<variant>-ms") and the
// ratios between them ("a/b"). Every variant must return the same items,
// and every counted total must be right, or the benchmark fails.
//
//   - depths: the page at each depth of [Depths] by offset ("offset-dN")
//     and by cursor ("cursor-dN", the NextCursor of the offset page ending
//     at N, taken once before the timed loop), both without a count
//     (bounded.CountNone), so that the time is the page's alone. Ratios:
//     cursor-dN/cursor-d0 and offset-dN/cursor-dN. Allocations per page
//     (testing.AllocsPerRun) at depth 0 and at the deepest depth, by
//     offset and by cursor ("<variant>-allocs"): they must be the same at
//     every data set size. Against the cursor page, the same page as an
//     application would read it with a plain keyset query of a bun model
//     ("keyset-dN"): ratio cursor-dN/keyset-dN.
//   - counts/depth=N: the page at depth N (0 by offset, the deepest by
//     cursor) with each count strategy: none (the page alone), capped
//     (bounded.CountCapped, default cap: ten pages), capped10k (CountCap
//     10,000) and exact. Ratios: capped/none, capped10k/none and exact/none;
//     allocations per page of each.
//   - baselines/depth=N: at each depth, the adapter's page by offset with
//     its exact total ("adapter", the same answer as the hand-written
//     queries) and by cursor with a capped total ("cursor-capped"),
//     against what an application would write with bun instead: the model
//     query with Limit/Offset and ScanAndCount ("scanandcount"; bun runs
//     its count and its page concurrently, outside a transaction), and a
//     SELECT count(*) followed by the page's SELECT ... LIMIT ... OFFSET
//     ("countthenoffset", as most hand-written paging does). Ratios:
//     scanandcount/adapter, countthenoffset/adapter,
//     scanandcount/cursor-capped and countthenoffset/cursor-capped.
//
// Commands, from the module root (a -benchtime in seconds lets the deepest
// baselines, which take seconds an iteration, run only a few; the second
// runs 10,000 rows, then a million):
//
//	go test -run '^$' -bench Depth -benchtime 1s ./adapters/sqlite/
//	BOUNDED_BENCH_ROWS=1000000 go test -run '^$' -bench Depth -benchtime 3s -timeout 2h ./adapters/sqlite/
func RunDepth(b *testing.B, open Opener) {
	for _, rows := range Rows() {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			store, db := open(b, rows)
			loadAndAnalyze(ctx, b, db, rows)
			for _, m := range depthMethods(store, db) {
				b.Run(m.name+"/depths", func(b *testing.B) { benchDepths(ctx, b, m, rows) })
				for _, d := range []int{0, Depths(rows)[3]} {
					b.Run(fmt.Sprintf("%s/counts/depth=%d", m.name, d), func(b *testing.B) { benchCounts(ctx, b, m, rows, d) })
				}
				for _, d := range Depths(rows) {
					b.Run(fmt.Sprintf("%s/baselines/depth=%d", m.name, d), func(b *testing.B) { benchBaselines(ctx, b, m, rows, d) })
				}
			}
		})
	}
}

// loadAndAnalyze loads rows items ([Load]) and refreshes the planner's
// statistics (VACUUM ANALYZE on Postgres, which also sets the visibility
// map that index-only scans need).
func loadAndAnalyze(ctx context.Context, b *testing.B, db *bun.DB, rows int) {
	start := time.Now()
	if err := Load(ctx, db, rows); err != nil {
		b.Fatal(err)
	}
	analyze := "ANALYZE"
	if db.Dialect().Name() == dialect.PG {
		analyze = "VACUUM ANALYZE"
	}
	if _, err := db.ExecContext(ctx, analyze); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d rows per table in %v", rows, time.Since(start).Round(time.Millisecond))
}

// result is what one variant of a page returned.
type result struct {
	ids   []string // the items' IDs, in order
	total int
	kind  bounded.TotalKind
	next  string // NextCursor, for the adapter's pages
}

// depthMethod is a method RunDepth measures: its page size, the adapter's
// page, and the same page and exact total written by hand with bun.
type depthMethod struct {
	name  string
	limit int
	page  func(ctx context.Context, p bounded.Page) (result, error)
	// scanAndCount and countThenOffset return the page at offset off with
	// the exact total.
	scanAndCount    func(ctx context.Context, off int) (result, error)
	countThenOffset func(ctx context.Context, off int) (result, error)
	// keyset returns the page after the item named after ("" for the
	// first page) as an application would read it with bun: the plain
	// keyset query of the same columns, no count; the edge item's keys
	// are read when it is made, not when it runs.
	keyset func(ctx context.Context, after string) (func(ctx context.Context) (result, error), error)
}

func fromPage[T any](pg bounded.Paged[T], err error, id func(T) string) (result, error) {
	if err != nil {
		return result{}, err
	}
	r := result{ids: make([]string, len(pg.Items)), total: pg.Page.Total, kind: pg.Page.TotalKind, next: pg.Page.NextCursor}
	for i, it := range pg.Items {
		r.ids[i] = id(it)
	}
	return r, nil
}

func noteID(n ports.NoteRef) string { return n.ID }
func runID(r ports.RunView) string  { return r.ID }

func depthMethods(store Store, db *bun.DB) []depthMethod {
	return []depthMethod{
		{"ListNotes", 100,
			func(ctx context.Context, p bounded.Page) (result, error) {
				pg, err := store.ListNotes(ctx, ports.ListFilter{}, p)
				return fromPage(pg, err, noteID)
			},
			func(ctx context.Context, off int) (result, error) {
				return scanAndCountNotes(ctx, db, "", 100, off)
			},
			func(ctx context.Context, off int) (result, error) {
				return countThenOffsetNotes(ctx, db, "", 100, off)
			},
			func(ctx context.Context, after string) (func(ctx context.Context) (result, error), error) {
				return keysetNotes(ctx, db, "", 100, after)
			}},
		{"Backlinks", 100,
			func(ctx context.Context, p bounded.Page) (result, error) {
				pg, err := store.Backlinks(ctx, "hub", p)
				return fromPage(pg, err, noteID)
			},
			func(ctx context.Context, off int) (result, error) {
				return scanAndCountNotes(ctx, db, "hub", 100, off)
			},
			func(ctx context.Context, off int) (result, error) {
				return countThenOffsetNotes(ctx, db, "hub", 100, off)
			},
			func(ctx context.Context, after string) (func(ctx context.Context) (result, error), error) {
				return keysetNotes(ctx, db, "hub", 100, after)
			}},
		{"ResponseHistory", ports.ResponseHistoryLimits.Max,
			func(ctx context.Context, p bounded.Page) (result, error) {
				pg, err := store.ResponseHistory(ctx, "ep", p)
				return fromPage(pg, err, runID)
			},
			func(ctx context.Context, off int) (result, error) {
				return scanAndCountRuns(ctx, db, "ep", ports.ResponseHistoryLimits.Max, off)
			},
			func(ctx context.Context, off int) (result, error) {
				return countThenOffsetRuns(ctx, db, "ep", ports.ResponseHistoryLimits.Max, off)
			},
			func(ctx context.Context, after string) (func(ctx context.Context) (result, error), error) {
				return keysetRuns(ctx, db, "ep", ports.ResponseHistoryLimits.Max, after)
			}},
	}
}

// cursorAt returns the cursor of m's page at depth d (from the offset page
// ending there), "" for depth 0.
func cursorAt(ctx context.Context, b *testing.B, m depthMethod, d int) string {
	cur, _ := edgeAt(ctx, b, m, d)
	return cur
}

// edgeAt returns the cursor of m's page at depth d and the ID of the item
// before it (from the offset page ending there), "" for depth 0.
func edgeAt(ctx context.Context, b *testing.B, m depthMethod, d int) (cursor, id string) {
	if d == 0 {
		return "", ""
	}
	r, err := m.page(ctx, bounded.Page{Limit: m.limit, Offset: d - m.limit, Count: bounded.CountNone})
	if err != nil {
		b.Fatalf("%s: offset page at %d: %v", m.name, d-m.limit, err)
	}
	if r.next == "" || len(r.ids) == 0 {
		b.Fatalf("%s: the offset page at %d has no NextCursor", m.name, d-m.limit)
	}
	return r.next, r.ids[len(r.ids)-1]
}

// pageVariant is one way of reading a page, with the check of its total.
type pageVariant struct {
	name  string
	run   func(ctx context.Context) (result, error)
	check func(r result) error
	// like names an earlier variant that must return the same items; ""
	// compares with none.
	like string
	// allocs: report the allocations of one call ("<name>-allocs").
	allocs bool
}

func wantExact(n int) func(r result) error {
	return func(r result) error {
		if r.kind != bounded.TotalExact || r.total != n {
			return fmt.Errorf("total %d (%v), want %d (exact)", r.total, r.kind, n)
		}
		return nil
	}
}

// wantCapped checks a CountCapped total of n matching items under cap cp:
// exact up to the cap, a lower bound of at least the cap beyond it.
func wantCapped(n, cp int) func(r result) error {
	if n <= cp {
		return wantExact(n)
	}
	return func(r result) error {
		if r.kind != bounded.TotalAtLeast || r.total < cp || r.total > n {
			return fmt.Errorf("total %d (%v), want at least %d (TotalAtLeast)", r.total, r.kind, cp)
		}
		return nil
	}
}

func wantUnknown(r result) error {
	if r.kind != bounded.TotalUnknown {
		return fmt.Errorf("total kind %v, want %v", r.kind, bounded.TotalUnknown)
	}
	return nil
}

// sideBySide runs every variant once untimed (a warm-up), then each in
// turn in every iteration of b.Loop (in a new random order each time),
// failing when one returns an error, a
// page of other than limit items, other items than the variant it is
// like, or a wrong total. It reports each variant's median time in ms,
// the ratios named by ratios (pairs of variant names: numerator,
// denominator; the metric is "num/den") and the allocations of the
// variants that ask for them.
func sideBySide(ctx context.Context, b *testing.B, limit int, vs []pageVariant, ratios [][2]string) {
	got := make(map[string][]string, len(vs))
	// pass runs every variant in the given order.
	pass := func(timed [][]time.Duration, order []int) {
		for _, i := range order {
			v := vs[i]
			start := time.Now()
			r, err := v.run(ctx)
			if timed != nil {
				timed[i] = append(timed[i], time.Since(start))
			}
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			if len(r.ids) != limit {
				b.Fatalf("%s: got %d items, want %d", v.name, len(r.ids), limit)
			}
			if want, ok := got[v.like]; v.like != "" && (!ok || !slices.Equal(r.ids, want)) {
				b.Fatalf("%s returned other items than %s:\n got %q\nwant %q", v.name, v.like, r.ids, want)
			}
			if v.check != nil {
				if err := v.check(r); err != nil {
					b.Fatalf("%s: %v", v.name, err)
				}
			}
			got[v.name] = r.ids
		}
	}
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	pass(nil, order)
	// Each iteration runs the variants in a new random order: a page read
	// right after a deep OFFSET scan finds the caches cold (on SQLite 0.1
	// ms becomes 0.3), and a fixed order would always charge that to the
	// same variant.
	rnd := rand.New(rand.NewPCG(1, 2))
	spent := make([][]time.Duration, len(vs))
	for b.Loop() {
		rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		pass(spent, order)
	}
	b.StopTimer()
	med := make(map[string]float64, len(vs))
	for i, v := range vs {
		med[v.name] = median(spent[i])
		b.ReportMetric(med[v.name], v.name+"-ms")
	}
	for _, r := range ratios {
		b.ReportMetric(med[r[0]]/med[r[1]], r[0]+"/"+r[1])
	}
	for _, v := range vs {
		if v.allocs {
			b.ReportMetric(testing.AllocsPerRun(3, func() {
				if _, err := v.run(ctx); err != nil {
					b.Fatalf("%s: %v", v.name, err)
				}
			}), v.name+"-allocs")
		}
	}
}

// median returns the median of d in ms.
func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	var m time.Duration
	if n := len(s); n%2 == 1 {
		m = s[n/2]
	} else {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}

// benchDepths measures m's page at every depth by offset and by cursor,
// without a count.
func benchDepths(ctx context.Context, b *testing.B, m depthMethod, rows int) {
	depths := Depths(rows)
	deepest := depths[len(depths)-1]
	var vs []pageVariant
	var ratios [][2]string
	for _, d := range depths {
		cur, after := edgeAt(ctx, b, m, d)
		plain, err := m.keyset(ctx, after)
		if err != nil {
			b.Fatalf("%s: keyset query at %d: %v", m.name, d, err)
		}
		off, cu, ks := fmt.Sprintf("offset-d%d", d), fmt.Sprintf("cursor-d%d", d), fmt.Sprintf("keyset-d%d", d)
		edge := d == 0 || d == deepest
		vs = append(vs,
			pageVariant{name: off, allocs: edge, check: wantUnknown, run: func(ctx context.Context) (result, error) {
				return m.page(ctx, bounded.Page{Limit: m.limit, Offset: d, Count: bounded.CountNone})
			}},
			pageVariant{name: cu, like: off, allocs: edge, check: wantUnknown, run: func(ctx context.Context) (result, error) {
				return m.page(ctx, bounded.Page{Limit: m.limit, Cursor: cur, Count: bounded.CountNone})
			}},
			pageVariant{name: ks, like: off, check: wantUnknown, run: plain})
		ratios = append(ratios, [2]string{cu, "cursor-d0"}, [2]string{off, cu}, [2]string{cu, ks})
	}
	sideBySide(ctx, b, m.limit, vs, ratios)
}

// benchCounts measures m's page at depth d (by offset at 0, by cursor
// deeper) under each count strategy.
func benchCounts(ctx context.Context, b *testing.B, m depthMethod, rows, d int) {
	p := bounded.Page{Limit: m.limit}
	if d > 0 {
		p.Cursor = cursorAt(ctx, b, m, d)
	}
	with := func(c bounded.CountMode) func(ctx context.Context) (result, error) {
		q := p
		q.Count = c
		return func(ctx context.Context) (result, error) { return m.page(ctx, q) }
	}
	q10k := p
	q10k.Count, q10k.CountCap = bounded.CountCapped, 10_000
	with10k := func(ctx context.Context) (result, error) { return m.page(ctx, q10k) }
	sideBySide(ctx, b, m.limit, []pageVariant{
		{name: "none", run: with(bounded.CountNone), check: wantUnknown, allocs: true},
		{name: "capped", like: "none", run: with(bounded.CountCapped), check: wantCapped(rows, bounded.DefaultCountCap(m.limit)), allocs: true},
		{name: "capped10k", like: "none", run: with10k, check: wantCapped(rows, 10_000), allocs: true},
		{name: "exact", like: "none", run: with(bounded.CountExact), check: wantExact(rows), allocs: true},
	}, [][2]string{{"capped", "none"}, {"capped10k", "none"}, {"exact", "none"}})
}

// benchBaselines measures m's page at depth d with a total: the adapter's
// (exact by offset, capped by cursor) and the hand-written ones.
func benchBaselines(ctx context.Context, b *testing.B, m depthMethod, rows, d int) {
	cur := cursorAt(ctx, b, m, d)
	sideBySide(ctx, b, m.limit, []pageVariant{
		{name: "adapter", check: wantExact(rows), run: func(ctx context.Context) (result, error) {
			return m.page(ctx, bounded.Page{Limit: m.limit, Offset: d})
		}},
		{name: "cursor-capped", like: "adapter", check: wantCapped(rows, bounded.DefaultCountCap(m.limit)), run: func(ctx context.Context) (result, error) {
			return m.page(ctx, bounded.Page{Limit: m.limit, Cursor: cur, Count: bounded.CountCapped})
		}},
		{name: "scanandcount", like: "adapter", check: wantExact(rows), run: func(ctx context.Context) (result, error) {
			return m.scanAndCount(ctx, d)
		}},
		{name: "countthenoffset", like: "adapter", check: wantExact(rows), run: func(ctx context.Context) (result, error) {
			return m.countThenOffset(ctx, d)
		}},
	}, [][2]string{
		{"scanandcount", "adapter"}, {"countthenoffset", "adapter"},
		{"scanandcount", "cursor-capped"}, {"countthenoffset", "cursor-capped"},
	})
}

// noteModel is a note as an application's bun model would read it: the
// columns of a ports.NoteRef.
type noteModel struct {
	bun.BaseModel `bun:"table:bounded_notes,alias:n"`

	ID        string `bun:"id,pk"`
	Title     string `bun:"title"`
	Tags      string `bun:"tags"`
	UpdatedAt int64  `bun:"updated_at"`
}

// notesResult decodes notes as the adapter does and returns their result.
func notesResult(rows []refRow, total int) (result, error) {
	r := result{ids: make([]string, 0, len(rows)), total: total, kind: bounded.TotalExact}
	for _, row := range rows {
		ref, err := row.ref()
		if err != nil {
			return result{}, err
		}
		r.ids = append(r.ids, ref.ID)
	}
	return r, nil
}

// scanAndCountNotes is ListNotes (target "") or Backlinks(target) as a bun
// model query with Limit, Offset and ScanAndCount.
func scanAndCountNotes(ctx context.Context, db *bun.DB, target string, limit, off int) (result, error) {
	var rows []noteModel
	q := db.NewSelect().Model(&rows)
	if target == "" {
		q = q.OrderExpr("n.updated_at DESC, n.id ASC")
	} else {
		q = q.Join("JOIN bounded_note_backlinks AS b ON b.source_id = n.id").
			Where("b.target = ?", target).
			OrderExpr("b.updated_at DESC, b.source_id ASC")
	}
	total, err := q.Limit(int64(limit)).Offset(int64(off)).ScanAndCount(ctx)
	if err != nil {
		return result{}, err
	}
	refs := make([]refRow, len(rows))
	for i, n := range rows {
		refs[i] = refRow{ID: n.ID, Title: n.Title, Tags: n.Tags, UpdatedAt: n.UpdatedAt}
	}
	return notesResult(refs, int(total))
}

// keysetNotes is ListNotes (target "") or Backlinks(target) as a plain
// keyset query of a bun model: the page after the note named after, whose
// keys it reads first, by the best predicate for the mixed order
// (updated_at descending, then id), no count.
func keysetNotes(ctx context.Context, db *bun.DB, target string, limit int, after string) (func(ctx context.Context) (result, error), error) {
	var updated int64
	if after != "" {
		q := db.NewSelect().Table("bounded_notes").Column("updated_at").Where("id = ?", after)
		if target != "" {
			q = db.NewSelect().Table("bounded_note_backlinks").Column("updated_at").Where("target = ? AND source_id = ?", target, after)
		}
		if err := q.Scan(ctx, &updated); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context) (result, error) {
		var rows []noteModel
		q := db.NewSelect().Model(&rows).Limit(int64(limit))
		upd, id := "n.updated_at", "n.id"
		if target != "" {
			upd, id = "b.updated_at", "b.source_id"
			q = q.Join("JOIN bounded_note_backlinks AS b ON b.source_id = n.id").Where("b.target = ?", target)
		}
		q = q.OrderExpr("? DESC, ? ASC", bun.Safe(upd), bun.Safe(id))
		if after != "" {
			q = q.Where("? <= ? AND (? < ? OR ? > ?)", bun.Safe(upd), updated, bun.Safe(upd), updated, bun.Safe(id), after)
		}
		if err := q.Scan(ctx); err != nil {
			return result{}, err
		}
		refs := make([]refRow, len(rows))
		for i, n := range rows {
			refs[i] = refRow{ID: n.ID, Title: n.Title, Tags: n.Tags, UpdatedAt: n.UpdatedAt}
		}
		r, err := notesResult(refs, 0)
		r.kind = bounded.TotalUnknown
		return r, err
	}, nil
}

// countThenOffsetNotes is ListNotes (target "") or Backlinks(target) as
// two statements: SELECT count(*), then the page with LIMIT and OFFSET.
func countThenOffsetNotes(ctx context.Context, db *bun.DB, target string, limit, off int) (result, error) {
	var total int
	var rows []refRow
	var err error
	if target == "" {
		err = db.NewRaw("SELECT count(*) FROM bounded_notes").Scan(ctx, &total)
		if err == nil {
			err = db.NewRaw("SELECT id, title, tags, updated_at FROM bounded_notes ORDER BY updated_at DESC, id LIMIT ? OFFSET ?",
				limit, off).Scan(ctx, &rows)
		}
	} else {
		// The count an application would write: the link table alone,
		// whose every row has its note.
		err = db.NewRaw("SELECT count(*) FROM bounded_note_backlinks WHERE target = ?", target).Scan(ctx, &total)
		if err == nil {
			err = db.NewRaw("SELECT n.id, n.title, n.tags, n.updated_at FROM bounded_notes n JOIN bounded_note_backlinks b ON b.source_id = n.id"+
				" WHERE b.target = ? ORDER BY b.updated_at DESC, b.source_id LIMIT ? OFFSET ?", target, limit, off).Scan(ctx, &rows)
		}
	}
	if err != nil {
		return result{}, err
	}
	return notesResult(rows, total)
}

// runModel is a run as an application's bun model would read it: every
// column, the body clipped in SQL to what the response shows, as the
// adapter reads it (reading whole bodies would flatter the adapter).
type runModel struct {
	bun.BaseModel `bun:"table:bounded_runs,alias:r"`

	ID         string `bun:"id,pk"`
	EndpointID string `bun:"endpoint_id"`
	StartedAt  int64  `bun:"started_at"`
	FinishedAt int64  `bun:"finished_at"`
	Status     string `bun:"status"`
	StatusCode int    `bun:"status_code"`
	BodyChars  int    `bun:"body_chars"`
	Body       string `bun:"body"`
}

// runsResult clips the runs' bodies as the adapter does and returns their
// result.
func runsResult(rows []runModel, total int) result {
	r := result{ids: make([]string, 0, len(rows)), total: total, kind: bounded.TotalExact}
	for _, row := range rows {
		body, info := bounded.ClipPrefix(row.Body, ports.HistoryBodyChars, row.BodyChars)
		v := ports.RunView{ID: row.ID, EndpointID: row.EndpointID,
			StartedAt: time.UnixMicro(row.StartedAt).UTC(), FinishedAt: time.UnixMicro(row.FinishedAt).UTC(),
			Status: row.Status, StatusCode: row.StatusCode, Body: body, BodyChars: info.OriginalChars, BodyTruncated: info.Clipped}
		r.ids = append(r.ids, v.ID)
	}
	return r
}

// scanAndCountRuns is ResponseHistory as a bun model query with Limit,
// Offset and ScanAndCount.
func scanAndCountRuns(ctx context.Context, db *bun.DB, endpoint string, limit, off int) (result, error) {
	var rows []runModel
	total, err := db.NewSelect().Model(&rows).
		ColumnExpr("r.id, r.endpoint_id, r.started_at, r.finished_at, r.status, r.status_code, r.body_chars").
		ColumnExpr("substr(r.body, 1, ?) AS body", ports.HistoryBodyChars).
		Where("r.endpoint_id = ?", endpoint).
		OrderExpr("r.started_at DESC, r.id DESC").Limit(int64(limit)).Offset(int64(off)).ScanAndCount(ctx)
	if err != nil {
		return result{}, err
	}
	return runsResult(rows, int(total)), nil
}

// keysetRuns is ResponseHistory as a plain keyset query of a bun model:
// the page after the run named after, whose keys it reads first, by a row
// value (both keys descending), no count.
func keysetRuns(ctx context.Context, db *bun.DB, endpoint string, limit int, after string) (func(ctx context.Context) (result, error), error) {
	var started int64
	if after != "" {
		if err := db.NewSelect().Table("bounded_runs").Column("started_at").Where("id = ?", after).Scan(ctx, &started); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context) (result, error) {
		var rows []runModel
		q := db.NewSelect().Model(&rows).
			ColumnExpr("r.id, r.endpoint_id, r.started_at, r.finished_at, r.status, r.status_code, r.body_chars").
			ColumnExpr("substr(r.body, 1, ?) AS body", ports.HistoryBodyChars).
			Where("r.endpoint_id = ?", endpoint).
			OrderExpr("r.started_at DESC, r.id DESC").Limit(int64(limit))
		if after != "" {
			q = q.Where("(r.started_at, r.id) < (?, ?)", started, after)
		}
		if err := q.Scan(ctx); err != nil {
			return result{}, err
		}
		r := runsResult(rows, 0)
		r.kind = bounded.TotalUnknown
		return r, nil
	}, nil
}

// countThenOffsetRuns is ResponseHistory as two statements: SELECT
// count(*), then the page with LIMIT and OFFSET.
func countThenOffsetRuns(ctx context.Context, db *bun.DB, endpoint string, limit, off int) (result, error) {
	var total int
	if err := db.NewRaw("SELECT count(*) FROM bounded_runs WHERE endpoint_id = ?", endpoint).Scan(ctx, &total); err != nil {
		return result{}, err
	}
	var rows []runModel
	if err := db.NewRaw("SELECT id, endpoint_id, started_at, finished_at, status, status_code, body_chars, substr(body, 1, ?) AS body FROM bounded_runs"+
		" WHERE endpoint_id = ? ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?", ports.HistoryBodyChars, endpoint, limit, off).Scan(ctx, &rows); err != nil {
		return result{}, err
	}
	return runsResult(rows, total), nil
}
