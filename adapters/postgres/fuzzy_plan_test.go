package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/ports"
)

// TestFuzzyPlacePlans checks on 5,000 entities that fuzzy SearchNodes
// finds the candidates of a long query of common words among the first
// places of the names: under every count strategy, the statements that
// read places read the index on places, and no statement of the call
// scans the entities or the trigram table sequentially. (The counts of
// trigrams, a row per trigram and trigram count, are few enough here
// that the planner reads them whole.)
func TestFuzzyPlacePlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s, err := postgres.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := benchutil.LoadEntities(ctx, db, 5000); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(rec)
	q := ports.NodeQuery{Queries: []string{"alpha beta gamma delta epsilon zeta eta theta iota kappa"}, Mode: ports.Fuzzy, Threshold: 0.3}
	for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		rec.take()
		if _, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2, Count: count}); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("count %v", count)
		places := 0
		for _, stmt := range rec.take() {
			tables, indexes, out := explainScans(ctx, t, db, name, stmt)
			tables = slices.DeleteFunc(tables, func(t string) bool { return t == "bounded_trigram_counts" })
			if len(tables) > 0 {
				t.Errorf("%s: a statement scans %v:\n%s\n%s", name, tables, stmt, out)
			}
			if strings.Contains(stmt, "t.pos = ") {
				if !slices.Contains(indexes, "bounded_entity_trigrams_pos") {
					t.Errorf("%s: a statement reads places without the index on places:\n%s\n%s", name, stmt, out)
				}
				places++
			}
		}
		if places == 0 {
			t.Errorf("%s: no statement reads the places of names", name)
		}
	}
}
