package sqlstore

import (
	"database/sql"

	"github.com/boundedkit/bounded/driver"
)

// Fuzzy names how an engine computes the trigram similarity of
// [ports.Similarity] for fuzzy SearchNodes.
type Fuzzy uint8

const (
	// FuzzyTrigramTable keeps a side table bounded_entity_trigrams
	// (trigram, trigram_count, name), filled in Go with [ports.Trigrams]
	// when an entity is written; similarity is shared / (n_entity +
	// n_query - shared), read one trigram count at a time
	// ([Store.searchFuzzy]) or, for a long query, counted in SQL with a
	// GROUP BY over the query's trigrams and rounded to float32 in SQL.
	// Exact on every engine, and the default of all: SQLite has no pg_trgm, and
	// Postgres' pg_trgm classifies characters with the server's locale
	// and hashes multibyte trigrams, so it differs from ports.Similarity
	// beyond ASCII.
	FuzzyTrigramTable Fuzzy = iota
	// FuzzyPgTrgm uses Postgres' pg_trgm natively: similarity(name, q)
	// and the % operator, served by a GIN trigram index, with
	// pg_trgm.similarity_threshold set for the statement's transaction.
	// Equal to ports.Similarity for ASCII letters and digits only.
	FuzzyPgTrgm
)

