// Package mysql stores every port of package ports (notes, knowledge
// graph, response history, code search) in MariaDB through bun, paging
// inside the database: each page is one statement computing the total
// and ORDER BY ... LIMIT ... OFFSET ..., or a keyset after a cursor, over
// indexes that match the order. It returns the same items, totals and
// page info as memrepo and the SQLite and Postgres adapters.
//
//	store, db, err := mysql.Open(ctx, "root@tcp(127.0.0.1:3306)/test")
//	if err != nil { ... }
//	defer db.Close()
//	_ = store.PutNote(ctx, ports.Note{ID: "projects/alpha", Title: "Alpha"})
//	page, err := store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 20})
//
// It needs MariaDB 10.8 or later (tested on 10.11): descending indexes
// serve the newest-first orders, and the schema is created with CREATE
// INDEX IF NOT EXISTS. MySQL 8 has neither that statement nor the
// collation below, and is not supported.
//
// Strings compare bytewise, as Go compares them, whatever the server's or
// the database's default collation: the indexed ones (ids, names, tags,
// link targets, at most 1,024 bytes) are VARBINARY(1024), which also fits
// InnoDB's 3,072-byte index keys where a utf8mb4 VARCHAR(1024) would not;
// the others are LONGTEXT with utf8mb4_nopad_bin, in which substr and
// char_length count characters. The default utf8mb4_general_ci would tie
// "apple" with "Apple" and one emoji with another, and utf8mb4_bin's pad
// space "a" with "a ", and ties reorder pages between engines.
//
// The server settings the store relies on, which [New] checks:
//
//   - max_sort_length at least 65,536 (the default is 1,024). MariaDB
//     sorts strings by their first max_sort_length bytes only, and titles
//     (Children, Parents, Descendants order by title) have no length
//     limit; [Open] sets it for its connections. Titles agreeing on their
//     first 65,536 bytes sort as equal, then by ID, where the other
//     engines and the cursors compare them whole: only there may a walk
//     by cursor differ from memrepo's. (Above 262,144, sorts fail in the
//     default 2 MB sort_buffer_size.)
//   - sql_mode without NO_BACKSLASH_ESCAPES: bun escapes a backslash in a
//     string with another.
//
// [New] takes any bun.IDB with the MySQL dialect. MariaDB commits the open
// transaction at any DDL, so on a bun.Tx New creates nothing: the schema
// must exist (create it with a store on the database first), and New
// fails if it does not. The schema is created with CREATE TABLE/INDEX IF
// NOT EXISTS: idempotent, run on every start; tables are prefixed
// "bounded_". Times are stored as BIGINT unix microseconds, so the DSN
// needs no parseTime.
//
// Fuzzy search computes [ports.Similarity] exactly from a side table of
// the entity names' trigrams, as the other adapters do. SearchNotes reads
// every note: MariaDB's FULLTEXT indexes find words, not the substrings
// the port matches, and it has no trigram index.
package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// MinSortLength is the least max_sort_length [New] accepts, and the one
// [Open] sets: the bytes of a title that count in its order.
const MinSortLength = 65536

// Dialect is the MariaDB dialect of the shared store: VARBINARY keys and
// utf8mb4_nopad_bin text (bytewise order), INSERT ... ON DUPLICATE KEY
// UPDATE, no LATERAL, keysets in the expanded form MariaDB's range
// optimizer serves, each page's index named, and fuzzy search over a
// trigram side table.
var Dialect = sqlstore.Dialect{
	Name:           "mysql",
	CurrentSchema:  "DATABASE()",
	Text:           "VARBINARY(1024)",
	Instr:          "instr",
	Fuzzy:          sqlstore.FuzzyTrigramTable,
	NoteIndex:      sqlstore.NoteIndexNone,
	Schema:         sqlstore.MySQLSchema(),
	OnDuplicateKey: true,
	ConstLimit:     true,
	Double:         "DOUBLE",
	CharLength:     "char_length",
	ExpandKeyset:   true,
	CaseNulls:      true,
	ForceIndex:     true,
	Snapshot:       sql.LevelRepeatableRead,
}

// Store implements [ports.Notes], [ports.Knowledge], [ports.History] and
// [ports.Code] on MariaDB. Each method's contract (order, limits, errors)
// is documented on the port interface.
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

// ExistingSchema makes New use the schema it finds, creating nothing, and
// fail if it is missing: for a store on a read replica, or a user without
// DDL rights. On a replica, write methods fail with the server's error.
func ExistingSchema() Option {
	return func(d *sqlstore.Dialect) { d.ExistingSchema = true }
}

// New creates the schema on db if it is missing and returns a store using
// db. db is a *bun.DB, bun.Conn or bun.Tx with the MySQL dialect (bun's
// mysqldialect) on MariaDB; on a bun.Tx every call runs inside that
// transaction (writes in savepoints) and the schema must exist (see the
// package documentation). New fails if the session's max_sort_length is
// below [MinSortLength] or its sql_mode has NO_BACKSLASH_ESCAPES.
func New(ctx context.Context, db bun.IDB, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("mysql: nil database")
	}
	if name := db.Dialect().Name(); name != dialect.MySQL {
		return nil, fmt.Errorf("mysql: database has the %s dialect", name)
	}
	d := Dialect
	for _, o := range opts {
		o(&d)
	}
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		d.ExistingSchema = true // DDL would commit the caller's transaction
	}
	if err := checkSession(ctx, db); err != nil {
		return nil, err
	}
	s, err := sqlstore.New(ctx, db, d)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
}

// checkSession checks the settings of db's session that the store relies
// on (see the package documentation).
func checkSession(ctx context.Context, db bun.IDB) error {
	var sortLength int64
	var mode string
	if err := db.QueryRowContext(ctx, "SELECT @@SESSION.max_sort_length, @@SESSION.sql_mode").Scan(&sortLength, &mode); err != nil {
		return sqlstore.ContextErr(ctx, fmt.Errorf("mysql: read the session's settings: %w", err))
	}
	if sortLength < MinSortLength {
		return fmt.Errorf("mysql: max_sort_length is %d, want at least %d, or long titles would sort by their first %d bytes only"+
			" (set it in the DSN, max_sort_length=%d, or on the server)", sortLength, MinSortLength, sortLength, MinSortLength)
	}
	if strings.Contains(mode, "NO_BACKSLASH_ESCAPES") {
		return fmt.Errorf("mysql: sql_mode has NO_BACKSLASH_ESCAPES, but bun escapes backslashes in strings")
	}
	return nil
}

// Open connects to the database at dsn (go-sql-driver/mysql's format,
// e.g. user:password@tcp(127.0.0.1:3306)/name), with max_sort_length set
// to [MinSortLength] for each connection unless dsn sets it higher, and
// returns a store on it with the bun.DB to close when done. It pings the
// server and creates the schema ([New]); on an error it closes what it
// opened.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, *bun.DB, error) {
	db, err := OpenDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, sqlstore.ContextErr(ctx, fmt.Errorf("mysql: connect: %w", err))
	}
	s, err := New(ctx, db, opts...)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}

// OpenDB returns a bun.DB on dsn as [Open] sets it up, without connecting.
func OpenDB(dsn string) (*bun.DB, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if n, err := strconv.Atoi(cfg.Params["max_sort_length"]); err != nil || n < MinSortLength {
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["max_sort_length"] = strconv.Itoa(MinSortLength)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	return bun.NewDB(sql.OpenDB(conn), mysqldialect.New()), nil
}
