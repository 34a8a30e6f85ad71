// Package postgres stores every port of package ports (notes, knowledge
// graph, response history, code search) in PostgreSQL through bun, paging
// inside the database: each page is one statement computing the exact
// total and ORDER BY ... LIMIT ... OFFSET ... over indexes that match the
// order.
//
//	store, db, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
//	if err != nil { ... }
//	defer db.Close()
//	_ = store.PutNote(ctx, ports.Note{ID: "projects/alpha", Title: "Alpha"})
//	page, err := store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 20})
//
// [New] takes any bun.IDB with the Postgres dialect, including a bun.Tx, so
// the store can work inside the caller's transaction. The schema is
// created by New with CREATE TABLE/INDEX IF NOT EXISTS in the first schema
// of the search_path: idempotent, run on every start (there is no
// migration framework yet; tables are prefixed "bounded_").
//
// Text columns use COLLATE "C", so that every order is bytewise as in Go
// and SQLite.
//
// Fuzzy search computes [ports.Similarity] (pg_trgm's definition) exactly,
// from a side table of the entity names' trigrams filled in Go, as the
// SQLite adapter does. pg_trgm itself is available with the [PgTrgm]
// option, but it is not identical to ports.Similarity: pg_trgm decides what
// is a word character with the server's locale (glibc's C.UTF-8 counts
// letter-numbers such as "Ⅻ" as letters, Go's unicode.IsLetter does not)
// and hashes trigrams of multibyte characters into three bytes, where two
// can collide.
package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Dialect is the Postgres dialect of the shared store: TEXT COLLATE "C"
// columns (bytewise order) and exact fuzzy search over a trigram side
// table.
var Dialect = sqlstore.Dialect{
	Name:          "postgres",
	CurrentSchema: "current_schema()",
	Text:          `TEXT COLLATE "C"`,
	Instr:         "strpos",
	LateralJoin:   true,
	Fuzzy:         sqlstore.FuzzyTrigramTable,
	NoteIndex:     sqlstore.NoteIndexTrigramGIN,
	Float8:        "(%s)::float8",
	Snapshot:      sql.LevelRepeatableRead,
}

// pgTrgmDialect is Dialect with fuzzy search by pg_trgm.
var pgTrgmDialect = func() sqlstore.Dialect {
	d := Dialect
	d.Fuzzy = sqlstore.FuzzyPgTrgm
	d.SchemaBefore = []string{"CREATE EXTENSION IF NOT EXISTS pg_trgm"}
	d.SchemaAfter = []string{
		"CREATE INDEX IF NOT EXISTS bounded_entities_name_trgm ON bounded_entities USING gin (name gin_trgm_ops)",
	}
	return d
}()

// Option changes how [New] sets a store up.
type Option func(*sqlstore.Dialect)

// PgTrgm makes fuzzy SearchNodes use pg_trgm natively: similarity() and
// the % operator over a GIN trigram index on entity names, with
// pg_trgm.similarity_threshold set for the query's transaction (and put
// back inside a caller's transaction). New then runs CREATE EXTENSION IF
// NOT EXISTS pg_trgm, which needs the privilege to create it unless it
// exists already, and its functions must be on the search_path.
//
// Scores equal [ports.Similarity] for names and queries whose letters and
// digits are ASCII; beyond that pg_trgm may differ (see the package
// documentation), so a store with this option is not guaranteed to match
// memrepo, and the conformance suite may fail on non-ASCII names.
func PgTrgm() Option {
	return func(d *sqlstore.Dialect) {
		cursors, existing := d.Cursors, d.ExistingSchema
		*d = pgTrgmDialect
		d.Cursors, d.ExistingSchema = cursors, existing
	}
}

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

// ExistingSchema makes New use the schema it finds, creating nothing, and
// fail if it is missing: for a store on a read replica (whose schema the
// primary's store created), or a role without DDL rights. On a replica,
// write methods fail with the server's read-only error. See SCALING.md for
// what replica lag does to a walk.
func ExistingSchema() Option {
	return func(d *sqlstore.Dialect) { d.ExistingSchema = true }
}

// Store implements [ports.Notes], [ports.Knowledge], [ports.History] and
// [ports.Code] on PostgreSQL. Each method's contract (order, limits,
// errors) is documented on the port interface.
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

// New creates the schema on db if it is missing and returns a store using
// db. db is a *bun.DB, bun.Conn or bun.Tx with the Postgres dialect; with a
// bun.Tx, the schema is created and every later call runs inside that
// transaction (writes in savepoints). With either driver, pgx's or bun's
// pgdriver, the error of a call whose context has ended wraps the
// context's error (context.Canceled or context.DeadlineExceeded).
func New(ctx context.Context, db bun.IDB, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("postgres: nil database")
	}
	if name := db.Dialect().Name().String(); name != "pg" {
		return nil, fmt.Errorf("postgres: database has the %s dialect", name)
	}
	d := Dialect
	for _, o := range opts {
		o(&d)
	}
	s, err := sqlstore.New(ctx, db, d)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
}

// Open connects to the database at dsn (a postgres:// URL, or unix:// for
// a Unix socket) and returns a store on it with the bun.DB to close when
// done. The driver is pgx's database/sql driver
// (github.com/jackc/pgx/v5/stdlib), set up as follows.
//
// dsn and opts are read by pgdriver's rules: the same DSN parameters
// (sslmode, sslrootcert, application_name, timeout, dial_timeout,
// read_timeout, write_timeout, ...), the same environment variables
// (PGHOST, PGPORT, PGUSER, PGDATABASE) and defaults (TLS unless
// sslmode=disable; read timeout 10 s, write timeout 5 s), and the same
// options, applied after the DSN. Any other DSN parameter is a run-time
// parameter of every connection, sent when it starts: search_path=myschema
// or search_path=myschema,public both work. Connections start with
// jit=off unless the DSN sets jit: a page's statement reads a page, and
// Postgres compiles any statement whose estimated cost crosses
// jit_above_cost, counting branches a page never runs (a pool made
// otherwise should set it too; see BENCHMARKS.md). The timeouts bound each read
// and write on a connection's socket (0: none); a call's context bounds
// the call as a whole. pgdriver.WithResetSessionFunc is not supported (an
// error), and the tracing and buffer-size options have no effect.
//
// A call whose context ends returns at once with an error wrapping the
// context's (context.Canceled or context.DeadlineExceeded); its
// connection is closed, and the server is sent a cancel request for the
// statement it was running, so that no abandoned statement runs on.
// Before a pooled connection is reused, a non-blocking peek at its socket
// finds a connection the server has closed (a restart, an administrator's
// pg_terminate_backend): it is then pinged and, failing, replaced, so
// that a restarted server costs no failed call. A connection idle for over
// a second is pinged too.
//
// Open pings the server (an error wraps the connection's error) and
// creates the schema ([New]); on an error it closes what it opened.
func Open(ctx context.Context, dsn string, opts ...pgdriver.Option) (*Store, *bun.DB, error) {
	db, err := OpenDB(dsn, opts...)
	if err != nil {
		return nil, nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, sqlstore.ContextErr(ctx, fmt.Errorf("postgres: connect: %w", err))
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}
