package sqlstore

import "github.com/boundedkit/bounded/driver"

// Fuzzy names how an engine computes the trigram similarity of
// [ports.Similarity] for fuzzy SearchNodes.
type Fuzzy uint8

const (
	// FuzzyTrigramTable keeps a side table bounded_entity_trigrams
	// (trigram, name), filled in Go with [ports.Trigrams] when an entity
	// is written, and the trigram count on the entity row; similarity is
	// shared / (n_entity + n_query - shared), counted in SQL with a GROUP
	// BY over the query's trigrams and rounded to float32 in SQL. Exact on
	// every engine, and the default of both: SQLite has no pg_trgm, and
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
	// its planner may prefer hashing a whole table (at 10,000 notes, a
	// sequential scan of all of them for a page of 100: 2.3 ms instead of
	// 0.5). SQLite has no LATERAL and always joins by lookups.
	LateralJoin bool
	// Fuzzy is the fuzzy-search strategy.
	Fuzzy Fuzzy
	// NoteIndex is the index SearchNotes finds its candidates by.
	NoteIndex NoteIndex
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
	// Float8 wraps a SQL expression of type real (float4) so that it is
	// scanned as an exact float64; "" leaves it as it is. Postgres:
	// "(%s)::float8", because a float4 printed as text and parsed as a
	// float64 may round differently.
	Float8 string
}
