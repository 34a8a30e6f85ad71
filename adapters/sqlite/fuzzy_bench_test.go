package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/uptrace/bun"
)

// BenchmarkFuzzy measures fuzzy SearchNodes at scale; see
// benchutil.RunFuzzy. With BOUNDED_BENCH_KEEP=1 the entities are kept in
// bounded-fuzzy-<rows>.db in the temporary directory for the next run.
func BenchmarkFuzzy(b *testing.B) {
	benchutil.RunFuzzy(b, func(b *testing.B, rows int) (*bun.DB, func(b *testing.B) benchutil.FuzzyStores) {
		path := filepath.Join(b.TempDir(), "fuzzy.db")
		if benchutil.KeepFixtures() {
			path = filepath.Join(os.TempDir(), fmt.Sprintf("bounded-fuzzy-%d.db", rows))
		}
		s, db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db, func(*testing.B) benchutil.FuzzyStores { return benchutil.FuzzyStores{Store: s} }
	})
}
