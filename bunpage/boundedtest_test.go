package bunpage_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/boundedkit/bounded/boundedtest"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/uptrace/bun"
)

// TestBoundedtest runs boundedtest's check on sources over the books of
// one shelf, in a row-value order and in a mixed one with NULLs first,
// with writes between the pages of its last walks: the first 12 books
// (10 on the shelf) in the default run, 20 in the deep run (deeptest).
func TestBoundedtest(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		for i, o := range []order{orders[0], orders[5]} {
			t.Run(o.name, func(t *testing.T) {
				exec(t, db, "DROP TABLE IF EXISTS books")
				books := loadBooks(t, db, deeptest.Size(12, 20))
				w := newWriter(db, books, uint64(i))
				opts := boundedtest.Options[book]{
					Mutate: func(ctx context.Context, _ int) ([]book, error) {
						if _, err := w.step(ctx); err != nil {
							return nil, err
						}
						return o.sorted(slices.Collect(maps.Values(w.live)), "a"), nil
					},
				}
				opts.TestSource(t, o.source(t, db, "a"), o.sorted(books, "a"))
			})
		}
	})
}
