package sqlstore

import (
	"regexp"
	"slices"
	"strings"
)

// MariaDB's column types. InnoDB limits an index key to 3,072 bytes and
// a row's VARBINARY and VARCHAR columns to 65,535 bytes together, so the
// shared schema's one text type becomes two:
//
//   - mysqlKey for the strings that are indexed, compared or joined: ids,
//     names, tags, link targets (each at most 1,024 bytes:
//     [ports.ValidateID]). VARBINARY compares bytewise, as Go does, with
//     no padding; a VARCHAR of 1,024 utf8mb4 characters would need 4,096
//     bytes of key.
//   - mysqlText for the other strings, of any length: utf8mb4, whose
//     utf8mb4_nopad_bin collation also compares bytewise (code point
//     order) and ties no two different strings, unlike utf8mb4_bin (pad
//     space: "a" = "a ") and the case- and accent-insensitive default.
//     substr and char_length count its characters, as the other engines
//     do, so the prefix of a body or a file path is cut at a rune.
const (
	mysqlKey  = "VARBINARY(1024)"
	mysqlText = "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
	// mysqlBlob holds a string of any length that is indexed by a
	// prefix of mysqlPrefix bytes: the lookup rechecks the whole value.
	mysqlBlob   = "LONGBLOB"
	mysqlPrefix = "255"
	// mysqlTable are the options of every table.
	mysqlTable = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin"
)

// mysqlTextColumns are the shared schema's text columns stored as
// mysqlText, by table: none is indexed. The others are mysqlKey, but for
// those of mysqlUnbounded.
var mysqlTextColumns = map[string][]string{
	"bounded_notes":               {"title", "tags", "title_fold", "content", "content_fold"},
	"bounded_note_nodes":          {"title", "id_fold"},
	"bounded_note_links":          {"link_text", "host"},
	"bounded_entities":            {"entity_type", "tags", "name_fold", "type_fold", "observations"},
	"bounded_entity_observations": {"fold"},
	"bounded_runs":                {"status", "body"},
	"bounded_chunks":              {"file_path", "language", "content", "context_before", "context_after"},
}

// mysqlFolded are the indexed columns holding the [ports.Fold] of an id's
// part, up to 1.5 times its bytes ("Ⱥ" folds to a rune of 3 bytes).
var mysqlFolded = map[string]bool{"bounded_note_nodes.name_fold": true}

// mysqlUnbounded are the indexed text columns with no length limit: a
// term is any word of a chunk. They are mysqlBlob, and their indexes
// (their table's primary key included, which becomes a plain index: the
// writes never repeat a row) take a prefix of them.
var mysqlUnbounded = map[string]bool{"bounded_chunk_terms.term": true}

var (
	mysqlCreateTable = regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS (\w+) \(`)
	mysqlCreateIndex = regexp.MustCompile(`^CREATE INDEX IF NOT EXISTS (\w+) ON (\w+) \(([^)]*)\)$`)
	mysqlColumn      = regexp.MustCompile(`^(\s*)(\w+) \{T\}`)
	mysqlPrimaryKey  = regexp.MustCompile(`^(\s*)PRIMARY KEY \(([^)]*)\)`)
)

// MySQLSchema returns the shared schema in MariaDB's types (see
// mysqlKey): the same tables, columns and indexes, but for the primary
// keys over an unbounded column, which are plain indexes on its prefix.
func MySQLSchema() []string {
	out := make([]string, len(schema))
	for i, stmt := range schema {
		out[i] = mysqlStatement(stmt)
	}
	return out
}

// mysqlStatement is one statement of the shared schema in MariaDB's types.
func mysqlStatement(stmt string) string {
	if m := mysqlCreateIndex.FindStringSubmatch(stmt); m != nil {
		return "CREATE INDEX IF NOT EXISTS " + m[1] + " ON " + m[2] + " (" + mysqlPrefixed(m[2], m[3]) + ")"
	}
	m := mysqlCreateTable.FindStringSubmatch(stmt)
	if m == nil {
		return stmt
	}
	table := m[1]
	lines := strings.Split(stmt, "\n")
	for i, l := range lines {
		if c := mysqlColumn.FindStringSubmatch(l); c != nil {
			typ := mysqlKey
			switch {
			case slices.Contains(mysqlTextColumns[table], c[2]):
				typ = mysqlText
			case mysqlUnbounded[table+"."+c[2]]:
				typ = mysqlBlob
			case mysqlFolded[table+"."+c[2]]:
				typ = "VARBINARY(1536)"
			}
			lines[i] = c[1] + c[2] + " " + typ + l[len(c[0]):]
			continue
		}
		if pk := mysqlPrimaryKey.FindStringSubmatch(l); pk != nil {
			if cols := mysqlPrefixed(table, pk[2]); cols != pk[2] {
				lines[i] = pk[1] + "KEY " + table + "_pk (" + cols + ")" + l[len(pk[0]):]
			}
		}
	}
	return strings.Join(lines, "\n") + mysqlTable
}

// mysqlPrefixed is the index column list cols of table, with a prefix
// length after each unbounded column.
func mysqlPrefixed(table, cols string) string {
	parts := strings.Split(cols, ", ")
	for i, p := range parts {
		if mysqlUnbounded[table+"."+strings.Fields(p)[0]] {
			parts[i] = strings.Replace(p, " ", "("+mysqlPrefix+") ", 1)
			if !strings.Contains(p, " ") {
				parts[i] = p + "(" + mysqlPrefix + ")"
			}
		}
	}
	return strings.Join(parts, ", ")
}
