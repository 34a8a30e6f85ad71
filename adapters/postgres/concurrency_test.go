package postgres_test

import (
	"context"
	"database/sql"
	"net/url"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// TestConcurrentWrites writes 16 goroutines x 200 runs, notes, entities
// and chunks at once (16 x 50 under the race detector) through two stores,
// each with its own pool, on one schema: no write fails (no deadlock between transactions writing the
// same rows, no serialization error), and every item is stored exactly
// once. One store uses the adapter's driver (postgres.OpenDB), the other
// bun's pgdriver.
func TestConcurrentWrites(t *testing.T) {
	schema := newSchema(t)
	u, err := url.Parse(dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	pgx, err := postgres.OpenDB(u.String())
	if err != nil {
		t.Fatal(err)
	}
	var stores []adaptertest.Store
	for _, db := range []*bun.DB{pgx, bun.NewDB(sql.OpenDB(schemaConnector{pgdriver.NewConnector(pgdriver.WithDSN(dsn(t))), schema}), pgdialect.New())} {
		t.Cleanup(func() { db.Close() })
		s, err := postgres.New(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	st := adaptertest.ConcurrentWrites(t, stores, 16, adaptertest.Scaled(200, 50))
	t.Logf("%d concurrent writes through 2 pools: %d failed, in %v", st.Writes, st.Failed, st.Elapsed)
}

// TestReimport imports the demo vault of the notes example twice: the
// second import changes nothing.
func TestReimport(t *testing.T) {
	n := adaptertest.Reimport(t, func(t *testing.T) adaptertest.Store { return open(t) }, importDemoVault)
	t.Logf("the demo vault's %d notes imported twice: identical reads", n)
}

// TestReversedBatches puts the same chunks from two goroutines, one batch
// reversed: no write fails. Had each transaction locked the chunks' rows
// in its caller's order, the two would wait for each other and Postgres
// would fail one with "deadlock detected"; PutChunks writes in ID order.
func TestReversedBatches(t *testing.T) {
	if errs := adaptertest.ReversedBatches(t, open(t), adaptertest.Scaled(50, 10)); len(errs) > 0 {
		t.Errorf("PutChunks of the same chunks in opposite orders from two goroutines: %d error(s), the first: %v", len(errs), errs[0])
	}
}

// importDemoVault imports the notes example's demo vault into s.
func importDemoVault(ctx context.Context, s ports.Notes) (adaptertest.ImportReport, error) {
	rep, err := vault.Import(ctx, demovault.FS(), s)
	return adaptertest.ImportReport{Imported: rep.Imported, Deleted: rep.Deleted, Refused: len(rep.Errors)}, err
}
