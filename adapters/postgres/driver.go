package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// OpenDB returns a bun.DB for the database at dsn, configured as [Open]
// configures it, without connecting (connections are made on first use)
// and without creating the schema: for [New], e.g. inside the caller's
// transactions. dsn and opts are read as by Open; a DSN that does not
// parse, or an option Open does not support, is an error.
func OpenDB(dsn string, opts ...pgdriver.Option) (*bun.DB, error) {
	cfg, err := connConfig(dsn, opts...)
	if err != nil {
		return nil, err
	}
	return bun.NewDB(stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(shouldPing)), pgdialect.New()), nil
}

// connConfig reads dsn and opts as pgdriver does (the same defaults, DSN
// parameters and environment variables) and translates the result into
// the configuration of pgx's driver.
func connConfig(dsn string, opts ...pgdriver.Option) (cfg *pgx.ConnConfig, err error) {
	var pc *pgdriver.Config
	func() {
		// pgdriver.WithDSN panics on a DSN it cannot parse.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("postgres: invalid DSN: %v", r)
			}
		}()
		pc = pgdriver.NewConnector(append([]pgdriver.Option{pgdriver.WithDSN(dsn)}, opts...)...).Config()
	}()
	if err != nil {
		return nil, err
	}
	if pc.ResetSessionFunc != nil {
		return nil, errors.New("postgres: pgdriver.WithResetSessionFunc is not supported: Open checks pooled connections itself")
	}
	params := make(map[string]string, len(pc.ConnParams)+1)
	for k, v := range pc.ConnParams {
		if v == nil {
			continue
		}
		s := paramString(v)
		if !pc.UnsafeStrings && (k == "standard_conforming_strings" && s != "on" || k == "client_encoding" && s != "UTF8") {
			return nil, fmt.Errorf("postgres: connection parameter %s=%s is not supported: bun needs standard_conforming_strings=on and client_encoding=UTF8", k, s)
		}
		params[k] = s
	}
	if pc.AppName != "" {
		params["application_name"] = pc.AppName
	}
	if _, ok := params["jit"]; !ok {
		params["jit"] = "off"
	}

	// ParseConfig("") gives pgx's defaults; everything that says where and
	// how to connect is then replaced by pgdriver's settings.
	cfg, err = pgx.ParseConfig("")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.Host, cfg.Port = hostPort(pc.Network, pc.Addr)
	cfg.User, cfg.Password, cfg.Database = pc.User, pc.Password, pc.Database
	cfg.TLSConfig = pc.TLSConfig
	cfg.SSLNegotiation = "postgres"
	cfg.Fallbacks = nil
	cfg.ValidateConnect = nil
	cfg.ConnectTimeout = 0
	cfg.RuntimeParams = params
	network, addr, dial := pc.Network, pc.Addr, pc.Dialer
	cfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx, network, addr) }
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	if rt, wt := pc.ReadTimeout, pc.WriteTimeout; rt > 0 || wt > 0 {
		cfg.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
			return &timeoutConn{Conn: c, read: rt, write: wt}, nil
		}
	}
	// bun writes every argument into the statement's text, and pgx runs a
	// statement without arguments with the simple protocol (one round
	// trip, nothing prepared on the server); make it the default for any
	// statement given arguments directly, so that none is prepared and
	// cached per distinct text.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	return cfg, nil
}

// paramString is a connection parameter's value as the server reads it.
func paramString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// hostPort splits pgdriver's address into pgx's host and port, which pgx
// uses in messages only: connections are dialed by pgdriver's dialer. A
// Unix socket's address is its path, /dir/.s.PGSQL.5432; pgx's host is
// the directory.
func hostPort(network, addr string) (string, uint16) {
	if network == "unix" {
		dir, file := path.Split(addr)
		if p, ok := strings.CutPrefix(file, ".s.PGSQL."); ok {
			if n, err := strconv.ParseUint(p, 10, 16); err == nil {
				return path.Clean(dir), uint16(n)
			}
		}
		return addr, 5432
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 5432
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return host, 5432
	}
	return host, uint16(p)
}

// timeoutConn bounds each read and write on a connection by pgdriver's
// read and write timeouts, on top of the deadlines pgx sets itself (when
// a context ends): the earlier one applies. Once a read has failed on the
// read timeout, every later read fails at once with the same error: the
// server's answer is lost midway, so the connection is broken (pgx
// closes it), and pgx would otherwise wait for a second timeout before
// giving up.
type timeoutConn struct {
	net.Conn
	read, write time.Duration // 0: no timeout

	mu     sync.Mutex
	rd, wd time.Time // the deadlines pgx set; zero: none
	// rt, wt are the timeouts' deadlines of the read and the write in
	// progress; zero: none in progress.
	rt, wt time.Time
	// expired is the error of the read that hit the read timeout.
	expired error
}

// earliest is the earlier of two deadlines, the zero time meaning none.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

func (c *timeoutConn) Read(b []byte) (int, error) {
	if c.read <= 0 {
		return c.Conn.Read(b)
	}
	c.mu.Lock()
	if err := c.expired; err != nil {
		c.mu.Unlock()
		return 0, err
	}
	c.rt = time.Now().Add(c.read)
	err := c.Conn.SetReadDeadline(earliest(c.rd, c.rt))
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && earliest(c.rd, c.rt).Equal(c.rt) {
		c.expired = err // the read timeout, not a deadline pgx set
	}
	c.rt = time.Time{}
	c.mu.Unlock()
	return n, err
}

func (c *timeoutConn) Write(b []byte) (int, error) {
	if c.write <= 0 {
		return c.Conn.Write(b)
	}
	c.mu.Lock()
	c.wt = time.Now().Add(c.write)
	err := c.Conn.SetWriteDeadline(earliest(c.wd, c.wt))
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.wt = time.Time{}
	c.mu.Unlock()
	return n, err
}

func (c *timeoutConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd, c.wd = t, t
	return errors.Join(c.Conn.SetReadDeadline(earliest(t, c.rt)), c.Conn.SetWriteDeadline(earliest(t, c.wt)))
}

func (c *timeoutConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd = t
	return c.Conn.SetReadDeadline(earliest(t, c.rt))
}

func (c *timeoutConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wd = t
	return c.Conn.SetWriteDeadline(earliest(t, c.wt))
}

// NetConn returns the wrapped connection, as [tls.Conn.NetConn] does.
func (c *timeoutConn) NetConn() net.Conn { return c.Conn }

// shouldPing decides, before a pooled connection is reused, whether pgx's
// driver pings the server first (a failed ping discards the connection
// and database/sql takes another, so that no call fails on it): when the
// connection has been idle for over a second (pgx's default), or when the
// server has closed its end or sent something unasked, typically the
// error it sends before closing (a restart, an administrator's
// pg_terminate_backend). The latter is found without a round trip, by
// peeking at the socket ([closedByServer]), so that a connection left
// stale by a restart is never used even within that second.
func shouldPing(_ context.Context, p stdlib.ShouldPingParams) bool {
	return p.IdleDuration > time.Second || closedByServer(p.Conn.PgConn().Conn())
}

// closedByServer reports whether c's socket has something to read while
// the connection is idle: end of file, data or an error. It returns false
// when it cannot tell (a platform without a non-blocking peek, a
// connection without a socket).
func closedByServer(c net.Conn) bool {
	for {
		w, ok := c.(interface{ NetConn() net.Conn }) // *tls.Conn, timeoutConn
		if !ok {
			break
		}
		c = w.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	return socketReadable(rc)
}
