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
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Dialect is the Postgres dialect of the shared store: TEXT COLLATE "C"
// columns (bytewise order) and exact fuzzy search over a trigram side
// table.
var Dialect = sqlstore.Dialect{
	Name:        "postgres",
	Text:        `TEXT COLLATE "C"`,
	Instr:       "strpos",
	LateralJoin: true,
	Fuzzy:       sqlstore.FuzzyTrigramTable,
	Float8:      "(%s)::float8",
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
	return func(d *sqlstore.Dialect) { *d = pgTrgmDialect }
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
// transaction (writes in savepoints).
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

// Open connects to the database at dsn (a postgres:// URL; parameters
// other than the driver's are SET on every connection, each to one string
// value: search_path=myschema works, a list of schemas does not) with bun's pgdriver, and returns a store on it with the
// bun.DB to close when done. opts are applied after the DSN.
func Open(ctx context.Context, dsn string, opts ...pgdriver.Option) (*Store, *bun.DB, error) {
	sqldb := sql.OpenDB(pgdriver.NewConnector(append([]pgdriver.Option{pgdriver.WithDSN(dsn)}, opts...)...))
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}
