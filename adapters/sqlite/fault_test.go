package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/sqliteshim"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// store, a query, a canceled call or a pool must not leak one. The SQLite
// driver (modernc.org/sqlite) starts no background goroutine, and every
// bun.DB the tests open is closed, so nothing is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// denseStore opens a store holding DenseHierarchy(k) (written in one
// transaction: fast) and returns the store, its bun.DB and the hierarchy's
// top note.
func denseStore(t *testing.T, k int) (*sqlite.Store, *bun.DB, string) {
	t.Helper()
	ctx := context.Background()
	s, db := openDB(t, "dense.db")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	inTx, err := sqlite.New(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	top := adaptertest.DenseHierarchy(ctx, t, inTx, "dense", k)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return s, db, top
}

// TestCancelMidQuery cancels, 20 ms in, a SearchNotes call that takes
// SQLite about 0.75 s: 32 notes of 16 KB of "a" searched for 4,000 "a"s
// and a "b" (SQLite's instr compares the query at every position of the
// text, so its time grows with the text's length times the query's). The
// call returns (the driver interrupts the statement) before half the time
// the uninterrupted call took in the same run, with an error wrapping the
// context's, and the store answers the next call. The deep run writes 128
// notes; under the race detector, which makes each note take about 0.8 s,
// 2.
func TestCancelMidQuery(t *testing.T) {
	s, _ := openDB(t, "cancel.db")
	ctx := context.Background()
	for i := range adaptertest.Scaled(deeptest.Size(32, 128), 2) {
		if err := s.PutNote(ctx, ports.Note{ID: fmt.Sprintf("a/%03d", i), Title: "A", Content: strings.Repeat("a", 16<<10)}); err != nil {
			t.Fatal(err)
		}
	}
	query := strings.Repeat("a", 4000) + "b"
	search := func(ctx context.Context) error {
		_, err := s.SearchNotes(ctx, query, bounded.Page{})
		return err
	}
	const cancelAfter = 20 * time.Millisecond
	start := time.Now()
	if err := search(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < 4*cancelAfter {
		t.Fatalf("the call takes %v, too little to be interrupted %v in", took, cancelAfter)
	}
	for _, deadline := range []bool{false, true} {
		late, err := adaptertest.Interrupted(t, search, cancelAfter, deadline, took/2)
		want := context.Canceled
		if deadline {
			want = context.DeadlineExceeded
		}
		adaptertest.WantContextErr(t, fmt.Sprintf("SearchNotes interrupted (deadline %v)", deadline), err, want)
		t.Logf("deadline %v: returned %v after the context ended (uninterrupted: %v): %v", deadline, late, took, err)
	}
	if _, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 5}); err != nil {
		t.Errorf("after the interrupted calls: %v", err)
	}
}

// TestPoolExhausted holds the pool's only connection in a transaction:
// a read and a write wait for it, and return when their context ends, with
// its error, instead of hanging; once the transaction ends they succeed.
func TestPoolExhausted(t *testing.T) {
	s, db := openDB(t, "pool.db")
	ctx := context.Background()
	if err := s.PutNote(ctx, ports.Note{ID: "a", Title: "A"}); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(ctx context.Context) error{
		"ListNotes": func(ctx context.Context) error {
			_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
			return err
		},
		"PutNote": func(ctx context.Context) error { return s.PutNote(ctx, ports.Note{ID: "b", Title: "B"}) },
	}
	for name, call := range calls {
		for _, deadline := range []bool{false, true} {
			late, err := adaptertest.Interrupted(t, call, 100*time.Millisecond, deadline, 0)
			want := context.Canceled
			if deadline {
				want = context.DeadlineExceeded
			}
			adaptertest.WantContextErr(t, fmt.Sprintf("%s waiting for a connection (deadline %v)", name, deadline), err, want)
			t.Logf("%s, deadline %v: returned %v after the context ended: %v", name, deadline, late, err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	for name, call := range calls {
		if err := call(ctx); err != nil {
			t.Errorf("%s after the transaction ended: %v", name, err)
		}
	}
}

// TestLockedByAnotherProcess holds SQLite's write lock from another
// connection (another process, as far as the store can tell): reads go on
// (WAL); a write waits for the lock as long as its context allows, past
// the connection's busy timeout, returns with the context's error when the
// context ends, and succeeds once the lock is released. No SQLITE_BUSY
// reaches the caller.
func TestLockedByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "locked.db")
	s, db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := sql.Open(sqliteshim.ShimName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{}); err != nil {
		t.Errorf("a read while another connection holds the write lock: %v", err)
	}
	put := func(ctx context.Context) error { return s.PutNote(ctx, ports.Note{ID: "x", Title: "X"}) }

	// Canceled while SQLite's busy handler waits: the call returns before
	// the busy timeout would have ended the wait.
	var busyMillis int64
	if err := db.QueryRow("PRAGMA busy_timeout").Scan(&busyMillis); err != nil {
		t.Fatal(err)
	}
	busy := time.Duration(busyMillis) * time.Millisecond
	const cancelAfter = 50 * time.Millisecond
	for _, deadline := range []bool{false, true} {
		late, err := adaptertest.Interrupted(t, put, cancelAfter, deadline, busy)
		want := context.Canceled
		if deadline {
			want = context.DeadlineExceeded
		}
		adaptertest.WantContextErr(t, fmt.Sprintf("PutNote waiting for the write lock (deadline %v)", deadline), err, want)
		t.Logf("deadline %v: returned %v after the context ended (busy timeout %v): %v", deadline, late, busy, err)
	}

	// Past the busy timeout, shortened on the pool's one connection: the
	// write waits on until its context ends, and without an end until the
	// lock is released.
	if _, err := db.Exec("PRAGMA busy_timeout = 10"); err != nil {
		t.Fatal(err)
	}
	const wait = 200 * time.Millisecond // 20 busy timeouts
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	adaptertest.WantContextErr(t, "PutNote waiting for the write lock past the busy timeout", put(short), context.DeadlineExceeded)
	done := make(chan error, 1)
	go func() { done <- put(ctx) }()
	time.Sleep(wait)
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("PutNote waiting for the write lock until it is released: %v", err)
	}
}

// TestDescendantsCost times Descendants over a dense hierarchy against
// memrepo's: both walk breadth-first, expanding each note once, so the
// store's time stays within a small factor of memrepo's (a walk keeping
// every (note, depth) pair would grow with notes^2 * depth).
func TestDescendantsCost(t *testing.T) {
	if adaptertest.Race {
		t.Skip("a timing test: meaningless under the race detector")
	}
	const k = 120
	s, _, top := denseStore(t, k)
	ref := memrepo.New()
	adaptertest.DenseHierarchy(context.Background(), t, ref, "dense", k)
	adaptertest.DescendantsCost(t, s, ref, top)
}

// TestContextErrors checks that the error of Open and of every method
// wraps the call's context's when the context is canceled or expires
// before or during the call.
func TestContextErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctx.db")
	n, calls := adaptertest.ContextErrors(t, open(t), func(ctx context.Context) (*bun.DB, error) {
		_, db, err := sqlite.Open(ctx, path)
		return db, err
	})
	t.Logf("%d of %d calls ended with the context's error", n, calls)
}
