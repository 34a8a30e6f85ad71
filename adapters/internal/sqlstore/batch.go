package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
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

// batchSelect reads the ranked lists k of the roots, cut at rank ?, with
// their notes' tags and times.
func (s *Store) batchSelect() string {
	return "SELECT roots.id, k.total, k.id, k.title, n.tags, n.updated_at, k.is_note, k.depth FROM roots" +
		" LEFT JOIN ranked k ON k.root = roots.id AND k.rn <= ? " + s.noteJoin("k.id", "tags, updated_at") + " ORDER BY roots.id, k.rn"
}

// ParentsOf returns the first perNote parents of each node of ids, with
// their totals, in one statement. See [ports.Notes].
func (s *Store) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	q := "WITH " + batchRoots + ",\n\t" + s.parentsRanked("ranked", "(?)") + "\n\t" + s.batchSelect()
	list := bun.List(ports.Distinct(ids))
	return batchQuery(ctx, s, ids, perNote, q, []any{list, list, max(perNote, 1)},
		func(ref ports.NoteRef, _ int) ports.NoteRef { return ref })
}

// parentsRanked is the CTE name of the parents of the roots, ranked per
// root in ParentsOf's order, of the ids' list written for IN. It reads
// the nodes alone: the notes' rows are read after the cut
// ([Store.noteJoin]).
func (s *Store) parentsRanked(name, list string) string {
	return name + ` AS (
		SELECT r.note_id AS root, t.id AS id, t.title AS title, t.is_note AS is_note, 0 AS depth,
			ROW_NUMBER() OVER (PARTITION BY r.note_id ORDER BY t.title, t.id) AS rn,
			COUNT(*) OVER (PARTITION BY r.note_id) AS total
		FROM bounded_note_parents r ` + s.nodeJoin("r.parent_id") + `
		WHERE r.note_id IN ` + list + `
	)`
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
	q := "WITH " + batchRoots + ",\n\t" + s.descendantsRanked("ranked", maxDepth, true) + "\n\t" + s.batchSelect()
	return batchQuery(ctx, s, ids, perNote, q, []any{bun.List(ports.Distinct(ids)), max(perNote, 1)},
		func(ref ports.NoteRef, depth int) ports.Descendant {
			return ports.Descendant{NoteRef: ref, Depth: depth}
		})
}

// descendantsRanked is the CTEs of the descendants of the roots down to
// maxDepth levels, the last named name, ranked per root in
// DescendantsOf's order. They read the CTE roots and take no argument.
// They read the nodes alone, as parentsRanked does. With total, each row
// holds its root's total; without, the caller counts them.
//
// One level is the roots' children, ranked as their edges are read: no
// node is reached twice, so the walk's GROUP BY, a sort of every child,
// is left out.
func (s *Store) descendantsRanked(name string, maxDepth int, total bool) string {
	count := ""
	if total {
		count = ",\n\t\t\tCOUNT(*) OVER (PARTITION BY b.root) AS total"
	}
	if maxDepth == 1 {
		return name + ` AS (
		SELECT b.root AS root, t.id AS id, t.title AS title, t.is_note AS is_note, 1 AS depth,
			ROW_NUMBER() OVER (PARTITION BY b.root ORDER BY t.title, t.id) AS rn` + count + `
		FROM (SELECT r.id AS root, p.note_id AS id FROM roots r ` + s.childJoin("r") + ` WHERE p.note_id <> r.id) b ` + s.nodeJoin("b.id") + `
	)`
	}
	var b strings.Builder
	b.WriteString("lvl1(root, id) AS (SELECT r.id, p.note_id FROM roots r " + s.childJoin("r") + ")")
	walk := "SELECT root, id, 1 AS depth FROM lvl1"
	for k := 2; k <= maxDepth; k++ {
		fmt.Fprintf(&b, ",\n\tlvl%d(root, id) AS (SELECT DISTINCT l.root, p.note_id FROM lvl%d l %s)", k, k-1, s.childJoin("l"))
		walk += fmt.Sprintf(" UNION ALL SELECT root, id, %d FROM lvl%d", k, k)
	}
	if maxDepth == 2 {
		// A node two levels down is the root's own child when an edge
		// says so: the two levels' pairs, without those, are distinct,
		// and the walk's GROUP BY (a sort of every node) is left out.
		b.WriteString(`,
	best(root, id, depth) AS (SELECT root, id, 1 FROM lvl1 WHERE id <> root UNION ALL SELECT root, id, 2 FROM lvl2 l
		WHERE id <> root AND NOT EXISTS (SELECT 1 FROM bounded_note_parents x WHERE x.parent_id = l.root AND x.note_id = l.id))`)
	} else {
		b.WriteString(`,
	walk(root, id, depth) AS (` + walk + `),
	best AS (SELECT root, id, MIN(depth) AS depth FROM walk WHERE id <> root GROUP BY root, id)`)
	}
	b.WriteString(`,
	` + name + ` AS (
		SELECT b.root AS root, t.id AS id, t.title AS title, t.is_note AS is_note, b.depth AS depth,
			ROW_NUMBER() OVER (PARTITION BY b.root ORDER BY b.depth, t.title, t.id) AS rn` + count + `
		FROM best b ` + s.nodeJoin("b.id") + `
	)`)
	return b.String()
}

