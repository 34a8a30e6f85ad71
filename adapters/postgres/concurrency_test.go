package postgres_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// TestConcurrentWrites writes 16 goroutines x 200 runs, notes, entities
// and chunks at once (16 x 50 under the race detector) through two stores,
// each with its own pool, on one schema: no write fails (no deadlock between transactions writing the
// same rows, no serialization error), and every item is stored exactly
// once.
func TestConcurrentWrites(t *testing.T) {
	schema := newSchema(t)
	var stores []adaptertest.Store
	for range 2 {
		db := bun.NewDB(sql.OpenDB(schemaConnector{pgdriver.NewConnector(pgdriver.WithDSN(dsn(t))), schema}), pgdialect.New())
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

// TestReimport imports the demo vault twice: the second import changes
// nothing.
func TestReimport(t *testing.T) {
	n := adaptertest.Reimport(t, func(t *testing.T) adaptertest.Store { return open(t) })
	t.Logf("the demo vault's %d notes imported twice: identical reads", n)
}

// TestReversedBatches puts the same chunks from two goroutines, one batch
// reversed: known bug, the two transactions lock the chunks' rows in
// opposite orders and Postgres fails one with "deadlock detected".
func TestReversedBatches(t *testing.T) {
	if errs := adaptertest.ReversedBatches(t, open(t), adaptertest.Scaled(50, 10)); len(errs) > 0 {
		adaptertest.KnownBug(t, "PutChunks of the same chunks in opposite orders from two goroutines: %v", errs[0])
	}
}
