package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// replicaEnv names the environment variable holding the address of a
// streaming replica of the database in BOUNDED_PG_DSN, e.g.
// BOUNDED_PG_REPLICA_DSN=postgres://postgres@127.0.0.1:5433/test?sslmode=disable
// (.ci/replica makes one on the same machine).
const replicaEnv = "BOUNDED_PG_REPLICA_DSN"

// withSchema returns addr with its search_path set to schema, then public.
func withSchema(t *testing.T, addr, schema string) string {
	t.Helper()
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatalf("%v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// caughtUp waits until the replica has replayed everything the primary
// had written when it was called.
func caughtUp(ctx context.Context, t *testing.T, primary, replica *bun.DB) {
	t.Helper()
	var lsn string
	if err := primary.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, adaptertest.WaitLimit(t))
	defer cancel()
	for {
		var done bool
		if err := replica.QueryRowContext(ctx, "SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn", lsn).Scan(&done); err != nil {
			t.Fatalf("waiting for the replica to replay %s: %v", lsn, err)
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the replica did not replay %s: %v", lsn, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestReplicaWalk walks ListNotes by cursor on a streaming replica while
// the primary takes writes, continuing a walk begun on the primary. Every
// note that existed throughout is returned exactly once, whatever the
// replica's lag; notes written or deleted during the walk at most once.
func TestReplicaWalk(t *testing.T) {
	primaryDSN := dsn(t)
	replicaDSN := os.Getenv(replicaEnv)
	if replicaDSN == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the replica test (.ci/replica starts one)", replicaEnv)
		}
		t.Skipf("replica test skipped: set %s (e.g. %s=postgres://postgres@127.0.0.1:5433/test?sslmode=disable; .ci/replica starts one)", replicaEnv, replicaEnv)
	}
	ctx := t.Context()
	schema := newSchema(t)
	key := postgres.CursorKey([]byte("shared by every instance"))

	pdb, err := postgres.OpenDB(withSchema(t, primaryDSN, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pdb.Close() })
	primary, err := postgres.New(ctx, pdb, key)
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := postgres.OpenDB(withSchema(t, replicaDSN, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	var recovering bool
	if err := rdb.QueryRowContext(ctx, "SELECT pg_is_in_recovery()").Scan(&recovering); err != nil || !recovering {
		t.Fatalf("%s is not a replica (in recovery: %v, %v)", replicaEnv, recovering, err)
	}

	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	const n = 120
	for i := range n {
		// Ties on UpdatedAt (i%40) exercise the id tie-breaker.
		note := ports.Note{ID: fmt.Sprintf("orig/%03d", i), Title: "t", UpdatedAt: base.Add(time.Duration(i%40) * time.Hour)}
		if err := primary.PutNote(ctx, note); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp(ctx, t, pdb, rdb)

	// A store on the replica uses the schema the primary's store made; it
	// cannot create one, nor write.
	if _, err := postgres.New(ctx, rdb, key); err == nil {
		t.Errorf("New on a replica without ExistingSchema: no error; want the server's read-only error")
	}
	replica, err := postgres.New(ctx, rdb, key, postgres.ExistingSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := replica.PutNote(ctx, ports.Note{ID: "x", Title: "x", UpdatedAt: base}); err == nil {
		t.Errorf("PutNote on a replica: no error")
	}
	missing, err := postgres.OpenDB(withSchema(t, replicaDSN, "bounded_no_such_schema"))
	if err != nil {
		t.Fatal(err)
	}
	defer missing.Close()
	if _, err := postgres.New(ctx, missing, postgres.ExistingSchema()); err == nil {
		t.Errorf("ExistingSchema on a database without the schema: no error")
	}

	// The walk starts on the primary and goes on on the replica, by
	// cursor, while the primary inserts notes on both sides of the walk's
	// position and deletes some it has not reached and some it has.
	seen := map[string]int{}
	deleted := map[string]bool{}
	page, err := primary.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 9})
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; ; step++ {
		for _, it := range page.Items {
			seen[it.ID]++
		}
		if !page.Page.HasMore {
			break
		}
		if step > 2*n {
			t.Fatal("the walk does not end")
		}
		for j := range 3 {
			at := base.Add(time.Duration((step*7+j*13)%44-2) * time.Hour)
			if err := primary.PutNote(ctx, ports.Note{ID: fmt.Sprintf("new/%03d/%d", step, j), Title: "t", UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		for _, i := range []int{(step * 17) % n, (step*29 + 5) % n} {
			id := fmt.Sprintf("orig/%03d", i)
			if deleted[id] {
				continue
			}
			if err := primary.DeleteNote(ctx, id); err != nil && !errors.Is(err, ports.ErrNotFound) {
				t.Fatal(err)
			}
			deleted[id] = true
		}
		page, err = replica.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 9, Cursor: page.Page.NextCursor})
		if err != nil {
			t.Fatalf("step %d on the replica: %v", step, err)
		}
	}
	for i := range n {
		id := fmt.Sprintf("orig/%03d", i)
		if c := seen[id]; !deleted[id] && c != 1 {
			t.Errorf("%s, present throughout, returned %d times", id, c)
		}
	}
	for id, c := range seen {
		if c > 1 {
			t.Errorf("%s returned %d times", id, c)
		}
	}
	if len(deleted) == 0 {
		t.Fatal("the walk deleted nothing: the test no longer covers writes")
	}
}
