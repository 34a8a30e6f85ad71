package postgres_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun/driver/pgdriver"
)

// TestOpenDBRejects checks that what Open cannot honour is an error, not
// a panic or a silently different setup: a DSN pgdriver's rules cannot
// parse, pgdriver.WithResetSessionFunc, and connection parameters bun
// cannot work with. No connection is made.
func TestOpenDBRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  string
		opts []pgdriver.Option
		want string
	}{
		{"scheme", "mysql://localhost/test", nil, "invalid scheme"},
		{"escape", "postgres://%zz", nil, "invalid URL escape"},
		{"sslmode", "postgres://localhost/test?sslmode=sometimes", nil, "sslmode"},
		{"reset-session", "postgres://localhost/test?sslmode=disable",
			[]pgdriver.Option{pgdriver.WithResetSessionFunc(func(context.Context, *pgdriver.Conn) error { return nil })}, "WithResetSessionFunc"},
		{"client-encoding", "postgres://localhost/test?sslmode=disable&client_encoding=LATIN1", nil, "client_encoding"},
		{"standard-conforming-strings", "postgres://localhost/test?sslmode=disable", []pgdriver.Option{
			pgdriver.WithConnParams(map[string]any{"standard_conforming_strings": "off"})}, "standard_conforming_strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := postgres.OpenDB(tc.dsn, tc.opts...)
			if err == nil {
				db.Close()
				t.Fatalf("OpenDB(%q) succeeded, want an error naming %q", tc.dsn, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("OpenDB(%q): %v, want an error naming %q", tc.dsn, err, tc.want)
			}
		})
	}
	db, err := postgres.OpenDB("postgres://localhost/test?sslmode=disable&search_path=a,public&read_timeout=2s", pgdriver.WithWriteTimeout(time.Second))
	if err != nil {
		t.Fatalf("OpenDB with a search_path list and timeouts: %v", err)
	}
	db.Close()
}

// TestReadTimeout stalls the server's answers to a call whose context has
// no deadline: pgdriver.WithReadTimeout still bounds the wait (Open reads
// pgdriver's options), the error is a timeout, and the store answers once
// the server does.
func TestReadTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	p, s, _ := proxied(t, timeout)
	putNotes(t, s, 3)
	ctx := context.Background()
	p.Stall()
	start := time.Now()
	_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	took := time.Since(start)
	p.Flow()
	var ne net.Error
	switch {
	case err == nil:
		t.Fatalf("ListNotes on a stalled server succeeded")
	case !errors.As(err, &ne) || !ne.Timeout():
		t.Errorf("ListNotes on a stalled server: %v, want a timeout", err)
	case took < timeout || took > timeout+time.Second:
		t.Errorf("ListNotes on a stalled server returned after %v, want about the read timeout, %v", took, timeout)
	}
	t.Logf("returned after %v (read timeout %v): %v", took.Round(time.Millisecond), timeout, err)
	// The store answers once the server does. Each try gets a new
	// connection under the same 200 ms read timeout, which a loaded
	// machine can overrun while it connects: a few tries are allowed.
	for try := 1; ; try++ {
		_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
		if err == nil {
			break
		}
		if try == 10 {
			t.Errorf("ListNotes once the server answers again, %d tries: %v", try, err)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestJITOff checks that OpenDB's connections start with jit=off, unless
// the DSN sets jit.
func TestJITOff(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ param, want string }{{"", "off"}, {"on", "on"}} {
		u, err := url.Parse(dsn(t))
		if err != nil {
			t.Fatal(err)
		}
		if tc.param != "" {
			q := u.Query()
			q.Set("jit", tc.param)
			u.RawQuery = q.Encode()
		}
		db, err := postgres.OpenDB(u.String())
		if err != nil {
			t.Fatal(err)
		}
		var jit string
		err = db.QueryRowContext(ctx, "SHOW jit").Scan(&jit)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if jit != tc.want {
			t.Errorf("OpenDB(jit=%q): jit=%s, want %s", tc.param, jit, tc.want)
		}
	}
}
