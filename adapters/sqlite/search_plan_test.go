package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// TestSearchPlans checks that SearchNotes finds a query of three
// characters or more through its FTS5 index, for the count and the page,
// by offset and by cursor: no step of the plan scans bounded_notes
// (SQLite writes a full scan "SCAN n"), and the plan reads the index
// ("VIRTUAL TABLE"). A shorter query reads every note.
func TestSearchPlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	if err := benchutil.Load(ctx, db, 2000); err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	for _, q := range []string{"note 12", "NOTE 199", "of note 3"} {
		first, err := s.SearchNotes(ctx, q, bounded.Page{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if first.Page.NextCursor == "" {
			t.Fatalf("SearchNotes(%q): %d results and no cursor, want more than 2", q, len(first.Items))
		}
		checkSearchPlan(t, q+", first page", plan(t, db, rec.last), true)
		for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
			if _, err := s.SearchNotes(ctx, q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
				t.Fatal(err)
			}
			checkSearchPlan(t, fmt.Sprintf("%s by cursor, %v", q, count), plan(t, db, rec.last), true)
		}
	}
	if _, err := s.SearchNotes(ctx, "12", bounded.Page{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	checkSearchPlan(t, "12", plan(t, db, rec.last), false)
}

// checkSearchPlan checks whether a plan reads the FTS5 index, once for
// the count and the page, and never scans the notes (indexed) or scans
// them (not indexed).
func checkSearchPlan(t *testing.T, name string, steps []step, indexed bool) {
	t.Helper()
	scans, fts := false, 0
	for _, st := range steps {
		scans = scans || st.detail == "SCAN n" || strings.HasPrefix(st.detail, "SCAN n ") || strings.HasPrefix(st.detail, "SCAN bounded_notes")
		if strings.Contains(st.detail, "VIRTUAL TABLE") {
			fts++
		}
	}
	if indexed && (scans || fts != 1) {
		t.Errorf("%s: the plan scans the notes, or reads the index %d times, want once:\n%s", name, fts, format(steps))
	}
	if !indexed && !scans {
		t.Errorf("%s: a query of two characters does not read every note:\n%s", name, format(steps))
	}
}

// TestSearchNodesPlans checks that exact SearchNodes finds queries of
// three characters or more through the FTS5 knowledge index, for the
// count and the page, by offset and by cursor: no step of the plan scans
// bounded_entities or bounded_entity_observations (names, types and
// observations all match through the index), and the plan reads the
// index. A query under three characters reads every entity.
func TestSearchNodesPlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	if err := benchutil.Load(ctx, db, 2000); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		e := ports.Entity{Name: fmt.Sprintf("observed %d", i), Type: "event", UpdatedAt: time.Unix(int64(i), 0)}
		for j := range 60 {
			e.Observations = append(e.Observations, fmt.Sprintf("note %d of entity %d", j, i))
		}
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rec := analyzeAndRecord(t, db)
	for _, qs := range [][]string{{" 12"}, {"BETA 19"}, {"NOTE 12 OF"}, {" 12", "note 7 of entity 3"}} {
		q := ports.NodeQuery{Queries: qs}
		first, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if first.Page.NextCursor == "" {
			t.Fatalf("SearchNodes(%q): %d results and no cursor, want more than 2", qs, len(first.Items))
		}
		checkNodesPlan(t, fmt.Sprintf("%q, first page", qs), plan(t, db, rec.last), true)
		for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
			if _, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: count}); err != nil {
				t.Fatal(err)
			}
			checkNodesPlan(t, fmt.Sprintf("%q by cursor, %v", qs, count), plan(t, db, rec.last), true)
		}
	}
	for _, qs := range [][]string{{"12"}, {" 12", "12"}} {
		if _, err := s.SearchNodes(ctx, ports.NodeQuery{Queries: qs}, bounded.Page{Limit: 2}); err != nil {
			t.Fatal(err)
		}
		checkNodesPlan(t, fmt.Sprintf("%q", qs), plan(t, db, rec.last), false)
	}
}

// checkNodesPlan checks whether a plan reads the FTS5 index and never
// scans the entities or their observations (indexed) or scans the
// entities (not indexed).
func checkNodesPlan(t *testing.T, name string, steps []step, indexed bool) {
	t.Helper()
	scans, fts := false, false
	for _, st := range steps {
		for _, table := range []string{"e", "o", "bounded_entities", "bounded_entity_observations"} {
			scans = scans || st.detail == "SCAN "+table || strings.HasPrefix(st.detail, "SCAN "+table+" ")
		}
		fts = fts || strings.Contains(st.detail, "VIRTUAL TABLE")
	}
	if indexed && (scans || !fts) {
		t.Errorf("%s: the plan scans the entities or skips the index:\n%s", name, format(steps))
	}
	if !indexed && !scans {
		t.Errorf("%s: a query of two characters does not read every entity:\n%s", name, format(steps))
	}
}