// Dialect names each difference between the engines the shared store runs
// on. There are few: everything else is the same SQL on both.
type Dialect struct {
	// Name is the engine's name in error messages: "sqlite", "postgres".
	Name string
	// Text is the column type of every stored string. Strings must
	// compare bytewise (as Go does): SQLite's TEXT uses BINARY collation;
	// Postgres needs TEXT COLLATE "C", since the database's default
	// collation may not be bytewise.
	Text string
	// Instr is the function giving the 1-based position of a substring in
	// a string, 0 when it is absent: instr (SQLite), strpos (Postgres).
	// Substring matching uses it rather than LIKE: there are no
	// wildcards to escape, and no limit on the pattern's length (SQLite's
	// LIKE rejects patterns over 50,000 bytes; queries go up to
	// [ports.MaxQueryBytes]).
	Instr string
	// LateralJoin joins a page's rows to the page's keys (read first from
	// a covering index) with CROSS JOIN LATERAL, which Postgres runs as a
	// nested loop of primary-key lookups, one per key. With a plain join
	// its planner may prefer hashing a whole table, scanned sequentially
	// for a page of 100. SQLite has no LATERAL and always joins by
	// lookups.
	LateralJoin bool
	// CrossJoin says CROSS JOIN keeps the tables in the order written
	// (SQLite), so that a small set of candidates drives its lookups in a
	// larger table; other engines plan their joins' order themselves.
	CrossJoin bool
	// Fuzzy is the fuzzy-search strategy.
	Fuzzy Fuzzy
	// NoteIndex is the index SearchNotes finds its candidates by.
	NoteIndex NoteIndex
	// BroadNotes, under NoteIndexFTS5, is the most notes the index may
	// find for SearchNotes to read them through it: a broader query walks
	// the notes in order ([searchWalk]). 0 means maxIndexCandidates for a
	// page with the exact count, maxPagedIndexCandidates for the others.
	BroadNotes int
	// BroadFuzzy is the most rows of the trigram index the candidates of
	// a fuzzy SearchNodes may take at one trigram count; more are counted
	// by a GROUP BY over the count's rows. A query whose trigrams have at
	// most a tenth of it in all is counted by one GROUP BY. 0 means
	// maxLevelCandidates.
	BroadFuzzy int
	// Snapshot is the isolation level of a read-only transaction whose
	// statements all see one snapshot, for a read that takes more than
	// one (fuzzy SearchNodes): LevelRepeatableRead on Postgres and
	// MariaDB. LevelDefault (SQLite) reads in a deferred transaction on
	// one connection ([Store.snapshot]).
	Snapshot sql.IsolationLevel
	// BroadCode is the most chunks a query's terms may be found in (each
	// term's chunks counted) for SearchCode to read them all: a broader
	// query walks the chunks in the order of its results ([codeWalk]).
	// 0 means maxCodeCandidates.
	BroadCode int
	// CurrentSchema is the SQL function naming the schema that unqualified
	// tables are created in, for lookups in information_schema:
	// current_schema() (Postgres), DATABASE() (MariaDB). "" reads
	// SQLite's pragma_table_info instead.
	CurrentSchema string
	// SchemaBefore holds DDL run before the tables are created (Postgres:
	// CREATE EXTENSION IF NOT EXISTS pg_trgm).
	SchemaBefore []string
	// SchemaAfter holds engine-only DDL run after the shared tables
	// (Postgres: the GIN trigram index on entity names).
	SchemaAfter []string
	// ExistingSchema makes New use the schema as it finds it instead of
	// creating it: for a read replica, or a role without DDL rights. It is
	// not an engine difference: the adapters' options set it.
	ExistingSchema bool
	// Cursors encodes, signs and checks the store's cursors (see
	// [driver.Codec]; the zero Codec: unsigned, with a checksum). It is
	// not an engine difference: the adapters' options set it.
	Cursors driver.Codec
	// Busy reports an error of a lock that another connection held past
	// the driver's own wait (SQLite's SQLITE_BUSY, after busy_timeout):
	// the store then runs the transaction, or the schema's creation,
	// again, for as long as its context lasts ([Store.untilFree]). nil:
	// no error is retried.
	Busy func(err error) bool
	// BindArgs says the database's driver reads the arguments of a
	// statement from its context ([WithBound]) and keeps it prepared
	// (SQLite opened by its adapter's Open): the hand-written statements
	// then bind their arguments instead of having bun format them in.
	BindArgs bool
	// Float8 wraps a SQL expression of type real (float4) so that it is
	// scanned as an exact float64; "" leaves it as it is. Postgres:
	// "(%s)::float8", because a float4 printed as text and parsed as a
	// float64 may round differently.
	Float8 string

	// The fields below are MariaDB's differences; their zero values are
	// what SQLite and Postgres do.

	// Schema replaces the shared tables' DDL when set: the same tables,
	// columns and indexes with the engine's own types ([MySQLSchema]).
	Schema []string
	// OnDuplicateKey writes with INSERT ... ON DUPLICATE KEY UPDATE
	// instead of INSERT ... ON CONFLICT, which MariaDB lacks.
	OnDuplicateKey bool
	// Double is the type a CAST to a double names: "" is DOUBLE
	// PRECISION (SQLite, Postgres); MariaDB: DOUBLE.
	Double string
	// CharLength is the function giving a string's length in characters:
	// "" is length (SQLite, Postgres); MariaDB: char_length (its length
	// counts bytes).
	CharLength string
	// ExpandKeyset writes every keyset predicate in the expanded form,
	// a >= ? AND ((a > ?) OR (a = ? AND b > ?) ...), which MariaDB's range
	// optimizer turns into index ranges starting at the cursor, where it
	// would test a row value (a, b) > (?, ?) on every row of the index.
	ExpandKeyset bool
	// CaseNulls orders NULLs with CASE: MariaDB has no NULLS FIRST/LAST.
	CaseNulls bool
	// ForceIndex names the index of a page's order (FORCE INDEX) where
	// the page's keys are read from it: MariaDB 10.11 costs the range
	// entered at a cursor above a ref lookup of the equal prefix, which
	// reads the index from the prefix's start, through every row before
	// the cursor (ResponseHistory at depth 1,000: 1,021 index entries
	// read for a page of 11).
	ForceIndex bool
	// ConstLimit says LIMIT takes only constants: SearchCode reads every
	// match of a query found in many chunks rather than walking the
	// chunks in the order of its results, whose index (on a LONGTEXT
	// file_path) is not created.
	ConstLimit bool
}

// double is the type of a CAST to a double ([Dialect.Double]).
func (d Dialect) double() string {
	if d.Double == "" {
		return "DOUBLE PRECISION"
	}
	return d.Double
}

// charLength is the function of a string's length in characters
// ([Dialect.CharLength]).
func (d Dialect) charLength() string {
	if d.CharLength == "" {
		return "length"
	}
	return d.CharLength
}

// index is the hint naming the index a page's keys are read from
// ([Dialect.ForceIndex]), to follow the table's name or alias.
func (d Dialect) index(name string) string {
	if !d.ForceIndex {
		return ""
	}
	return " FORCE INDEX (" + name + ")"
}

// joinInOrder is the keyword of a join whose left side must drive it:
// CROSS JOIN where it keeps that order ([Dialect.CrossJoin]), JOIN
// elsewhere.
func (d Dialect) joinInOrder() string {
	if d.CrossJoin {
		return "CROSS JOIN"
	}
	return "JOIN"
}
