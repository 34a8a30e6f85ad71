package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
)

// stmtCacheSize is the most statements a connection keeps prepared.
const stmtCacheSize = 64

// connector opens connections of the SQLite driver that keep the store's
// bound statements prepared ([sqlstore.Bound]): a statement whose text is
// the same on every call is prepared once per connection, not on every
// call. Every other statement goes to the driver's connection as it came.
type connector struct {
	d   driver.Driver
	dsn string
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	var inner driver.Conn
	var err error
	if dc, ok := c.d.(driver.DriverContext); ok {
		var ic driver.Connector
		if ic, err = dc.OpenConnector(c.dsn); err == nil {
			inner, err = ic.Connect(ctx)
		}
	} else {
		inner, err = c.d.Open(c.dsn)
	}
	if err != nil {
		return nil, err
	}
	return &conn{Conn: inner, stmts: make(map[string]*cached)}, nil
}

func (c connector) Driver() driver.Driver { return cachingDriver{c.d} }

// cachingDriver opens connections as connector does.
type cachingDriver struct{ d driver.Driver }

func (d cachingDriver) Open(dsn string) (driver.Conn, error) {
	return connector{d.d, dsn}.Connect(context.Background())
}

// cached is a prepared statement of a connection; busy while rows of it
// are open.
type cached struct {
	query string
	stmt  driver.Stmt
	busy  bool
	// evicted: close when the rows reading it are closed.
	evicted bool
	// used orders the statements for eviction, least recently used first.
	used uint64
}

// conn is a driver connection that keeps bound statements prepared. A
// database/sql connection is used by one goroutine at a time, so conn
// needs no lock.
type conn struct {
	driver.Conn
	stmts map[string]*cached
	clock uint64
}

// Unwrap returns the driver's own connection (for sql.Conn.Raw).
func (c *conn) Unwrap() driver.Conn { return c.Conn }

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if bound, ok := sqlstore.BoundOf(ctx, query); ok && len(args) == 0 {
		return c.queryBound(ctx, query, bound)
	}
	if q, ok := c.Conn.(driver.QueryerContext); ok {
		return q.QueryContext(ctx, query, args)
	}
	return nil, driver.ErrSkip
}

// queryBound runs query with args on its kept statement, preparing it if
// need be. A statement already reading (a query of the same text while
// its rows are open, as in a transaction) is not shared: the query runs
// on a statement of its own, closed with its rows.
func (c *conn) queryBound(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	e := c.stmts[query]
	if e == nil || e.busy {
		st, err := c.prepare(ctx, query)
		if err != nil {
			return nil, err
		}
		if e != nil {
			e = &cached{query: query, stmt: st, evicted: true}
		} else {
			e = &cached{query: query, stmt: st}
			c.keep(e)
		}
	}
	c.clock++
	e.used = c.clock
	sq, ok := e.stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("sqlite: the driver's statements take no context")
	}
	e.busy = true
	rows, err := sq.QueryContext(ctx, args)
	if err != nil {
		c.release(e)
		return nil, err
	}
	return &rowsOf{Rows: rows, release: func() { c.release(e) }}, nil
}

func (c *conn) prepare(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.Conn.Prepare(query)
}

// keep adds e to the kept statements, evicting the least recently used
// beyond stmtCacheSize.
func (c *conn) keep(e *cached) {
	if len(c.stmts) >= stmtCacheSize {
		var old *cached
		for _, o := range c.stmts {
			if old == nil || o.used < old.used {
				old = o
			}
		}
		delete(c.stmts, old.query)
		old.evicted = true
		if !old.busy {
			old.stmt.Close()
		}
	}
	c.stmts[e.query] = e
}

// release marks e free once its rows are closed, closing it if it is no
// longer kept.
func (c *conn) release(e *cached) {
	e.busy = false
	if e.evicted {
		e.stmt.Close()
	}
}

func (c *conn) Close() error {
	for q, e := range c.stmts {
		e.stmt.Close()
		delete(c.stmts, q)
	}
	return c.Conn.Close()
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if x, ok := c.Conn.(driver.ExecerContext); ok {
		return x.ExecContext(ctx, query, args)
	}
	return nil, driver.ErrSkip
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.prepare(ctx, query)
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	//lint:ignore SA1019 the driver has no BeginTx
	return c.Conn.Begin()
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// rowsOf are the rows of a kept statement, which release frees when they
// are closed.
type rowsOf struct {
	driver.Rows
	release func()
}

func (r *rowsOf) Close() error {
	err := r.Rows.Close()
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return err
}
