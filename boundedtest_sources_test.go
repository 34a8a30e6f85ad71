package bounded_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/boundedtest"
	"github.com/boundedkit/bounded/driver"
)

// ranked is a result scored for relevance: sorted by Score descending,
// ties by ID.
type ranked struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

func rankedItems(n int) []ranked {
	out := make([]ranked, n)
	for i := range out {
		out[i] = ranked{ID: fmt.Sprintf("r%03d", i), Score: float64(50 - i/3), Text: fmt.Sprintf("result %d: ünïcode", i)}
	}
	return out
}

// TestSourcesWithBoundedtest proves FromSlice and FromFunc with
// boundedtest: each pages exactly like the slice it stands for.
func TestSourcesWithBoundedtest(t *testing.T) {
	want := rankedItems(31)
	byOffset := func(_ context.Context, r driver.Request) ([]ranked, int, error) {
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit, len(want))], len(want), nil
	}
	uncounted := func(_ context.Context, r driver.Request) ([]ranked, int, error) {
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit+1, len(want))], -1, nil
	}
	limits := bounded.Limits{Default: 5, Max: 20}
	for _, tc := range []struct {
		name string
		src  bounded.Source[ranked]
		o    boundedtest.Options[ranked]
	}{
		{"FromSlice", bounded.FromSlice(want), boundedtest.Options[ranked]{Limits: limits}},
		{"FromSlice.WithKeys", bounded.FromSlice(want).WithKeys(func(r ranked) []any { return []any{r.Score, r.ID} }, true), boundedtest.Options[ranked]{Limits: limits}},
		{"FromFunc", bounded.FromFunc(byOffset), boundedtest.Options[ranked]{Limits: limits}},
		{"FromFunc without a count", bounded.FromFunc(uncounted), boundedtest.Options[ranked]{Limits: limits, Uncounted: true}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.o.TestSource(t, tc.src, want) })
	}
	t.Run("empty", func(t *testing.T) {
		boundedtest.TestSource(t, bounded.FromSlice([]ranked{}).WithKeys(func(r ranked) []any { return []any{r.ID} }), nil)
	})
}

// TestFromFuncCappedCount is FromFunc over a function that counts as
// Rows.Count documents for CountCapped: up to CountCap+1.
func TestFromFuncCappedCount(t *testing.T) {
	want := rankedItems(31)
	capped := func(_ context.Context, r driver.Request) ([]ranked, int, error) {
		total := len(want)
		switch r.Count {
		case bounded.CountCapped:
			total = min(total, r.CountCap+1)
		case bounded.CountNone:
			total = -1
		}
		return want[min(r.Offset, len(want)):min(r.Offset+r.Limit+1, len(want))], total, nil
	}
	boundedtest.Options[ranked]{Limits: bounded.Limits{Default: 5, Max: 20}}.TestSource(t, bounded.FromFunc(capped), want)
}