// TestFuzzyPlans checks that fuzzy SearchNodes reads its candidates from
// the trigram index: no statement of a call scans the entities or the
// trigram table, on the first page and by cursor under every count
// strategy, whether it counts the query's few trigram rows at once or, as
// a store that reads broader queries one trigram count at a time does
// here, searches the index at one trigram count.
func TestFuzzyPlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	for _, e := range benchutil.FuzzyEntities(600) {
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	levels, err := sqlite.New(ctx, db, func(d *sqlstore.Dialect) { d.BroadFuzzy = 100 })
	if err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	for _, c := range []struct {
		name  string
		store *sqlite.Store
		want  string
	}{{"at once", s, "trigram=?"}, {"by trigram count", levels, "trigram=? AND trigram_count=?"}} {
		benchutil.FuzzyPages(t, func(q ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
			rec.take()
			return c.store.SearchNodes(ctx, q, p)
		}, func(name string) {
			var steps [][]step
			for _, q := range rec.take() {
				steps = append(steps, plan(t, db, q))
			}
			checkFuzzyPlan(t, c.name+", "+name, c.want, steps)
		})
	}
}

// checkFuzzyPlan checks that the plans of a call's statements search the
// trigram index by want (its search's terms), and scan neither the
// entities nor the trigram table.
func checkFuzzyPlan(t *testing.T, name, want string, plans [][]step) {
	t.Helper()
	searched := false
	for _, steps := range plans {
		for _, st := range steps {
			for _, table := range []string{"e", "t", "bounded_entities", "bounded_entity_trigrams"} {
				if st.detail == "SCAN "+table || strings.HasPrefix(st.detail, "SCAN "+table+" ") {
					t.Errorf("%s: the plan scans %s:\n%s", name, table, format(steps))
				}
			}
			searched = searched || strings.HasPrefix(st.detail, "SEARCH t ") && strings.Contains(st.detail, "("+want+")")
		}
	}
	if !searched {
		t.Errorf("%s: no plan searches the trigram index by %s:\n%v", name, want, plans)
	}
}

// analyzeAndRecord refreshes the planner's statistics (ANALYZE) and
// records the statements run on db from then on.
func analyzeAndRecord(t *testing.T, db *bun.DB) *recorder {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	return rec
}

// TestSearchWalkPlans checks that SearchNotes walks a query the FTS5
// index finds in too many notes down the index on (updated_at DESC, id),
// first page and by cursor, without a count: no step scans bounded_notes
// in another order or sorts the notes it reads (but for the title
// candidates the index finds when they are few, and the page's own rows).
func TestSearchWalkPlans(t *testing.T) {
	ctx := context.Background()
	_, db := planDB(t)
	if err := benchutil.Load(ctx, db, 2000); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.New(ctx, db, func(d *sqlstore.Dialect) { d.BroadNotes = 100 })
	if err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	// "note" is in every title and content: both branches walk. "hub" is
	// in every content and no title: the index finds the titles.
	// "note" walks its titles twice: the second time, to count whether
	// the other branch is needed.
	for _, c := range []struct {
		q     string
		walks int
	}{{"note", 3}, {"hub", 1}} {
		first, err := s.SearchNotes(ctx, c.q, bounded.Page{Limit: 2, Count: bounded.CountNone})
		if err != nil {
			t.Fatal(err)
		}
		if first.Page.NextCursor == "" {
			t.Fatalf("SearchNotes(%q): %d results and no cursor, want more than 2", c.q, len(first.Items))
		}
		checkWalkPlan(t, c.q+", first page", plan(t, db, rec.last), c.walks)
		if _, err := s.SearchNotes(ctx, c.q, bounded.Page{Limit: 2, Cursor: first.Page.NextCursor, Count: bounded.CountNone}); err != nil {
			t.Fatal(err)
		}
		checkWalkPlan(t, c.q+" by cursor", plan(t, db, rec.last), c.walks)
	}
}

