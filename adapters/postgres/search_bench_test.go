package postgres_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// BenchmarkSearch measures search at scale; see benchutil.RunSearch. The
// note index is rebuilt by dropping the trigram indexes and opening the
// store again.
func BenchmarkSearch(b *testing.B) {
	benchutil.RunSearch(b, func(b *testing.B, n int) (benchutil.Store, *bun.DB) {
		db := openDB(b)
		s, err := postgres.New(context.Background(), db)
		if err != nil {
			b.Fatal(err)
		}
		return s, db
	}, func(ctx context.Context, db *bun.DB) (time.Duration, int64, error) {
		const size = "SELECT pg_relation_size('bounded_notes_title_trgm') + pg_relation_size('bounded_notes_content_trgm')"
		// The build outlasts the driver's read timeout at 1M notes: it runs
		// on a database of its own, on the same schema, without one.
		var schema string
		if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			return 0, 0, err
		}
		u, err := url.Parse(dsn(b))
		if err != nil {
			return 0, 0, err
		}
		q := u.Query()
		q.Set("search_path", schema+",public")
		u.RawQuery = q.Encode()
		build, err := postgres.OpenDB(u.String(), pgdriver.WithReadTimeout(0))
		if err != nil {
			return 0, 0, err
		}
		defer build.Close()
		db = build
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
