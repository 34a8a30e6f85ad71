package postgres_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
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
// the server does. The connections' deadlines are held off while the
// store is set up, and after the call: only the call runs under the read
// timeout, and a slow answer to the setup (held here for twice the
// timeout) is waited for.
func TestReadTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	var deadlines deadlineGate
	p, s, _ := proxied(t, timeout, func(c *pgdriver.Config) { c.Dialer = deadlines.dial })
	p.Stall()
	time.AfterFunc(2*timeout, p.Flow)
	putNotes(t, s, 3)
	ctx := context.Background()
	p.Stall()
	deadlines.open.Store(true)
	start := time.Now()
	_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	took := time.Since(start)
	deadlines.open.Store(false)
	p.Flow()
	// Without the option the default read timeout, 10 s, would end the
	// wait.
	const defaultTimeout = 10 * time.Second
	var ne net.Error
	switch {
	case err == nil:
		t.Fatalf("ListNotes on a stalled server succeeded")
	case !errors.As(err, &ne) || !ne.Timeout():
		t.Errorf("ListNotes on a stalled server: %v, want a timeout", err)
	case took < timeout || took >= defaultTimeout:
		t.Errorf("ListNotes on a stalled server returned after %v, want the read timeout, %v, not the default, %v", took, timeout, defaultTimeout)
	}
	t.Logf("returned after %v (read timeout %v): %v", took.Round(time.Millisecond), timeout, err)
	if _, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{}); err != nil {
		t.Errorf("ListNotes once the server answers again: %v", err)
	}
}

// deadlineGate dials connections whose read deadlines apply only while
// open is set: the driver's read timeout, set on the connection before
// each read, then bounds only the reads made meanwhile.
type deadlineGate struct{ open atomic.Bool }

func (g *deadlineGate) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return gatedConn{c, g}, nil
}

// gatedConn is a connection dialed by a deadlineGate.
type gatedConn struct {
	net.Conn
	g *deadlineGate
}

func (c gatedConn) SetReadDeadline(t time.Time) error {
	if !c.g.open.Load() {
		t = time.Time{}
	}
	return c.Conn.SetReadDeadline(t)
}

func (c gatedConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.Conn.SetWriteDeadline(t))
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
