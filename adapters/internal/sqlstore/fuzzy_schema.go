package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// Each row of bounded_entity_trigrams holds pos, its trigram's place
// among its name's trigrams, the rarest first: by how many names of the
// name's trigram count held each when the name was written
// (bounded_trigram_counts), then bytewise. A name sharing s of its m
// trigrams with a query holds one of them at a place under m-s+1, so a
// long query of common trigrams finds its candidates among the first
// places of each name ([trigramPlaces] of them, indexed).
//
// Any order of a name's trigrams gives the same results: pos only makes
// fewer names candidates. A row written without it (pos 0) makes its
// name a candidate of every query sharing a trigram with it, which is
// still exact: what a search relies on is that a name has at most m-d
// rows at places d or later.

// trigramPlaces is how many places of each name the index on pos holds.
const trigramPlaces = 8

// trigramCounts counts the names holding each trigram, by trigram count.
const trigramCounts = `CREATE TABLE IF NOT EXISTS bounded_trigram_counts (
	trigram {T} NOT NULL,
	trigram_count BIGINT NOT NULL,
	names BIGINT NOT NULL,
	PRIMARY KEY (trigram, trigram_count)
)`

// createTrigramPlaces adds pos and its index to the trigram table, and
// the counts. A table made before pos gets its counts and places from
// the rows it holds, in one transaction.
func createTrigramPlaces(ctx context.Context, db bun.IDB, d Dialect) error {
	if d.Fuzzy != FuzzyTrigramTable {
		return nil
	}
	has, err := hasColumn(ctx, db, d, "bounded_entity_trigrams", "pos")
	if err != nil {
		return wrapSchema(d, err)
	}
	index := fmt.Sprintf("CREATE INDEX IF NOT EXISTS bounded_entity_trigrams_pos ON bounded_entity_trigrams (trigram, trigram_count, pos, name) WHERE pos < %d", trigramPlaces)
	if d.Schema != nil {
		// MariaDB indexes every row.
		index = index[:strings.Index(index, " WHERE")]
	}
	return wrapSchema(d, db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stmts := []string{strings.ReplaceAll(trigramCounts, "{T}", d.Text)}
		if !has {
			stmts = append(stmts, "ALTER TABLE bounded_entity_trigrams ADD COLUMN pos BIGINT NOT NULL DEFAULT 0")
		}
		stmts = append(stmts, index)
		if !has {
			stmts = append(stmts,
				"DELETE FROM bounded_trigram_counts",
				"INSERT INTO bounded_trigram_counts (trigram, trigram_count, names)"+
					" SELECT trigram, trigram_count, count(*) FROM bounded_entity_trigrams GROUP BY trigram, trigram_count",
				"CREATE TEMPORARY TABLE bounded_trigram_places AS SELECT t.trigram, t.trigram_count, t.name,"+
					" row_number() OVER (PARTITION BY t.name ORDER BY c.names, t.trigram) - 1 AS pos"+
					" FROM bounded_entity_trigrams t JOIN bounded_trigram_counts c ON c.trigram = t.trigram AND c.trigram_count = t.trigram_count",
				"DELETE FROM bounded_entity_trigrams",
				"INSERT INTO bounded_entity_trigrams (trigram, trigram_count, name, pos) SELECT trigram, trigram_count, name, pos FROM bounded_trigram_places",
				"DROP TABLE bounded_trigram_places",
			)
		}
		for _, stmt := range stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}))
}

// hasColumn reports whether table has column.
func hasColumn(ctx context.Context, db bun.IDB, d Dialect, table, column string) (bool, error) {
	var n int
	var err error
	if d.CurrentSchema == "" {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, column).Scan(&n)
	} else {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_schema = "+d.CurrentSchema+
			" AND table_name = ? AND column_name = ?", table, column).Scan(&n)
	}
	return n > 0, err
}

// putTrigrams writes the rows of a new name's trigrams (sorted and
// distinct), each with its place, and counts them; a name written before
// keeps its rows.
func (s *Store) putTrigrams(ctx context.Context, tx bun.IDB, name string, trigrams []string) error {
	m := len(trigrams)
	if m == 0 {
		return nil
	}
	var found int
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM bounded_entity_trigrams WHERE trigram = ? AND trigram_count = ? AND name = ?",
		trigrams[0], m, name).Scan(&found)
	if err != nil || found > 0 {
		return err
	}
	names := make(map[string]int64, m)
	rows, err := tx.QueryContext(ctx, "SELECT trigram, names FROM bounded_trigram_counts WHERE trigram IN (?) AND trigram_count = ?", bun.List(trigrams), m)
	if err := s.scanRows(ctx, rows, err, func(rows *sql.Rows) error {
		var t string
		var n int64
		if err := rows.Scan(nstr{&t}, &n); err != nil {
			return err
		}
		names[t] = n
		return nil
	}); err != nil {
		return err
	}
	order := slices.Clone(trigrams)
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(names[a], names[b]) })
	place := make([][]any, m)
	counts := make([][]any, m)
	for i, t := range order {
		place[i] = []any{t, m, name, i}
	}
	for i, t := range trigrams {
		counts[i] = []any{t, m, 1}
	}
	if err := insertRows(ctx, tx, "bounded_entity_trigrams", []string{"trigram", "trigram_count", "name", "pos"}, place,
		s.ignoreDuplicates("trigram", "trigram_count", "name")); err != nil {
		return err
	}
	// In trigram order, so that concurrent writers lock the counts in
	// the same order.
	add := "ON CONFLICT (trigram, trigram_count) DO UPDATE SET names = bounded_trigram_counts.names + 1"
	if s.d.OnDuplicateKey {
		add = "ON DUPLICATE KEY UPDATE names = names + 1"
	}
	return insertRows(ctx, tx, "bounded_trigram_counts", []string{"trigram", "trigram_count", "names"}, counts, add)
}