// checkWalkPlan checks that a plan reads bounded_notes down
// bounded_notes_updated (from the start or from a cursor) walks times,
// never scans it otherwise, and never sorts the rows of a walk (it may
// sort the title candidates the index finds, and the at most a page of
// rows each walk returns).
func checkWalkPlan(t *testing.T, name string, steps []step, walks int) {
	t.Helper()
	n := 0
	walking := map[int]bool{} // the parents of the walks
	for _, st := range steps {
		if strings.HasPrefix(st.detail, "SCAN n USING INDEX bounded_notes_updated") || strings.HasPrefix(st.detail, "SEARCH n USING INDEX bounded_notes_updated") {
			walking[st.parent] = true
			n++
		}
	}
	for _, st := range steps {
		switch {
		case st.detail == "SCAN n" || strings.HasPrefix(st.detail, "SCAN n ") && !strings.Contains(st.detail, "bounded_notes_updated") ||
			strings.HasPrefix(st.detail, "SCAN bounded_notes"):
			t.Errorf("%s: the plan scans the notes out of order:\n%s", name, format(steps))
		case strings.Contains(st.detail, "TEMP B-TREE") && walking[st.parent]:
			t.Errorf("%s: the plan sorts the notes it walks:\n%s", name, format(steps))
		}
	}
	if n != walks {
		t.Errorf("%s: the plan walks bounded_notes_updated %d times, want %d:\n%s", name, n, walks, format(steps))
	}
}

// TestSearchCodePlans checks that SearchCode reads the postings of the
// query's terms through the term index and looks each matched chunk up by
// id, first page and by cursor under every count strategy: no step scans
// bounded_chunks or bounded_chunk_terms.
func TestSearchCodePlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	if err := benchutil.LoadChunks(ctx, db, 2000); err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	check := func(name string) {
		t.Helper()
		steps := plan(t, db, rec.last)
		terms, counts := false, false
		for _, st := range steps {
			counts = counts || st.detail == "CO-ROUTINE c" // the row of counts, also named c
		}
		for _, st := range steps {
			terms = terms || strings.HasPrefix(st.detail, "SEARCH bounded_chunk_terms USING")
			chunks := st.detail == "SCAN c" && !(counts && st.parent == 0) || strings.HasPrefix(st.detail, "SCAN c ")
			if chunks || strings.HasPrefix(st.detail, "SCAN bounded_chunk") {
				t.Errorf("%s: the plan scans a table of chunks:\n%s", name, format(steps))
			}
		}
		if !terms {
			t.Errorf("%s: the plan does not search the term index:\n%s", name, format(steps))
		}
	}
	benchutil.CodePages(t, func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return s.SearchCode(ctx, q, p)
	}, check)
}

// TestSearchCodeWalkPlans checks that SearchCode walks a query whose
// terms are found in many chunks down bounded_chunks_order, first page
// and by cursor both ways under every count strategy: no step scans a
// table of chunks or terms in another order, and no walk sorts the chunks
// it reads (the candidates of a shard's name are found through the term
// index, and sorted).
func TestSearchCodeWalkPlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	if err := benchutil.LoadChunks(ctx, db, 5000); err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	check := func(name string) {
		t.Helper()
		steps := plan(t, db, rec.last)
		walking := map[int]bool{}
		for _, st := range steps {
			if strings.Contains(st.detail, " c USING INDEX bounded_chunks_order") {
				walking[st.parent] = true
			}
		}
		for _, st := range steps {
			switch {
			case st.detail == "SCAN c" && st.parent != 0, // the row of counts is c too
				strings.HasPrefix(st.detail, "SCAN c ") && !strings.Contains(st.detail, "bounded_chunks_order"),
				st.detail == "SCAN t", st.detail == "SCAN u", strings.HasPrefix(st.detail, "SCAN t "), strings.HasPrefix(st.detail, "SCAN u "),
				strings.HasPrefix(st.detail, "SCAN bounded_chunk"):
				t.Errorf("%s: the plan scans a table out of order:\n%s", name, format(steps))
			case strings.Contains(st.detail, "TEMP B-TREE") && walking[st.parent]:
				t.Errorf("%s: the plan sorts the chunks it walks:\n%s", name, format(steps))
			}
		}
		// The page before the second of "context shard3" is among the
		// chunks sharing both terms, the shard's: no walk reads it.
		before := strings.Contains(name, "shard3") && strings.Contains(name, "page before")
		if len(walking) == 0 && !before {
			t.Errorf("%s: the plan does not walk bounded_chunks_order:\n%s", name, format(steps))
		}
	}
	benchutil.CodeWalkPages(t, func(q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return s.SearchCode(ctx, q, p)
	}, check)
}
