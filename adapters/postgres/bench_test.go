package postgres_test

import (
	"context"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/uptrace/bun"
)

// BenchmarkPages compares the adapter's pages with hand-written bun
// queries, in a schema of its own; see package benchutil for the data and
// the commands (with BOUNDED_PG_DSN set).
func BenchmarkPages(b *testing.B) {
	benchutil.Run(b, func(b *testing.B, rows int) (benchutil.Store, *bun.DB) {
		db := openDB(b)
		s, err := postgres.New(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		return s, db
	})
}

// BenchmarkDepth measures pages at depth 0, 1%, 10% and 90% of the data by
// offset and by cursor, the count strategies, and what an application
// would write with bun instead, in a schema of its own; see
// benchutil.RunDepth for the metrics and the commands (with
// BOUNDED_PG_DSN set).
func BenchmarkDepth(b *testing.B) {
	benchutil.RunDepth(b, func(b *testing.B, rows int) (benchutil.Store, *bun.DB) {
		db := openDB(b)
		s, err := postgres.New(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		return s, db
	})
}