// childJoin joins the parent edges p whose parent is the id column of
// alias, always as index lookups driven by alias's rows. With
// [Dialect.LateralJoin] it is a lateral subquery (OFFSET 0 keeps Postgres
// from flattening it): with a plain join and no statistics, Postgres
// hashed the whole edge table. With [Dialect.CrossJoin] it keeps alias
// first: SQLite, knowing nothing of a CTE's rows, scanned every edge
// and looked each up in an automatic index of alias.
func (s *Store) childJoin(alias string) string {
	if s.d.LateralJoin {
		return "CROSS JOIN LATERAL (SELECT note_id FROM bounded_note_parents WHERE parent_id = " + alias + ".id OFFSET 0) AS p"
	}
	return s.d.joinInOrder() + " bounded_note_parents p ON p.parent_id = " + alias + ".id"
}

// nodeJoin joins the node t whose id is the column col: as
// [Store.keyJoin] does, a lateral primary-key lookup with
// [Dialect.LateralJoin].
func (s *Store) nodeJoin(col string) string {
	if s.d.LateralJoin {
		return "CROSS JOIN LATERAL (SELECT id, title, is_note FROM bounded_note_nodes WHERE id = " + col + " LIMIT 1) AS t"
	}
	return "JOIN bounded_note_nodes t ON t.id = " + col
}

// noteJoin joins the columns cols of the note n whose id is the column
// col (NULLs for a folder or a NULL col), as nodeJoin does. The ranked
// lists join it after their cut, so that a list reads the rows of the
// notes it returns, not those of every node it ranks.
func (s *Store) noteJoin(col, cols string) string {
	if s.d.LateralJoin {
		return "LEFT JOIN LATERAL (SELECT " + cols + " FROM bounded_notes WHERE id = " + col + " LIMIT 1) AS n ON true"
	}
	return "LEFT JOIN bounded_notes n ON n.id = " + col
}

// batchQuery runs q, whose rows are those of batchSelect in order, and
// builds the batch of ids: each root's first perNote items, made by item
// from a row's note and depth, and its total.
func batchQuery[T any](ctx context.Context, s *Store, ids []string, perNote int, q string, args []any,
	item func(ref ports.NoteRef, depth int) T) (ports.Batch[T], error) {
	l := newBatchLists(perNote, item)
	err := s.query(ctx, q, args, func(rows *sql.Rows) error {
		var root string
		var total, isNote, depth int64
		var r noteRow
		if err := rows.Scan(&root, nint{&total}, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated}, nint{&isNote}, nint{&depth}); err != nil {
			return err
		}
		return l.add(root, total, r, isNote, depth)
	})
	if err != nil {
		return ports.Batch[T]{}, err
	}
	return l.batch(ids), nil
}

// batchLists gathers the rows of ranked lists, in rank order per root,
// into the lists of a batch.
type batchLists[T any] struct {
	lists   map[string]*ports.NoteList[T]
	perNote int
	item    func(ref ports.NoteRef, depth int) T
}

func newBatchLists[T any](perNote int, item func(ref ports.NoteRef, depth int) T) *batchLists[T] {
	return &batchLists[T]{lists: make(map[string]*ports.NoteList[T]), perNote: perNote, item: item}
}

// add adds the row of root's list: its total, and the node r (none when
// r.id is "") at depth.
func (b *batchLists[T]) add(root string, total int64, r noteRow, isNote, depth int64) error {
	r.folder = isNote == 0
	l := b.lists[root]
	if l == nil {
		l = &ports.NoteList[T]{ID: root, Total: int(total)}
		b.lists[root] = l
	}
	if r.id == "" || len(l.Items) >= b.perNote {
		return nil
	}
	ref, err := r.ref()
	if err != nil {
		return err
	}
	l.Items = append(l.Items, b.item(ref, int(depth)))
	return nil
}

