package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// store, a query, a canceled call, a proxy or a pool must not leak one.
// The admin connection shared by the tests (postgres_test.go) is closed
// first; the drivers keep no background goroutine once their connections
// are closed (pgx's closing of an interrupted connection ends when the
// server closes its end), so nothing is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closingAdmin{m})
}

// closingAdmin runs the tests, then closes the shared admin connection
// (and with it database/sql's connection opener goroutine).
type closingAdmin struct{ m *testing.M }

func (c closingAdmin) Run() int {
	code := c.m.Run()
	if admin != nil {
		admin.Close()
	}
	return code
}

// restartEnv names the environment variable that enables
// TestRealRestart, which restarts the Postgres server itself.
const restartEnv = "BOUNDED_PG_RESTART"

// faultDSN is the test database's address with the host replaced by addr
// (a proxy's) and the store's schema and application name set.
func faultDSN(t *testing.T, addr, schema, app string) string {
	t.Helper()
	u, err := url.Parse(dsn(t))
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	if addr != "" {
		u.Host = addr
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String()
}

// proxied opens a store, in a fresh schema, through a new proxy to the
// test database, with postgres.Open, the read timeout set to readTimeout
// (0: the default, 10 s) and opts.
func proxied(t *testing.T, readTimeout time.Duration, opts ...pgdriver.Option) (*proxy, *postgres.Store, *bun.DB) {
	t.Helper()
	u, err := url.Parse(dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	if readTimeout > 0 {
		opts = append(opts, pgdriver.WithReadTimeout(readTimeout))
	}
	s, db, err := postgres.Open(context.Background(), faultDSN(t, p.Addr(), newSchema(t), "bounded-faults"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return p, s, db
}

// putNotes puts n notes a/00, a/01, ... updated one second apart (the
// newest last).
func putNotes(t *testing.T, s ports.Notes, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("a/%02d", i)
		if err := s.PutNote(context.Background(), ports.Note{ID: id, Title: "T", UpdatedAt: time.Unix(int64(i), 0)}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	slices.Reverse(ids)
	return ids
}

// TestStalledServer stalls the server's answers: a call whose context is
// canceled, or whose deadline passes, must return with the context's error
// before the read timeout would end its wait, and the store must answer
// once the server does.
func TestStalledServer(t *testing.T) {
	const readTimeout = 10 * time.Second
	p, s, _ := proxied(t, readTimeout)
	putNotes(t, s, 30)
	list := func(ctx context.Context) error {
		_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
		return err
	}
	for _, deadline := range []bool{false, true} {
		p.Stall()
		late, err := adaptertest.Interrupted(t, list, 100*time.Millisecond, deadline, readTimeout)
		want := context.Canceled
		if deadline {
			want = context.DeadlineExceeded
		}
		t.Logf("deadline %v: returned %v after the context ended: %v", deadline, late, err)
		adaptertest.WantContextErr(t, fmt.Sprintf("ListNotes on a stalled server (deadline %v)", deadline), err, want)
		p.Flow()
		if err := list(context.Background()); err != nil {
			t.Errorf("ListNotes once the server answers again: %v", err)
		}
	}
}

// connError reports whether err is an error of a lost or refused
// connection.
func connError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}

// TestRestartMidWalk cuts every connection in the middle of a walk and
// refuses new ones (a server going down), then listens again (the server
// back up): while down, calls fail at once with a connection error naming
// the engine; once up, the same store (no new process, no new pool)
// answers again, and the walk, resumed at the page that failed, returns
// every note exactly once.
//
// Then the pool's idle connections are cut while no call is running: no
// call fails on a stale connection (each is found closed before it is
// used, and replaced).
func TestRestartMidWalk(t *testing.T) {
	p, s, db := proxied(t, 0)
	want := putNotes(t, s, 23)
	ctx := context.Background()
	var got []string
	page := bounded.Page{Limit: 5}
	read := func() (bounded.Paged[ports.NoteRef], error) {
		return s.ListNotes(ctx, ports.ListFilter{}, page)
	}
	pg, err := read()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range pg.Items {
		got = append(got, n.ID)
	}
	page.Offset = pg.Page.NextOffset

	// While down, calls fail at once: before the dial or read timeout
	// (pgdriver's defaults, which Open keeps) would end them.
	conf := pgdriver.NewConnector().Config()
	timeout := min(conf.DialTimeout, conf.ReadTimeout)
	p.Cut()
	for i := range 3 {
		start := time.Now()
		_, err := read()
		took := time.Since(start)
		switch {
		case err == nil:
			t.Fatalf("call %d while the server is down: no error", i)
		case !connError(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			t.Errorf("call %d while the server is down: %q is not a connection error", i, err)
		case took >= timeout:
			t.Errorf("call %d while the server is down took %v, as long as a timeout (%v)", i, took, timeout)
		}
		t.Logf("down, call %d: %v (%v)", i, err, took.Round(time.Microsecond))
	}
	p.Restore()
	for step := 0; ; step++ {
		pg, err := read()
		if err != nil {
			t.Fatalf("after the restart, the walk at offset %d: %v", page.Offset, err)
		}
		for _, n := range pg.Items {
			got = append(got, n.ID)
		}
		if !pg.Page.HasMore {
			break
		}
		page.Offset = pg.Page.NextOffset
	}
	if !slices.Equal(got, want) {
		t.Errorf("the walk across the restart returned %q, want %q", got, want)
	}

	// Idle connections cut while nothing runs. Two pairs of concurrent
	// calls on a pool of two leave two idle connections, each used less
	// than a second ago (so not pinged before reuse for their idleness).
	db.SetMaxOpenConns(2)
	for range 2 {
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if _, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	idle := db.Stats().Idle
	p.Cut()
	p.Restore()
	failed := 0
	for range idle + 1 {
		if _, err := read(); err != nil {
			failed++
			t.Logf("after a restart with %d idle connections: %v", idle, err)
			continue
		}
		break
	}
	if _, err := read(); err != nil {
		t.Errorf("after %d failed calls on stale connections, still failing: %v", failed, err)
	}
	if failed > 0 {
		t.Errorf("after a restart, %d call(s) failed on stale pooled connections (of %d idle) before one succeeded", failed, idle)
	}
	t.Logf("after a restart with %d idle connections: %d failed calls", idle, failed)
}

// TestTerminatedBackends has the server end the store's idle pooled
// connections as a restart does (pg_terminate_backend: the server sends
// "terminating connection due to administrator command", then closes),
// less than a second after their last use: no call fails, each connection
// is found closed before it is used (a peek at its socket) and replaced.
func TestTerminatedBackends(t *testing.T) {
	ctx := context.Background()
	app := fmt.Sprintf("bounded-terminated-%s", runID)
	s, db, err := postgres.Open(ctx, faultDSN(t, "", newSchema(t), app))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	putNotes(t, s, 3)
	list := func() error {
		_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
		return err
	}
	db.SetMaxOpenConns(2)
	for round := range 3 {
		// Two pairs of concurrent calls: two idle connections, each
		// reused less than a second ago.
		for range 2 {
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					if err := list(); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
		}
		var n int
		if err := adminDB(t).QueryRowContext(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?", app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			var left int
			if err := adminDB(t).QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", app).Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left == 0 {
				break
			}
			if time.Since(start) > adaptertest.WaitLimit(t) {
				t.Fatalf("round %d: %d terminated backend(s) still there after %v", round, left, time.Since(start))
			}
		}
		failed := 0
		for range 3 {
			if err := list(); err != nil {
				failed++
				t.Logf("round %d, after %d backend(s) were terminated: %v", round, n, err)
			}
		}
		if failed > 0 {
			t.Errorf("round %d: %d of 3 calls failed after %d idle connection(s) were terminated by the server", round, failed, n)
		}
		t.Logf("round %d: %d backend(s) terminated, %d failed calls", round, n, failed)
	}
}

// TestPoolExhausted holds the pool's only connection in a transaction: a
// read and a write wait for it, and return when their context ends, with
// its error, instead of hanging; once the transaction ends they succeed.
func TestPoolExhausted(t *testing.T) {
	db := openDB(t)
	s, err := postgres.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	putNotes(t, s, 3)
	tx, err := db.BeginTx(context.Background(), nil)
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
		if err := call(context.Background()); err != nil {
			t.Errorf("%s after the transaction ended: %v", name, err)
		}
	}
}

// TestAbandonedQuery times Descendants over a dense hierarchy (see
// adaptertest.DescendantsCost), then runs it with a 30 ms deadline while
// another transaction holds a lock on the notes, so that the statement
// waits on the server: the call returns at the deadline with an error
// wrapping context.DeadlineExceeded, and the server stops the statement
// then (the driver sends it a cancel request), instead of keeping it for
// nobody until the lock is released. Once the lock is released the store
// answers again.
func TestAbandonedQuery(t *testing.T) {
	ctx := context.Background()
	app := fmt.Sprintf("bounded-abandoned-%s", runID)
	schema := newSchema(t)
	s, db, err := postgres.Open(ctx, faultDSN(t, "", schema, app))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	inTx, err := postgres.New(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	const k = 200
	top := adaptertest.DenseHierarchy(ctx, t, inTx, "dense", k)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ref := memrepo.New()
	adaptertest.DenseHierarchy(ctx, t, ref, "dense", k)
	adaptertest.DescendantsCost(t, s, ref, top)

	descendants := func(ctx context.Context) error {
		_, err := s.Descendants(ctx, top, ports.MaxDescendantDepth, bounded.Page{})
		return err
	}
	lock, err := adminDB(t).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, "LOCK TABLE "+schema+".bounded_notes IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	late, err := adaptertest.Interrupted(t, descendants, 30*time.Millisecond, true, 0)
	t.Logf("returned %v after the deadline: %v", late, err)
	adaptertest.WantContextErr(t, "Descendants past its deadline", err, context.DeadlineExceeded)
	// The cancel request is sent as the call returns; the server acts on
	// it in its own time. Without it, the statement would wait for the
	// lock until the rollback below.
	returned := time.Now()
	var active int
	for {
		if err := adminDB(t).QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND state = 'active'", app).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active == 0 || time.Since(returned) > adaptertest.WaitLimit(t) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if active > 0 {
		t.Errorf("%d statement(s) still running on the server %v after the call returned at its deadline", active, time.Since(returned).Round(time.Millisecond))
	} else {
		t.Logf("no statement running on the server %v after the call returned", time.Since(returned).Round(time.Millisecond))
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := descendants(ctx); err != nil {
		t.Errorf("Descendants once the lock is released: %v", err)
	}
}

// TestRealRestart restarts the Postgres server itself (pg_ctlcluster) in
// the middle of a walk: it is skipped unless BOUNDED_PG_RESTART=1, since
// it breaks every other test using the server at that moment. Run it
// alone:
//
//	BOUNDED_PG_RESTART=1 go test ./adapters/postgres -run TestRealRestart -v
//
// The cluster is named by BOUNDED_PG_CLUSTER (default "15 main").
func TestRealRestart(t *testing.T) {
	if os.Getenv(restartEnv) != "1" {
		t.Skipf("restarts the Postgres server: set %s=1 to run it (alone)", restartEnv)
	}
	cluster := []string{"15", "main"}
	if c := os.Getenv("BOUNDED_PG_CLUSTER"); c != "" {
		cluster = strings.Fields(c)
	}
	s, db, err := postgres.Open(context.Background(), faultDSN(t, "", newSchema(t), "bounded-restart"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := putNotes(t, s, 23)
	ctx := context.Background()
	page := bounded.Page{Limit: 5}
	var got []string
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range pg.Items {
		got = append(got, n.ID)
	}
	page.Offset = pg.Page.NextOffset
	out, err := exec.Command("pg_ctlcluster", append([]string{"--skip-systemctl-redirect"}, append(cluster, "restart")...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_ctlcluster restart: %v\n%s", err, out)
	}
	failed := 0
	for step := 0; step < 100; step++ {
		pg, err := s.ListNotes(ctx, ports.ListFilter{}, page)
		if err != nil {
			failed++
			t.Logf("after the restart: %v", err)
			if failed > 10 {
				t.Fatalf("the store does not recover: %v", err)
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for _, n := range pg.Items {
			got = append(got, n.ID)
		}
		if !pg.Page.HasMore {
			break
		}
		page.Offset = pg.Page.NextOffset
	}
	if !slices.Equal(got, want) {
		t.Errorf("the walk across the restart returned %q, want %q", got, want)
	}
	if failed > 0 {
		t.Errorf("%d call(s) failed after the restart before the store answered again, want none: stale pooled connections must be replaced before use", failed)
	}
	t.Logf("%d calls failed after the restart before the store answered again", failed)
	// The shared admin pool has stale connections too: use them up, so
	// that the schema can be dropped.
	for i := 0; i < 5 && adminDB(t).Ping() != nil; i++ {
	}
}

// TestContextErrors checks, with the adapter's driver (pgx) and with bun's
// pgdriver, that the error of opening a store (connecting, creating the
// schema) and of every method wraps the call's context's when the context
// is canceled or expires before or during the call. pgdriver sets its
// socket's deadline to the context's, so its read can fail on it before
// the context's own timer has fired.
func TestContextErrors(t *testing.T) {
	for _, driver := range []string{"pgx", "pgdriver"} {
		t.Run(driver, func(t *testing.T) {
			schema := newSchema(t)
			open := func(ctx context.Context) (*bun.DB, error) {
				_, db, err := postgres.Open(ctx, faultDSN(t, "", schema, "bounded-ctx"))
				return db, err
			}
			db := openDB(t)
			if driver == "pgdriver" {
				open = func(ctx context.Context) (*bun.DB, error) {
					db := bun.NewDB(sql.OpenDB(schemaConnector{pgdriver.NewConnector(pgdriver.WithDSN(dsn(t))), schema}), pgdialect.New())
					_, err := postgres.New(ctx, db)
					return db, err
				}
				db = openPgdriver(t)
			}
			s, err := postgres.New(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			n, calls := adaptertest.ContextErrors(t, s, open)
			t.Logf("%d of %d calls ended with the context's error", n, calls)
		})
	}
}
