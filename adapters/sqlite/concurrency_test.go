package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/boundedkit/bounded"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/sqlite"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// TestOpenPragmas reads back the pragmas Open sets on its connection: WAL
// (readers never wait for the writer), a 5-second busy timeout (a writer
// of another process waits for the lock instead of failing with
// SQLITE_BUSY) and foreign keys.
func TestOpenPragmas(t *testing.T) {
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "pragmas.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
	} {
		var got string
		if err := db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
	if n := db.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("the pool holds %d connections at most, want 1 (one writer at a time)", n)
	}
}

// TestConcurrentWrites writes 16 goroutines x 200 runs, notes, entities
// and chunks at once (16 x 25 under the race detector) into one database
// file through two stores opened with Open (two pools: as two processes,
// they contend for SQLite's lock, and a write waits for it as long as its
// context allows, however long the other pool keeps it): no write fails
// (no SQLITE_BUSY escapes), and every item is stored exactly once.
func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "concurrent.db")
	var stores []adaptertest.Store
	for range 2 {
		s, db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		stores = append(stores, s)
	}
	st := adaptertest.ConcurrentWrites(t, stores, 16, adaptertest.Scaled(200, 25))
	t.Logf("%d concurrent writes through 2 pools: %d failed, in %v", st.Writes, st.Failed, st.Elapsed)
}

// TestReimport imports the demo vault of the notes example twice: the
// second import changes nothing.
func TestReimport(t *testing.T) {
	n := adaptertest.Reimport(t, open, importDemoVault)
	t.Logf("the demo vault's %d notes imported twice: identical reads", n)
}

// openDB opens a store on a new database file and returns its bun.DB too.
func openDB(t *testing.T, name string) (*sqlite.Store, *bun.DB) {
	t.Helper()
	s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, db
}

// TestReversedBatches puts the same chunks from two goroutines, one batch
// reversed: SQLite has one writer at a time, so no deadlock.
func TestReversedBatches(t *testing.T) {
	if errs := adaptertest.ReversedBatches(t, open(t), adaptertest.Scaled(50, 10)); len(errs) > 0 {
		t.Errorf("PutChunks of the same chunks in opposite orders from two goroutines: %v", errs[0])
	}
}

// importDemoVault imports the notes example's demo vault into s.
func importDemoVault(ctx context.Context, s ports.Notes) (adaptertest.ImportReport, error) {
	rep, err := vault.Import(ctx, demovault.FS(), s)
	return adaptertest.ImportReport{Imported: rep.Imported, Deleted: rep.Deleted, Refused: len(rep.Errors)}, err
}

// TestFuzzyReadsBesideWriter checks that fuzzy SearchNodes, whose
// statements share one snapshot, reads through a second pool while a
// writer holds the database's write lock: its transaction is deferred, a
// read, where one begun through database/sql would wait for the lock
// (until the busy timeout, then fail with SQLITE_BUSY).
func TestFuzzyReadsBesideWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "read.db")
	w, wdb, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer wdb.Close()
	for i := range 50 {
		if err := w.PutEntity(ctx, ports.Entity{Name: fmt.Sprintf("alpha bravo %d", i), Type: "thing", UpdatedAt: time.Unix(int64(i), 0)}); err != nil {
			t.Fatal(err)
		}
	}
	r, rdb, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	conn, err := wdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	ctx, cancel := context.WithTimeout(ctx, adaptertest.WaitLimit(t))
	defer cancel()
	pg, err := r.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alpah bravo"}, Mode: ports.Fuzzy, Threshold: 0.3}, bounded.Page{Limit: 5})
	if err != nil {
		t.Fatalf("fuzzy search beside a writer: %v", err)
	}
	if len(pg.Items) != 5 || pg.Page.Total != 50 {
		t.Errorf("fuzzy search beside a writer: %d items of %d, want 5 of 50", len(pg.Items), pg.Page.Total)
	}
}
