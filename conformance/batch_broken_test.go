package conformance

import (
	"context"
	"testing"

	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// uncapped returns every parent of a note, whatever perNote asks.
type uncapped struct{ *memrepo.Store }

func (b uncapped) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	return b.Store.ParentsOf(ctx, ids, ports.MaxBatchPerNote)
}

// uncounted reports the items returned as the total, as a count taken
// after the cap would.
type uncounted struct{ *memrepo.Store }

func (b uncounted) DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (ports.Batch[ports.Descendant], error) {
	batch, err := b.Store.DescendantsOf(ctx, ids, maxDepth, perNote)
	for i := range batch.Lists {
		batch.Lists[i].Total = len(batch.Lists[i].Items)
	}
	return batch, err
}

// TestBrokenBatchStores checks that the batch checks catch a store that
// ignores the per-note cap or miscounts what it left out.
func TestBrokenBatchStores(t *testing.T) {
	for _, c := range []struct {
		name     string
		store    func(m *memrepo.Store) Store
		caughtBy []string
	}{
		{"ignores perNote (ParentsOf)", func(m *memrepo.Store) Store { return Store{Notes: uncapped{m}} }, []string{"ParentsOf", "cap"}},
		{"counts only what it returns (DescendantsOf)", func(m *memrepo.Store) Store { return Store{Notes: uncounted{m}} }, []string{"DescendantsOf", "cap"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			only := "broken/Notes/Batch"
			rep := runRecorded("broken", only, Harness{Name: "broken", Cursors: true, New: func(TB) Store { return c.store(memrepo.New()) }})
			for _, sub := range c.caughtBy {
				if !rep.caughtBy(only + "/" + sub) {
					t.Errorf("Notes/Batch/%s did not fail for a store that %s; the failing subtests: %v", sub, c.name, rep.failedTests())
				}
			}
		})
	}
}
