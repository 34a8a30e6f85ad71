package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// BenchmarkFuzzy measures fuzzy SearchNodes at scale, beside pg_trgm; see
// benchutil.RunFuzzy. With BOUNDED_BENCH_KEEP=1 the entities are kept in
// the schema bounded_fuzzy_<rows> for the next run.
func BenchmarkFuzzy(b *testing.B) {
	benchutil.RunFuzzy(b, func(b *testing.B, rows int) (*bun.DB, func(b *testing.B) benchutil.FuzzyStores) {
		schema := newSchema(b)
		if benchutil.KeepFixtures() {
			schema = fmt.Sprintf("bounded_fuzzy_%d", rows)
			if _, err := adminDB(b).Exec("CREATE SCHEMA IF NOT EXISTS " + schema); err != nil {
				b.Fatal(err)
			}
		}
		u, err := url.Parse(dsn(b))
		if err != nil {
			b.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema+",public")
		u.RawQuery = q.Encode()
		// Loading and indexing a million names outlast the driver's
		// read timeout.
		db, err := postgres.OpenDB(u.String(), pgdriver.WithReadTimeout(0))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		ctx := context.Background()
		s, err := postgres.New(ctx, db)
		if err != nil {
			b.Fatal(err)
		}
		return db, func(b *testing.B) benchutil.FuzzyStores {
			trgm, err := postgres.New(ctx, db, postgres.PgTrgm())
			if err != nil {
				b.Fatal(err)
			}
			return benchutil.FuzzyStores{Store: s, PgTrgm: trgm}
		}
	})
}
