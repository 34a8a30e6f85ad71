package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// walkBatch is the most parent IDs one statement of the Descendants walk
// expands; a larger level takes several statements.
const walkBatch = 1000

// Descendants pages the nodes below id down to maxDepth levels, each at
// its shortest depth, ordered by depth, title, then ID. See [ports.Notes].
//
// The walk is breadth-first, as memrepo's: one statement per level reads
// the distinct children of the nodes first reached at the level above, and
// the nodes not seen yet form the next level, so every node is expanded
// once and the work is linear in the edges below id (a recursive CTE keeps
// every (node, depth) pair and expands each node at every depth it is
// reached at: nodes² × depth on a dense hierarchy). Only IDs cross to Go.
// The page is then read by one paged statement over the nodes reached,
// which orders and cuts it in the database (keyset or LIMIT/OFFSET) and
// counts the total. The walk and the page read one snapshot: they run in
// one read-only transaction (REPEATABLE READ on Postgres; a savepoint in
// the caller's transaction when the store runs in one). The walk takes one
// statement per level (per walkBatch notes of the level above), at most
// maxDepth, fewer when the levels run out.
// A node's children are the nodes with an edge to it (see tree.go).
func (s *Store) Descendants(ctx context.Context, id string, maxDepth int, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
	scope := ports.Scope("Descendants", id, strconv.Itoa(maxDepth))
	return fetch(ctx, s, p, ports.DescendantsLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.Descendant], error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return driver.Rows[ports.Descendant]{}, err
		}
		maxDepth, err := ports.DescendantDepth(maxDepth)
		if err != nil {
			return driver.Rows[ports.Descendant]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.Descendant]{}, err
		}
		var opts *sql.TxOptions
		if s.db.Dialect().Name() == dialect.PG {
			opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
		}
		var page driver.Rows[ports.Descendant]
		var found bool
		var inner error // an error of a statement, already wrapped
		err = s.untilFree(ctx, func() error {
			inner = nil
			return s.db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
				ts := &Store{db: tx, d: s.d}
				levels, err := ts.walk(ctx, id, maxDepth)
				if err != nil {
					inner = err
					return err
				}
				page, found, err = ts.descendantsPage(ctx, id, levels, req)
				inner = err
				return err
			})
		})
		switch {
		case inner != nil:
			return driver.Rows[ports.Descendant]{}, inner
		case err != nil: // beginning or ending the transaction
			return driver.Rows[ports.Descendant]{}, s.wrapCtx(ctx, err)
		case !found:
			return driver.Rows[ports.Descendant]{}, notFound("note", id)
		}
		return page, nil
	})
}

// walk returns the IDs of the nodes below id, by depth: levels[0] holds
// the children, levels[1] the grandchildren not among them, and so on down
// to maxDepth levels, each node once, id never (a cycle may lead back to
// it). The order within a level is unspecified.
func (s *Store) walk(ctx context.Context, id string, maxDepth int) ([][]string, error) {
	seen := map[string]bool{id: true}
	var levels [][]string
	for frontier := []string{id}; len(frontier) > 0 && len(levels) < maxDepth; {
		var next []string
		for len(frontier) > 0 {
			batch := frontier[:min(len(frontier), walkBatch)]
			frontier = frontier[len(batch):]
			err := s.query(ctx, "SELECT DISTINCT note_id FROM bounded_note_parents WHERE parent_id IN (?)", []any{bun.List(batch)},
				func(rows *sql.Rows) error {
					var child string
					if err := rows.Scan(&child); err != nil {
						return err
					}
					if !seen[child] {
						seen[child] = true
						next = append(next, child)
					}
					return nil
				})
			if err != nil {
				return nil, err
			}
		}
		if len(next) > 0 {
			levels = append(levels, next)
		}
		frontier = next
	}
	return levels, nil
}

// descendantsPage reads the page of req over the nodes of levels (by
// depth, from 1), and whether node id exists, in one statement.
func (s *Store) descendantsPage(ctx context.Context, id string, levels [][]string, req driver.Request) (driver.Rows[ports.Descendant], bool, error) {
	// below (id, depth) lists the nodes reached, each with its depth; the
	// lookups in bounded_note_nodes turn each level's ID list into rows.
	var below []string
	var belowArgs []any
	for i, ids := range levels {
		below = append(below, "SELECT id AS id, ? AS depth FROM bounded_note_nodes WHERE id IN (?)")
		belowArgs = append(belowArgs, i+1, bun.List(ids))
	}
	if len(below) == 0 {
		below = []string{"SELECT id, 1 AS depth FROM bounded_note_nodes WHERE 1 = 0"}
	}
	q := paged{
		with:  []cte{{"below", s.db.NewRaw(strings.Join(below, " UNION ALL "), belowArgs...)}},
		count: s.from("below", ""),
		extra: []column{foundNode(id)},
		page: func(c clauses) *bun.SelectQuery {
			return c.apply(s.nodeFrom("below").ColumnExpr(nodeRefCols + ", below.depth AS depth"))
		},
		keys: []key{{inner: "below.depth", outer: "p.depth", num: true}, {inner: "t.title", outer: "p.title"}, {inner: "t.id", outer: "p.id"}},
	}
	page, ext, err := collect(ctx, s, q, req, ports.ByDepth, func(counts []any, rows *sql.Rows) (ports.Descendant, bool, error) {
		var depth int64
		ref, ok, err := nodeRefRow(counts, rows, nint{&depth})
		return ports.Descendant{NoteRef: ref, Depth: int(depth)}, ok, err
	})
	if err != nil {
		return driver.Rows[ports.Descendant]{}, false, err
	}
	return page, ext[0] != 0, nil
}
