package adaptertest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// placeWords are the words of the names [FuzzyPlacesWalk] writes.
var placeWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}

// placeEntities are names of one to six of ten words, most with a
// number, some tagged: long queries of those words match some of them,
// and names of the same words in another order tie.
func placeEntities() []ports.Entity {
	var out []ports.Entity
	for i := range 300 {
		var words []string
		for j := range 1 + i%6 {
			words = append(words, placeWords[(i*(j+3)+j*j)%len(placeWords)])
		}
		if i%4 != 0 {
			words = append(words, fmt.Sprint(i%23))
		}
		e := ports.Entity{Name: strings.Join(words, " "), Type: "thing", UpdatedAt: time.Unix(int64(i), 0).UTC()}
		if i%5 == 0 {
			e.Tags = []string{"ml"}
		}
		out = append(out, e)
	}
	// The same words in another order: the same trigrams, a tie.
	for _, name := range []string{"bravo alpha charlie", "charlie bravo alpha", "alpha bravo charlie", "echo delta", "delta echo"} {
		out = append(out, ports.Entity{Name: name, Type: "tie", UpdatedAt: time.Unix(1, 0).UTC()})
	}
	return out
}

// FuzzyPlacesWalk checks fuzzy SearchNodes against memrepo for queries
// whose names it finds among their first places (long queries of
// common words, several at once, with tags), for queries it reads one
// trigram at a time, and for queries of digits no name matches: stores
// opened by open(t, broad) (see [FuzzyWalk]) with broad 1, 16 and 300
// must page as memrepo does, forward and backward by cursor and by
// offset, under every count strategy, at thresholds 0.2 to 0.5.
func FuzzyPlacesWalk(t *testing.T, open func(t *testing.T, broad int) ports.Knowledge) {
	ctx := context.Background()
	entities := placeEntities()
	mem := memrepo.New()
	var stores []ports.Knowledge
	for _, broad := range []int{1, 16, 300} {
		stores = append(stores, open(t, broad))
	}
	for _, e := range entities {
		for _, s := range append([]ports.Knowledge{mem}, stores...) {
			if err := s.PutEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	every := strings.Join(placeWords, " ")
	queries := []ports.NodeQuery{
		{Queries: []string{every}},
		{Queries: []string{every}, Threshold: 0.2},
		{Queries: []string{"alpha bravo charlie delta echo"}, Threshold: 0.4},
		{Queries: []string{"charlie delta echo foxtrot golf hotel"}, Tags: []string{"ml"}, Threshold: 0.25},
		{Queries: []string{"alpha bravo charlie delta", "echo foxtrot golf hotel india juliet"}},
		{Queries: []string{"juliet india hotel golf foxtrot 12"}, Threshold: 0.5},
		{Queries: []string{"zzz qqq alpha bravo charlie delta echo foxtrot"}},
		{Queries: []string{"1 2 3 4 5 6 7 8 9"}},
		{Queries: []string{"alpah bravo 7"}},
		{Queries: []string{"bravo alpha charlie"}, Threshold: 0.5},
	}
	fuzzyWalks(t, mem, stores, queries)
}

// fuzzyWalks checks that each store pages each query (in Fuzzy mode, at
// threshold 0.3 unless it names one) as mem does ([SameWalks]); but
// for a deep run, a query of over 12 results runs on one store, the
// stores taking turns.
func fuzzyWalks(t *testing.T, mem *memrepo.Store, stores []ports.Knowledge, queries []ports.NodeQuery) {
	ctx := context.Background()
	deep := deeptest.On()
	id := func(m ports.NodeMatch) string { return fmt.Sprintf("%s %.6f", m.Name, m.Score) }
	for i, q := range queries {
		q.Mode = ports.Fuzzy
		if q.Threshold == 0 {
			q.Threshold = 0.3
		}
		all, err := mem.SearchNodes(ctx, q, bounded.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		sizes, offsets := walkSizes(deep, all.Page.Total)
		on := stores
		if !deep && all.Page.Total > 12 {
			// Queries of many results take turns on the stores.
			on = stores[i%len(stores) : i%len(stores)+1]
		}
		SameWalks(t, fmt.Sprintf("%+v", q), sizes, offsets, ports.Knowledge(mem), on,
			func(s ports.Knowledge) func(bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
				return func(p bounded.Page) (bounded.Paged[ports.NodeMatch], error) { return s.SearchNodes(ctx, q, p) }
			}, id)
	}
}

// TrigramPlaces checks the places of the trigram table's rows: each
// name's rows hold the places 0 to m-1, and bounded_trigram_counts counts
// the names of each trigram at each trigram count. It writes entities
// through a store opened on db by open, checks them, then makes the
// tables as a version before places left them (no pos column, its index
// dropped by dropIndex, no counts) and opens a store again, which must
// count and place every row, the rarest trigram of a name first, and
// search as memrepo does.
func TrigramPlaces(t *testing.T, db *bun.DB, dropIndex string, open func(db *bun.DB) (ports.Knowledge, error)) {
	ctx := context.Background()
	s, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	mem := memrepo.New()
	for _, e := range placeEntities() {
		for _, st := range []ports.Knowledge{s, mem} {
			if err := st.PutEntity(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkPlaces(t, "written", db, false)
	for _, stmt := range []string{dropIndex, "ALTER TABLE bounded_entity_trigrams DROP COLUMN pos", "DROP TABLE bounded_trigram_counts"} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	migrated, err := open(db)
	if err != nil {
		t.Fatal(err)
	}
	checkPlaces(t, "migrated", db, true)
	q := ports.NodeQuery{Queries: []string{strings.Join(placeWords, " ")}, Mode: ports.Fuzzy, Threshold: 0.25}
	SameWalks(t, "migrated", []int{3}, []int{2}, ports.Knowledge(mem), []ports.Knowledge{migrated},
		func(s ports.Knowledge) func(bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
			return func(p bounded.Page) (bounded.Paged[ports.NodeMatch], error) { return s.SearchNodes(ctx, q, p) }
		}, func(m ports.NodeMatch) string { return fmt.Sprintf("%s %.6f", m.Name, m.Score) })
}

// checkPlaces checks that each name's rows hold the places 0 to m-1
// (by counts, the rarest first, when ordered) and that the counts are
// those of the rows.
func checkPlaces(t *testing.T, name string, db *bun.DB, ordered bool) {
	t.Helper()
	type row struct {
		Trigram      string `bun:"trigram"`
		TrigramCount int    `bun:"trigram_count"`
		Name         string `bun:"name"`
		Pos          int    `bun:"pos"`
		Names        int    `bun:"names"`
	}
	var rows []row
	err := db.NewRaw("SELECT t.trigram, t.trigram_count, t.name, t.pos, coalesce(c.names, -1) AS names FROM bounded_entity_trigrams t"+
		" LEFT JOIN bounded_trigram_counts c ON c.trigram = t.trigram AND c.trigram_count = t.trigram_count").Scan(context.Background(), &rows)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]row{}
	held := map[[2]any]int{}
	for _, r := range rows {
		byName[r.Name] = append(byName[r.Name], r)
		held[[2]any{r.Trigram, r.TrigramCount}]++
	}
	for n, rs := range byName {
		slices.SortFunc(rs, func(a, b row) int { return cmp.Compare(a.Pos, b.Pos) })
		for i, r := range rs {
			if r.Pos != i || r.TrigramCount != len(rs) {
				t.Fatalf("%s: %q holds place %d of %d trigrams at row %d of %d", name, n, r.Pos, r.TrigramCount, i, len(rs))
			}
			if r.Names != held[[2]any{r.Trigram, r.TrigramCount}] {
				t.Fatalf("%s: %d names of %d trigrams hold %q, counted %d", name, held[[2]any{r.Trigram, r.TrigramCount}], r.TrigramCount, r.Trigram, r.Names)
			}
			if ordered && i > 0 && cmp.Or(cmp.Compare(rs[i-1].Names, r.Names), strings.Compare(rs[i-1].Trigram, r.Trigram)) > 0 {
				t.Fatalf("%s: %q places %q (%d names) before %q (%d)", name, n, rs[i-1].Trigram, rs[i-1].Names, r.Trigram, r.Names)
			}
		}
	}
}
