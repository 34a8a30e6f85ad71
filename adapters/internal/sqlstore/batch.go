package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// The batched hierarchy reads answer for a whole page of nodes in one
// statement each. roots are the ids asked that name a node; each list is
// ranked per root by a window function (ROW_NUMBER for the order of the
// paged method, COUNT for the total) and cut at the cap in SQL, so that a
// note with 10,000 children costs perNote rows, not 10,000. The statement
// reads at least one row per root (the rank-1 row, or NULLs when the list
// is empty), so totals come back even for perNote 0.

// batchRoots selects the ids asked that name a node.
const batchRoots = "roots(id) AS (SELECT id FROM bounded_note_nodes WHERE id IN (?))"

// batchSelect reads the ranked lists k of the roots, cut at rank ?.
const batchSelect = "SELECT roots.id, k.total, k.id, k.title, k.tags, k.updated_at, k.is_note, k.depth FROM roots" +
	" LEFT JOIN ranked k ON k.root = roots.id AND k.rn <= ? ORDER BY roots.id, k.rn"

// ParentsOf returns the first perNote parents of each node of ids, with
// their totals, in one statement. See [ports.Notes].
func (s *Store) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	q := "WITH " + batchRoots + `,
	ranked AS (
		SELECT r.note_id AS root, t.id AS id, t.title AS title, n.tags AS tags, n.updated_at AS updated_at, t.is_note AS is_note, 0 AS depth,
			ROW_NUMBER() OVER (PARTITION BY r.note_id ORDER BY t.title, t.id) AS rn,
			COUNT(*) OVER (PARTITION BY r.note_id) AS total
		FROM bounded_note_parents r ` + s.nodeJoin("r.parent_id") + `
		WHERE r.note_id IN (?)
	)
	` + batchSelect
	list := bun.List(ports.Distinct(ids))
	return batchQuery(ctx, s, ids, perNote, q, []any{list, list, max(perNote, 1)},
		func(ref ports.NoteRef, _ int) ports.NoteRef { return ref })
}

// DescendantsOf returns the first perNote descendants of each node of ids
// down to maxDepth levels, with their totals, in one statement. See
// [ports.Notes].
//
// The walk is unrolled, one CTE per level (maxDepth is at most
// [ports.MaxDescendantDepth]): level k holds the distinct (root, note)
// pairs one edge below level k-1, and the shortest depth of a node below
// a root is the lowest level holding it. A recursive CTE would say the
// same, but Postgres estimates every recursion at ten iterations: for the
// one or two levels a page's context reads, that estimate alone crossed
// jit_above_cost, and compiling the statement cost 80 to 800 ms a call.
// Unlike [Store.Descendants]' walk, which expands each node once, a node
// reached at several depths is expanded at each: the work is at most the
// edges below the roots times maxDepth.
func (s *Store) DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (ports.Batch[ports.Descendant], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	maxDepth, err := ports.DescendantDepth(maxDepth)
	if err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	var b strings.Builder
	b.WriteString("WITH " + batchRoots + ",\n\tlvl1(root, id) AS (SELECT r.id, p.note_id FROM roots r " + s.childJoin("r") + ")")
	walk := "SELECT root, id, 1 AS depth FROM lvl1"
	for k := 2; k <= maxDepth; k++ {
		fmt.Fprintf(&b, ",\n\tlvl%d(root, id) AS (SELECT DISTINCT l.root, p.note_id FROM lvl%d l %s)", k, k-1, s.childJoin("l"))
		walk += fmt.Sprintf(" UNION ALL SELECT root, id, %d FROM lvl%d", k, k)
	}
	b.WriteString(`,
	walk(root, id, depth) AS (` + walk + `),
	best AS (SELECT root, id, MIN(depth) AS depth FROM walk WHERE id <> root GROUP BY root, id),
	ranked AS (
		SELECT b.root AS root, t.id AS id, t.title AS title, n.tags AS tags, n.updated_at AS updated_at, t.is_note AS is_note, b.depth AS depth,
			ROW_NUMBER() OVER (PARTITION BY b.root ORDER BY b.depth, t.title, t.id) AS rn,
			COUNT(*) OVER (PARTITION BY b.root) AS total
		FROM best b ` + s.nodeJoin("b.id") + `
	)
	` + batchSelect)
	return batchQuery(ctx, s, ids, perNote, b.String(), []any{bun.List(ports.Distinct(ids)), max(perNote, 1)},
		func(ref ports.NoteRef, depth int) ports.Descendant {
			return ports.Descendant{NoteRef: ref, Depth: depth}
		})
}

