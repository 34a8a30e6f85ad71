package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/uptrace/bun"
)

// BenchmarkPages compares the adapter's pages with hand-written bun
// queries; see package benchutil for the data and the commands.
func BenchmarkPages(b *testing.B) {
	benchutil.Run(b, func(b *testing.B, rows int) (benchutil.Store, *bun.DB) {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return s, db
	})
}

// BenchmarkDepth measures pages at depth 0, 1%, 10% and 90% of the data by
// offset and by cursor, the count strategies, and what an application
// would write with bun instead; see benchutil.RunDepth for the metrics and
// the commands.
func BenchmarkDepth(b *testing.B) {
	benchutil.RunDepth(b, func(b *testing.B, rows int) (benchutil.Store, *bun.DB) {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return s, db
	})
}
