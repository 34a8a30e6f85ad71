// Package sqlite stores every port of package ports (notes, knowledge
// graph, response history, code search) in SQLite through bun, paging
// inside the database: each page is one statement computing the exact
// total and ORDER BY ... LIMIT ... OFFSET ... over indexes that match the
// order.
//
//	store, db, err := sqlite.Open(ctx, "vault.db")
//	if err != nil { ... }
//	defer db.Close()
//	_ = store.PutNote(ctx, ports.Note{ID: "projects/alpha", Title: "Alpha"})
//	page, err := store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 20})
//
// [New] takes any bun.IDB with the SQLite dialect, including a bun.Tx, so
// the store can work inside the caller's transaction. The schema is
// created by New with CREATE TABLE/INDEX IF NOT EXISTS: idempotent, run on
// every start (there is no migration framework yet; tables are prefixed
// "bounded_").
//
// Fuzzy search computes pg_trgm's similarity exactly from a side table of
// the entity names' trigrams, filled in Go with [ports.Trigrams]; it needs
// no extension or scalar function, so it works with every SQLite driver
// (the tests pass on modernc.org/sqlite and, built with -tags cgosqlite, on
// mattn/go-sqlite3). An FTS5 trigram index would not do: it indexes the
// raw text's trigrams, not pg_trgm's padded ones ("  a", " ab"), so it
// cannot find the words of one or two letters that pg_trgm matches.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Dialect is the SQLite dialect of the shared store: TEXT columns (BINARY
// collation: bytewise) and fuzzy search over a trigram side table.
var Dialect = sqlstore.Dialect{
	Name:      "sqlite",
	Text:      "TEXT",
	Instr:     "instr",
	Fuzzy:     sqlstore.FuzzyTrigramTable,
	NoteIndex: sqlstore.NoteIndexFTS5,
	CrossJoin: true,
	Busy:      busy,
}

// busy reports SQLITE_BUSY (or an extended code of it): another
// connection held the database's lock past the connection's busy timeout.
// modernc.org/sqlite's errors carry the code; other drivers' are known by
// SQLite's message.
func busy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code()&0xff == sqliteBusy
	}
	return strings.Contains(err.Error(), "database is locked")
}

// sqliteBusy is SQLite's result code SQLITE_BUSY.
const sqliteBusy = 5

// Store implements [ports.Notes], [ports.Knowledge], [ports.History] and
// [ports.Code] on SQLite. Each method's contract (order, limits, errors) is
// documented on the port interface.
type Store struct {
	*sqlstore.Store
}

// Every port is implemented by *Store.
var (
	_ ports.Notes     = (*Store)(nil)
	_ ports.Knowledge = (*Store)(nil)
	_ ports.History   = (*Store)(nil)
	_ ports.Code      = (*Store)(nil)
)

// Option changes how [New] and [Open] set a store up.
type Option func(*sqlstore.Dialect)

// CursorKey signs the store's cursors with HMAC-SHA256 under key (see
// [driver.Codec]): a cursor the store did not issue is then
// [driver.ErrCursorTampered]. Every store that must accept the same
// cursors needs the same key. Without it cursors carry a checksum, which
// catches corruption and cursors of other queries but not forgery.
func CursorKey(key []byte) Option {
	return func(d *sqlstore.Dialect) { d.Cursors.Key = append([]byte(nil), key...) }
}

// Cursors sets the store's whole cursor codec: its signing key, the
// previous keys whose cursors it still accepts while keys rotate, and an
// expiry (see [driver.Codec]). It replaces what CursorKey set.
func Cursors(c driver.Codec) Option {
	c = c.Clone()
	return func(d *sqlstore.Dialect) { d.Cursors = c }
}

// New creates the schema on db if it is missing and returns a store using
// db. db is a *bun.DB, bun.Conn or bun.Tx with the SQLite dialect; with a
// bun.Tx, the schema is created and every later call runs inside that
// transaction (writes in savepoints).
func New(ctx context.Context, db bun.IDB, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("sqlite: nil database")
	}
	if name := db.Dialect().Name().String(); name != "sqlite" {
		return nil, fmt.Errorf("sqlite: database has the %s dialect", name)
	}
	d := Dialect
	for _, o := range opts {
		o(&d)
	}
	if b, ok := db.(*bun.DB); ok {
		_, d.BindArgs = b.DB.Driver().(cachingDriver)
	}
	s, err := sqlstore.New(ctx, db, d)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
}

// Open opens (creating it if needed) the SQLite database file at path with
// the driver bun's sqliteshim selects (pure-Go modernc.org/sqlite on the
// common platforms, mattn/go-sqlite3 with cgo elsewhere), in WAL mode with
// busy_timeout 5000 ms and foreign keys on, and returns a store on it with
// the bun.DB to close when done.
//
// The pool holds one connection: SQLite allows one writer at a time, and
// one connection makes every write of this process wait its turn instead
// of failing with SQLITE_BUSY. Transactions take the write lock when they
// begin (BEGIN IMMEDIATE), so that other processes' writes wait too: a
// transaction that read first could not wait to upgrade its lock. A
// write that finds the lock held past busy_timeout is tried again, for as
// long as its context lasts: it fails only with the context's error. For
// many concurrent readers, Open the file again, raise that second pool
// (db.SetMaxOpenConns) and read through its store; keep writes on the
// first.
//
// Each connection keeps the statements the store writes by hand (a note's
// context, for one) prepared, up to 64, the least recently used closed
// first: their text is the same on every call, their arguments bound. A
// store that [New] makes on a database opened otherwise formats the
// arguments into the text, and SQLite prepares each statement on each
// call. sql.Conn.Raw gives a connection whose Unwrap method returns the
// driver's own.
func Open(ctx context.Context, path string, opts ...Option) (*Store, *bun.DB, error) {
	sqldb := sql.OpenDB(connector{d: sqliteshim.Driver(), dsn: dsn(path)})
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, sqlstore.ContextErr(ctx, fmt.Errorf("sqlite: open %s: %w", path, err))
	}
	s, err := New(ctx, db, opts...)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}

// dsn is the data source name of the database file at path, with the
// pragmas of Open spelled for the driver sqliteshim selected.
func dsn(path string) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	if !strings.HasPrefix(path, "file:") {
		path = "file:" + (&url.URL{Path: path}).EscapedPath()
	}
	if sqliteshim.DriverName() == "sqlite3" { // mattn/go-sqlite3
		return path + sep + "_journal_mode=WAL&_busy_timeout=5000&_foreign_keys=1&_txlock=immediate"
	}
	return path + sep + "_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate"
}
