package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/ports"
)

// TestFuzzyPlacePlans checks on 5,000 entities that fuzzy SearchNodes
// finds the candidates of a long query of common words among the first
// places of the names: under every count strategy, some statement of
// the call searches the index on places at one place, and none scans
// the entities or the trigram table.
func TestFuzzyPlacePlans(t *testing.T) {
	ctx := context.Background()
	s, db := planDB(t)
	if err := benchutil.LoadEntities(ctx, db, 5000); err != nil {
		t.Fatal(err)
	}
	rec := analyzeAndRecord(t, db)
	q := ports.NodeQuery{Queries: []string{"alpha beta gamma delta epsilon zeta eta theta iota kappa"}, Mode: ports.Fuzzy, Threshold: 0.3}
	for _, count := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		rec.take()
		if _, err := s.SearchNodes(ctx, q, bounded.Page{Limit: 2, Count: count}); err != nil {
			t.Fatal(err)
		}
		var plans [][]step
		name := fmt.Sprintf("count %v", count)
		places := false
		for _, stmt := range rec.take() {
			steps := plan(t, db, stmt)
			plans = append(plans, steps)
			if strings.Contains(stmt, "t.pos = ") {
				for _, st := range steps {
					places = places || strings.HasPrefix(st.detail, "SEARCH t USING COVERING INDEX bounded_entity_trigrams_pos (trigram=? AND trigram_count=? AND pos=?)")
				}
			}
		}
		checkFuzzyPlan(t, name, "trigram=? AND trigram_count=? AND pos=?", plans)
		if !places {
			t.Errorf("%s: no statement reads the places of names by the index on places", name)
		}
	}
}
