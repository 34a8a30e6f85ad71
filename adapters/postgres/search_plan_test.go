package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// relationNode is a node of EXPLAIN (FORMAT JSON) with the table it reads.
type relationNode struct {
	Type     string         `json:"Node Type"`
	Relation string         `json:"Relation Name"`
	Index    string         `json:"Index Name"`
	Plans    []relationNode `json:"Plans"`
}

// seqScans returns the tables n reads by sequential scan, and the indexes
// it reads.
func seqScans(n relationNode) (tables, indexes []string) {
	if n.Type == "Seq Scan" {
		tables = append(tables, n.Relation)
	}
	if n.Index != "" {
		indexes = append(indexes, n.Index)
	}
	for _, c := range n.Plans {
		t, i := seqScans(c)
		tables, indexes = append(tables, t...), append(indexes, i...)
	}
	return tables, indexes
}

// planRecorder vacuums and analyzes the test's tables, then records the
// statements run on db; the function it returns reads the plan of the
// last SELECT (EXPLAIN (FORMAT JSON)) and returns the tables it scans
// sequentially, the indexes it reads, and the plan's JSON.
func planRecorder(ctx context.Context, t *testing.T, db *bun.DB) func(name string) (tables, indexes []string, out string) {
	t.Helper()
	vacuumAnalyze(ctx, t, db)
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	return func(name string) ([]string, []string, string) {
		t.Helper()
		return explainScans(ctx, t, db, name, rec.last)
	}
}

// explainScans reads the plan of stmt (EXPLAIN (FORMAT JSON)) and returns
// the tables it scans sequentially, the indexes it reads, and the plan's
// JSON.
func explainScans(ctx context.Context, t *testing.T, db *bun.DB, name, stmt string) (tables, indexes []string, out string) {
	t.Helper()
	if err := db.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+stmt).Scan(&out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var plans []struct {
		Plan relationNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil {
		t.Fatal(err)
	}
	tables, indexes = seqScans(plans[0].Plan)
	return tables, indexes, out
}

// TestSearchPlans checks on 10,000 notes that SearchNotes finds a
// selective query through the trigram indexes, for the count and the
// page, by offset and by cursor, and walks a broad one down
// bounded_notes_updated: no sequential scan of bounded_notes.
func TestSearchPlans(t *testing.T) {
	ctx := context.Background()
	s, db := loadedStore(ctx, t, 10_000)
	last := planRecorder(ctx, t, db)
	check := func(name string) {
		t.Helper()
		tables, indexes, out := last(name)
		trgm := false
		for _, i := range indexes {
			trgm = trgm || i == "bounded_notes_title_trgm" || i == "bounded_notes_content_trgm"
		}
		for _, tb := range tables {
			if tb == "bounded_notes" {
				trgm = false
			}
		}
		if !trgm {
			t.Errorf("%s: the plan scans bounded_notes or skips the trigram indexes (scans %v, indexes %v):\n%s", name, tables, indexes, out)
		}
	}
	for _, q := range []string{"note 123", "NOTE 999", "of note 42"} {
		first, err := s.SearchNotes(ctx, q, bounded.Page{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if first.Page.NextCursor == "" {
			t.Fatalf("SearchNotes(%q): %d results and no cursor, want more than 2", q, len(first.Items))
		}
		check(q + ", first page")
		for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
			if _, err := s.SearchNotes(ctx, q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("%s by cursor, %v", q, count))
		}
	}
	// A broad query ("hub" is in every content and no title, "note" in
	// every title) walks bounded_notes_updated for its first page without
	// the exact count: the page scans no table sequentially (the capped
	// count may, as it stops at the cap). By cursor, at 10,000 notes, the
	// planner may scan instead the few rows it estimates the rest of the
	// walk holds; at 1,000,000 it walks (BENCHMARKS.md).
	walks := func(name string, count bounded.CountMode) {
		t.Helper()
		tables, indexes, out := last(name)
		walk := false
		for _, i := range indexes {
			walk = walk || i == "bounded_notes_updated"
		}
		if count == bounded.CountNone && len(tables) > 0 {
			walk = false
		}
		if !walk {
			t.Errorf("%s: the plan scans bounded_notes or does not walk bounded_notes_updated (scans %v, indexes %v):\n%s", name, tables, indexes, out)
		}
	}
	for _, q := range []string{"hub", "note"} {
		for _, count := range []bounded.CountMode{bounded.CountCapped, bounded.CountNone} {
			first, err := s.SearchNotes(ctx, q, bounded.Page{Limit: 2, Count: count})
			if err != nil {
				t.Fatal(err)
			}
			walks(fmt.Sprintf("%s, first page, %v", q, count), count)
			if first.Page.NextCursor == "" {
				t.Fatalf("SearchNotes(%q): %d results and no cursor, want more than 2", q, len(first.Items))
			}
		}
	}
}

// TestSearchNodesPlans checks on 10,000 entities (and 40 with 300
// observations each) that exact SearchNodes finds selective queries through
// the trigram indexes on the folded names, types and observations, for
// the count and the page, by offset and by cursor: no sequential scan of
// bounded_entities or bounded_entity_observations.
func TestSearchNodesPlans(t *testing.T) {
	ctx := context.Background()
	s, db := loadedStore(ctx, t, 10_000)
	for i := range 40 {
		e := ports.Entity{Name: fmt.Sprintf("observed %d", i), Type: "event", UpdatedAt: time.Unix(int64(i), 0)}
		for j := range 300 {
			e.Observations = append(e.Observations, fmt.Sprintf("note %d of entity %d", j, i))
		}
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	last := planRecorder(ctx, t, db)
	check := func(name string) {
		t.Helper()
		tables, indexes, out := last(name)
		trgm := false
		for _, i := range indexes {
			trgm = trgm || strings.HasSuffix(i, "_fold_trgm")
		}
		for _, tb := range tables {
			if tb == "bounded_entities" || tb == "bounded_entity_observations" {
				trgm = false
			}
		}
		if !trgm {
			t.Errorf("%s: the plan scans the entities or skips the trigram indexes (scans %v, indexes %v):\n%s", name, tables, indexes, out)
		}
	}
	for _, qs := range [][]string{{" 123"}, {"BETA 19"}, {"NOTE 12 OF"}, {" 123", "note 7 of entity 3"}} {
		q := ports.NodeQuery{Queries: qs}
		first, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if first.Page.NextCursor == "" {
			t.Fatalf("SearchNodes(%q): %d results and no cursor, want more than 2", qs, len(first.Items))
		}
		check(fmt.Sprintf("%q, first page", qs))
		for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
			if _, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("%q by cursor, %v", qs, count))
		}
	}
}

// TestSearchCodePlans checks on 10,000 chunks that SearchCode reads the
// postings of the query's terms through the term index and looks the
// matched chunks up by id, first page and by cursor under every count
// strategy: no sequential scan of bounded_chunks or bounded_chunk_terms.
func TestSearchCodePlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s, err := postgres.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchutil.LoadChunks(ctx, db, 10_000); err != nil {
		t.Fatal(err)
	}
	last := planRecorder(ctx, t, db)
	check := func(name string) {
		t.Helper()
		tables, indexes, out := last(name)
		terms := false
		for _, i := range indexes {
			terms = terms || i == "bounded_chunk_terms_pkey"
		}
		if len(tables) > 0 || !terms {
			t.Errorf("%s: the plan scans %v or skips the term index (indexes %v):\n%s", name, tables, indexes, out)
		}
	}
	benchutil.CodePages(t, func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return s.SearchCode(ctx, q, p)
	}, check)
}