// childJoin joins the parent edges p whose parent is the id column of
// alias: with [Dialect.LateralJoin] a lateral subquery (OFFSET 0 keeps
// Postgres from flattening it), which Postgres runs as index lookups
// whatever its estimate of the level's rows (with a plain join and no
// statistics, it hashed the whole edge table).
func (s *Store) childJoin(alias string) string {
	if s.d.LateralJoin {
		return "CROSS JOIN LATERAL (SELECT note_id FROM bounded_note_parents WHERE parent_id = " + alias + ".id OFFSET 0) AS p"
	}
	return "JOIN bounded_note_parents p ON p.parent_id = " + alias + ".id"
}

// nodeJoin joins the node t whose id is the column col, and its note n
// (NULLs for a folder): as [Store.keyJoin] does, lateral primary-key
// lookups with [Dialect.LateralJoin].
func (s *Store) nodeJoin(col string) string {
	if s.d.LateralJoin {
		return "CROSS JOIN LATERAL (SELECT id, title, is_note FROM bounded_note_nodes WHERE id = " + col + " LIMIT 1) AS t" +
			" LEFT JOIN LATERAL (SELECT tags, updated_at FROM bounded_notes WHERE id = " + col + " LIMIT 1) AS n ON true"
	}
	return "JOIN bounded_note_nodes t ON t.id = " + col + " LEFT JOIN bounded_notes n ON n.id = " + col
}

// batchQuery runs q, whose rows are those of batchSelect in order, and
// builds the batch of ids: each root's first perNote items, made by item
// from a row's note and depth, and its total.
func batchQuery[T any](ctx context.Context, s *Store, ids []string, perNote int, q string, args []any,
	item func(ref ports.NoteRef, depth int) T) (ports.Batch[T], error) {
	lists := make(map[string]*ports.NoteList[T])
	err := s.query(ctx, q, args, func(rows *sql.Rows) error {
		var root string
		var total, isNote, depth int64
		var r noteRow
		if err := rows.Scan(&root, nint{&total}, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated}, nint{&isNote}, nint{&depth}); err != nil {
			return err
		}
		r.folder = isNote == 0
		l := lists[root]
		if l == nil {
			l = &ports.NoteList[T]{ID: root, Total: int(total)}
			lists[root] = l
		}
		if r.id == "" || len(l.Items) >= perNote {
			return nil
		}
		ref, err := r.ref()
		if err != nil {
			return err
		}
		l.Items = append(l.Items, item(ref, int(depth)))
		return nil
	})
	if err != nil {
		return ports.Batch[T]{}, err
	}
	var b ports.Batch[T]
	for _, id := range ports.Distinct(ids) {
		if l := lists[id]; l != nil {
			b.Lists = append(b.Lists, *l)
		} else {
			b.Missing = append(b.Missing, id)
		}
	}
	return b, nil
}

// NoteHeads returns the first maxLines lines of each note of ids, as
// GetNotes does with that window, in one statement. The content is read
// whole and windowed in Go. See [ports.Notes].
func (s *Store) NoteHeads(ctx context.Context, ids []string, maxLines int) (ports.GetNotesResult, error) {
	if err := ports.ValidateNoteHeads(ids, maxLines); err != nil {
		return ports.GetNotesResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.GetNotesResult{}, err
	}
	return s.notesWindowed(ctx, ids, bounded.Window{MaxLines: maxLines})
}

// notesWindowed returns the notes named by ids, in the order of ids
// (duplicates once), each with the window w, and the ids naming none, in
// one statement; the content is read whole and windowed in Go.
func (s *Store) notesWindowed(ctx context.Context, ids []string, w bounded.Window) (ports.GetNotesResult, error) {
	ids = ports.Distinct(ids)
	found := make(map[string]noteRow, len(ids))
	err := s.query(ctx,
		"SELECT id, title, tags, created_at, updated_at, content FROM bounded_notes WHERE id IN (?)",
		[]any{bun.List(ids)}, func(rows *sql.Rows) error {
			var r noteRow
			if err := rows.Scan(&r.id, &r.title, &r.tags, &r.created, &r.updated, &r.content); err != nil {
				return err
			}
			found[r.id] = r
			return nil
		})
	if err != nil {
		return ports.GetNotesResult{}, err
	}
	var res ports.GetNotesResult
	for _, id := range ids {
		r, ok := found[id]
		if !ok {
			res.Missing = append(res.Missing, id)
			continue
		}
		nc, err := r.windowed(w)
		if err != nil {
			return ports.GetNotesResult{}, err
		}
		res.Notes = append(res.Notes, nc)
	}
	return res, nil
}