// batch returns the lists of the distinct ids, in their order; ids with
// no list are Missing.
func (b *batchLists[T]) batch(ids []string) ports.Batch[T] {
	var out ports.Batch[T]
	for _, id := range ports.Distinct(ids) {
		if l := b.lists[id]; l != nil {
			out.Lists = append(out.Lists, *l)
		} else {
			out.Missing = append(out.Missing, id)
		}
	}
	return out
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

// ContextOf returns the context of the notes of ids as q asks, in one
// statement: the ranked lists of ParentsOf and DescendantsOf, each cut at
// its cap, each row with its note's content when q asks for heads. A note
// in several lists is windowed once. See [ports.Notes].
func (s *Store) ContextOf(ctx context.Context, ids []string, q ports.ContextQuery) (ports.NoteContext, error) {
	if err := q.Validate(ids); err != nil {
		return ports.NoteContext{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.NoteContext{}, err
	}
	if !q.Parents && q.ChildLevels == 0 {
		return ports.NoteContext{}, nil
	}
	// With bound arguments the statement's text depends only on q's
	// shape, so that the driver prepares it once.
	a := &args{bind: s.d.BindArgs}
	list := ports.Distinct(ids)
	in := a.list(list)
	roots := "roots(id) AS (SELECT id FROM bounded_note_nodes WHERE id IN " + in + ")"
	// One level of children is counted by the roots, once each, from the
	// edges' index: cheaper than a COUNT window over the children.
	childTotal := "k.total"
	if q.ChildLevels == 1 {
		roots = "roots(id, children) " + s.materialized() + " (SELECT x.id, (SELECT COUNT(*) FROM bounded_note_parents c" +
			" WHERE c.parent_id = x.id AND c.note_id <> x.id) FROM bounded_note_nodes x WHERE x.id IN " + in + ")"
		childTotal = "roots.children"
	}
	with := []string{roots}
	// The heads' columns are read only when asked for.
	heads, noteCols := "NULL, NULL", "tags, updated_at"
	if q.HeadLines > 0 {
		heads, noteCols = "n.created_at, n.content", "tags, updated_at, created_at, content"
	}
	// A list's rows: kind 0 for parents, 1 for descendants. The lists are
	// cut before they are joined to the roots.
	arm := func(kind int, ranked, total string, limit int) string {
		return fmt.Sprintf("SELECT %d AS kind, roots.id AS root, %s AS total, k.id AS id, k.title AS title, n.tags AS tags,"+
			" n.updated_at AS updated_at, k.is_note AS is_note, k.depth AS depth, k.rn AS rn, %s FROM roots"+
			" LEFT JOIN (SELECT * FROM %s WHERE rn <= %s) k ON k.root = roots.id %s", kind, total, heads, ranked, a.value(max(limit, 1)), s.noteJoin("k.id", noteCols))
	}
	var arms []string
	if q.Parents {
		with = append(with, s.parentsRanked("pr", a.list(list)))
	}
	if q.ChildLevels > 0 {
		with = append(with, s.descendantsRanked("cr", q.ChildLevels, q.ChildLevels > 1))
	}
	if q.Parents {
		arms = append(arms, arm(0, "pr", "k.total", q.ParentsPerNote))
	}
	if q.ChildLevels > 0 {
		arms = append(arms, arm(1, "cr", childTotal, q.ChildrenPerNote))
	}
	stmt := "WITH " + strings.Join(with, ",\n\t") + "\n" + strings.Join(arms, "\nUNION ALL ") + "\nORDER BY kind, root, rn"
	parents := newBatchLists(q.ParentsPerNote, func(ref ports.NoteRef, _ int) ports.NoteRef { return ref })
	children := newBatchLists(q.ChildrenPerNote, func(ref ports.NoteRef, depth int) ports.Descendant {
		return ports.Descendant{NoteRef: ref, Depth: depth}
	})
	var out ports.NoteContext
	seen := make(map[string]bool)
	err := s.queryArgs(ctx, stmt, a, func(rows *sql.Rows) error {
		var kind, total, isNote, depth, rn int64
		var root string
		var r noteRow
		if err := rows.Scan(&kind, &root, nint{&total}, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated},
			nint{&isNote}, nint{&depth}, nint{&rn}, nint{&r.created}, nstr{&r.content}); err != nil {
			return err
		}
		add, perNote := parents.add, q.ParentsPerNote
		if kind == 1 {
			add, perNote = children.add, q.ChildrenPerNote
		}
		if err := add(root, total, r, isNote, depth); err != nil {
			return err
		}
		// A head is read for the notes of the lists returned, within each
		// list's cap (the statement reads one row for a cap of 0).
		if q.HeadLines == 0 || r.id == "" || isNote == 0 || rn > int64(perNote) || seen[r.id] {
			return nil
		}
		seen[r.id] = true
		nc, err := r.windowed(bounded.Window{MaxLines: q.HeadLines})
		out.Heads = append(out.Heads, nc)
		return err
	})
	if err != nil {
		return ports.NoteContext{}, err
	}
	slices.SortFunc(out.Heads, func(a, b ports.NoteContent) int { return strings.Compare(a.ID, b.ID) })
	if q.Parents {
		out.Parents = parents.batch(ids)
	}
	if q.ChildLevels > 0 {
		out.Children = children.batch(ids)
	}
	return out, nil
}

// materialized is the keyword of a CTE evaluated once however often the
// statement reads it: AS MATERIALIZED on SQLite and Postgres (SQLite
// expands a CTE at each reference otherwise); MySQL has no such keyword.
func (s *Store) materialized() string {
	if s.db.Dialect().Name() == dialect.MySQL {
		return "AS"
	}
	return "AS MATERIALIZED"
}