// TestSearchCodeWalkPlans checks that SearchCode walks a query whose
// terms are found in many chunks down bounded_chunks_order, first page
// and by cursor both ways under every count strategy: no sequential scan
// of a table of chunks or terms.
func TestSearchCodeWalkPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s, err := postgres.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchutil.LoadChunks(ctx, db, 5000); err != nil {
		t.Fatal(err)
	}
	last := planRecorder(ctx, t, db)
	check := func(name string) {
		t.Helper()
		tables, indexes, out := last(name)
		walk := false
		for _, i := range indexes {
			walk = walk || i == "bounded_chunks_order"
		}
		// The page before the second of "context shard3" is among the
		// chunks sharing both terms, the shard's: no walk reads it.
		before := strings.Contains(name, "shard3") && strings.Contains(name, "page before")
		if len(tables) > 0 || !walk && !before {
			t.Errorf("%s: the plan scans %v or does not walk bounded_chunks_order (indexes %v):\n%s", name, tables, indexes, out)
		}
	}
	benchutil.CodeWalkPages(t, func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return s.SearchCode(ctx, q, p)
	}, check)
}

// TestSearchCodeWalk checks SearchCode's walk of the chunks in result
// order against memrepo ([adaptertest.CodeWalk]).
func TestSearchCodeWalk(t *testing.T) {
	adaptertest.CodeWalk(t, func(t *testing.T, broad int) ports.Code {
		s, err := postgres.New(context.Background(), openDB(t), func(d *sqlstore.Dialect) { d.BroadCode = broad })
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSearchFuzzyWalk checks fuzzy SearchNodes against memrepo
// ([adaptertest.FuzzyWalk]).
func TestSearchFuzzyWalk(t *testing.T) {
	adaptertest.FuzzyWalk(t, func(t *testing.T, broad int) ports.Knowledge {
		s, err := postgres.New(context.Background(), openDB(t), func(d *sqlstore.Dialect) { d.BroadFuzzy = broad })
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestTrigramMigration(t *testing.T) {
	adaptertest.TrigramMigration(t, openDB(t), postgres.Dialect.Text, func(db *bun.DB) (ports.Knowledge, error) { return postgres.New(context.Background(), db) })
}

// TestFuzzyPlans checks on 10,000 entities that fuzzy SearchNodes reads
// its candidates from the trigram index, one trigram count at a time: no
// statement of a call scans a table sequentially, on the first page and
// by cursor under every count strategy.
func TestFuzzyPlans(t *testing.T) {
	ctx := context.Background()
	s, db := loadedStore(ctx, t, 10_000)
	if err := benchutil.LoadTrigrams(ctx, db, 10_000); err != nil {
		t.Fatal(err)
	}
	vacuumAnalyze(ctx, t, db)
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	q := ports.NodeQuery{Queries: []string{"alpah beta"}, Mode: ports.Fuzzy, Threshold: 0.3}
	check := func(name string) {
		t.Helper()
		level := false
		for _, stmt := range rec.take() {
			tables, indexes, out := explainScans(ctx, t, db, name, stmt)
			if len(tables) > 0 {
				t.Errorf("%s: a statement scans %v:\n%s\n%s", name, tables, stmt, out)
			}
			for _, i := range indexes {
				level = level || i == "bounded_entity_trigrams_pkey" && strings.Contains(stmt, "trigram_count = ")
			}
		}
		if !level {
			t.Errorf("%s: no statement reads the trigram index at one trigram count", name)
		}
	}
	rec.take()
	first, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	check("first page")
	for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		if _, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("by cursor, %v", count))
	}
}
