package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/uptrace/bun"
)

// BenchmarkSearch measures search at scale; see benchutil.RunSearch. The
// note index is rebuilt by dropping the trigram indexes and opening the
// store again, up to 100,000 rows: at 1,000,000 the build outlasts the
// driver's read timeout, and only the size is reported.
func BenchmarkSearch(b *testing.B) {
	rows := 0
	benchutil.RunSearch(b, func(b *testing.B, n int) (benchutil.Store, *bun.DB) {
		rows = n
		db := openDB(b)
		s, err := postgres.New(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		return s, db
	}, func(ctx context.Context, db *bun.DB) (time.Duration, int64, error) {
		const size = "SELECT pg_relation_size('bounded_notes_title_trgm') + pg_relation_size('bounded_notes_content_trgm')"
		if rows > 100_000 {
			var n int64
			return 0, n, db.QueryRowContext(ctx, size).Scan(&n)
		}
		for _, q := range []string{"DROP INDEX bounded_notes_title_trgm", "DROP INDEX bounded_notes_content_trgm"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return 0, 0, err
			}
		}
		start := time.Now()
		if _, err := postgres.New(ctx, db); err != nil {
			return 0, 0, err
		}
		took := time.Since(start)
		var n int64
		return took, n, db.QueryRowContext(ctx, size).Scan(&n)
	})
}
