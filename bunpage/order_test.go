package bunpage_test

import (
	"errors"
	"testing"

	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
)

// TestValueOrderMismatch: a column whose value function does not return
// what the database sorts is an error wrapping ErrInvalidSource on the
// first page that shows it, by offset or by cursor (or the database's own
// error, where it refuses to compare the types), never pages that skip or
// repeat rows.
func TestValueOrderMismatch(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		loadBooks(t, db, 30)
		q := db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a")
		for _, c := range []struct {
			name  string
			col   bunpage.Column[book]
			first any // a cursor key before every row
		}{
			// The database sorts by rating; the function says the opposite.
			{"negated", bunpage.Col("rating", func(b book) float64 { return -b.Rating }), float64(-1e9)},
			// A time returned as its year alone: rows the function ties
			// the database orders by time, not by id.
			{"coarser", bunpage.Col("added", func(b book) int64 { return int64(b.Added.Year()) }), int64(0)},
		} {
			src, err := bunpage.New(db, q, c.col, bunpage.Col("id", func(b book) int64 { return b.ID }).Unique())
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Fetch(ctx, driver.Request{Limit: 10, Count: bounded.CountNone})
			if !errors.Is(err, bunpage.ErrInvalidSource) {
				t.Errorf("%s: first page: %v, want ErrInvalidSource", c.name, err)
			}
			_, err = src.Fetch(ctx, driver.Request{Limit: 10, Count: bounded.CountNone, At: &driver.Cursor{Keys: []any{c.first, int64(0)}}})
			// Postgres may refuse the comparison itself: an error either way.
			if err == nil || c.name == "negated" && !errors.Is(err, bunpage.ErrInvalidSource) {
				t.Errorf("%s: a page after a cursor: %v, want an error (ErrInvalidSource when the types compare)", c.name, err)
			}
		}
	})
}
