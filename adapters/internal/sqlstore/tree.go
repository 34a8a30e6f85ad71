package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// The hierarchy's nodes (see [ports.Notes]) are the rows of
// bounded_note_nodes: one per note and per folder. A folder's row counts
// the notes below it (below) and goes with the last of them; a note's row
// has is_note set, and stays as a folder's (is_note 0, titled by its name)
// when the note is deleted while notes remain below it. Every parent edge
// is a row of bounded_note_parents (note_id, the child; parent_id): those
// a note's Parents name, and the edge of every node to its folder, which
// the node holds while it exists.

// nodeCols are the columns of bounded_note_nodes, in the order of
// [nodeRow].
var nodeCols = []string{"id", "is_note", "below", "depth", "name_fold", "title", "id_fold"}

// nodeRow is the row of node id: a note titled title (isNote 1), or a
// folder (isNote 0) with below notes below it.
func nodeRow(id, title string, isNote, below int) []any {
	return []any{id, isNote, below, len(ports.FoldersOf(id)), ports.Fold(ports.NodeName(id)), title, ports.Fold(id)}
}

// putNode writes the node of note n, and counts it in its folders when it
// is new (not stored before), in one statement. A folder's row takes the
// title of the note standing for it.
func (s *Store) putNode(ctx context.Context, tx bun.IDB, n ports.Note, isNew bool) error {
	rows := [][]any{nodeRow(n.ID, n.Title, 1, 0)}
	if isNew {
		for _, f := range ports.FoldersOf(n.ID) {
			rows = append(rows, nodeRow(f, ports.NodeName(f), 0, 1))
		}
	}
	// MariaDB assigns in order, each assignment seeing the ones before:
	// title is set before is_note changes.
	suffix := "ON CONFLICT (id) DO UPDATE SET below = bounded_note_nodes.below + excluded.below," +
		" title = CASE WHEN excluded.is_note = 1 OR bounded_note_nodes.is_note = 0 THEN excluded.title ELSE bounded_note_nodes.title END," +
		" is_note = CASE WHEN excluded.is_note = 1 THEN 1 ELSE bounded_note_nodes.is_note END"
	if s.d.OnDuplicateKey {
		suffix = "ON DUPLICATE KEY UPDATE below = below + VALUES(below)," +
			" title = CASE WHEN VALUES(is_note) = 1 OR is_note = 0 THEN VALUES(title) ELSE title END," +
			" is_note = CASE WHEN VALUES(is_note) = 1 THEN 1 ELSE is_note END"
	}
	return insertRows(ctx, tx, "bounded_note_nodes", nodeCols, rows, suffix)
}

// parentEdges are the parent edges note n holds: those its Parents name,
// and its folder's; when n is new, its folders' edges to their folders
// too, which may be there already.
func parentEdges(n ports.Note, isNew bool) [][]any {
	var rows [][]any
	for _, p := range n.Parents {
		rows = append(rows, []any{n.ID, p})
	}
	up := []string{n.ID}
	if isNew {
		up = append(up, ports.FoldersOf(n.ID)...)
	}
	for _, id := range up {
		if f := ports.FolderOf(id); f != "" && (id != n.ID || !slices.Contains(n.Parents, f)) {
			rows = append(rows, []any{id, f})
		}
	}
	return rows
}

// deleteNode uncounts the deleted note id in its folders and drops the
// nodes left with nothing, with their edges: its own, unless notes remain
// below it (then a folder titled by its name), and its folders that held
// only it.
func deleteNode(ctx context.Context, tx bun.IDB, id string) error {
	ids := bun.List(append(ports.FoldersOf(id), id))
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE bounded_note_nodes SET below = below - CASE WHEN id = ? THEN 0 ELSE 1 END," +
			" title = CASE WHEN id = ? THEN ? ELSE title END, is_note = CASE WHEN id = ? THEN 0 ELSE is_note END WHERE id IN (?)",
			[]any{id, id, ports.NodeName(id), id, ids}},
		{"DELETE FROM bounded_note_parents WHERE note_id IN (SELECT id FROM bounded_note_nodes WHERE id IN (?) AND below = 0 AND is_note = 0)", []any{ids}},
		{"DELETE FROM bounded_note_nodes WHERE id IN (?) AND below = 0 AND is_note = 0", []any{ids}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// migrateNodes fills bounded_note_nodes, and the edges of nodes to their
// folders, from the notes of a database written before they existed, in
// one transaction.
func migrateNodes(ctx context.Context, db bun.IDB, d Dialect) error {
	var missing int
	err := db.QueryRowContext(ctx, "SELECT CASE WHEN EXISTS (SELECT 1 FROM bounded_notes)"+
		" AND NOT EXISTS (SELECT 1 FROM bounded_note_nodes) THEN 1 ELSE 0 END").Scan(&missing)
	if err != nil || missing == 0 {
		return wrapSchema(d, err)
	}
	return wrapSchema(d, db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		s := &Store{db: tx, d: d}
		titles := make(map[string]string)
		below := make(map[string]int)
		err := s.query(ctx, "SELECT id, title FROM bounded_notes", nil, func(rows *sql.Rows) error {
			var id, title string
			if err := rows.Scan(&id, &title); err != nil {
				return err
			}
			titles[id] = title
			for _, f := range ports.FoldersOf(id) {
				below[f]++
			}
			return nil
		})
		if err != nil {
			return err
		}
		var nodes, edges [][]any
		add := func(id, title string, isNote int) {
			nodes = append(nodes, nodeRow(id, title, isNote, below[id]))
			if f := ports.FolderOf(id); f != "" {
				edges = append(edges, []any{id, f})
			}
		}
		for id, title := range titles {
			add(id, title, 1)
		}
		for id := range below {
			if _, ok := titles[id]; !ok {
				add(id, ports.NodeName(id), 0)
			}
		}
		if err := insertRows(ctx, tx, "bounded_note_nodes", nodeCols, nodes, ""); err != nil {
			return err
		}
		return insertRows(ctx, tx, "bounded_note_parents", []string{"note_id", "parent_id"}, edges, s.ignoreDuplicates("note_id", "parent_id"))
	}))
}

// nodeRefCols are the columns of a NoteRef in page queries over nodes t
// with their notes n (NULL for a folder).
const nodeRefCols = "t.id AS id, t.title AS title, n.tags AS tags, n.updated_at AS updated_at, t.is_note AS is_note"

// nodeFrom joins the rows of the CTE list (of an id column) to their
// nodes t and notes n.
func (s *Store) nodeFrom(list string) *bun.SelectQuery {
	return s.from(list, "").Join("JOIN bounded_note_nodes AS t ON t.id = " + list + ".id").
		Join("LEFT JOIN bounded_notes AS n ON n.id = t.id")
}

// nodeTitleKeys are the keys of [ports.ByTitle] over nodes t.
var nodeTitleKeys = []key{{inner: "t.title", outer: "p.title"}, {inner: "t.id", outer: "p.id"}}

// foundNode is a count column: 1 when node id exists, 0 otherwise.
func foundNode(id string) column {
	return column{"(SELECT count(*) FROM bounded_note_nodes WHERE id = ?) AS found", []any{id}}
}

// nodeRefRow scans a row of count columns, the nodeRefCols, then more
// columns.
func nodeRefRow(counts []any, rows *sql.Rows, more ...any) (ports.NoteRef, bool, error) {
	var r noteRow
	var isNote int64
	if err := rows.Scan(append(append(counts, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated}, nint{&isNote}), more...)...); err != nil {
		return ports.NoteRef{}, false, err
	}
	if r.id == "" {
		return ports.NoteRef{}, false, nil
	}
	r.folder = isNote == 0
	ref, err := r.ref()
	return ref, err == nil, err
}

// Children pages the nodes naming node id as a parent, ordered by title,
// then ID, in one statement. See [ports.Notes].
func (s *Store) Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Children", id)
	kids := s.db.NewRaw("SELECT note_id AS id FROM bounded_note_parents WHERE parent_id = ?", id)
	return s.nodeRefs(ctx, id, p, ports.ChildrenLimits, scope, cte{"kids", kids})
}

// Parents pages the parents of node id, those that exist, ordered by
// title, then ID, in one statement. See [ports.Notes].
func (s *Store) Parents(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Parents", id)
	ups := s.db.NewRaw("SELECT parent_id AS id FROM bounded_note_parents WHERE note_id = ?", id)
	return s.nodeRefs(ctx, id, p, ports.ParentsLimits, scope, cte{"ups", ups})
}

// nodeRefs pages the nodes whose IDs list selects (a CTE of one id
// column), ordered by title, then ID; node id must exist.
func (s *Store) nodeRefs(ctx context.Context, id string, p bounded.Page, l bounded.Limits, scope string, list cte) (bounded.Paged[ports.NoteRef], error) {
	return fetch(ctx, s, p, l, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NoteRef], error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		q := paged{
			with:  []cte{list},
			count: s.nodeFrom(list.name),
			extra: []column{foundNode(id)},
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.nodeFrom(list.name).ColumnExpr(nodeRefCols))
			},
			keys: nodeTitleKeys,
		}
		page, ext, err := collect(ctx, s, q, req, ports.ByTitle, func(counts []any, rows *sql.Rows) (ports.NoteRef, bool, error) {
			return nodeRefRow(counts, rows)
		})
		if err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		if ext[0] == 0 {
			return driver.Rows[ports.NoteRef]{}, notFound("note", id)
		}
		return page, nil
	})
}

// ResolveNotes resolves every name in one statement: for each, the nodes
// with its folded last element (found by bounded_note_nodes_name) that
// match it, ranked by window functions in SQL. See [ports.Notes].
func (s *Store) ResolveNotes(ctx context.Context, names []string) ([]ports.Resolution, error) {
	if err := ports.ValidateNames(names); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	queries := make([]ports.NameQuery, len(names))
	var parts []string
	var args []any
	for i, name := range names {
		q := ports.ParseName(name)
		queries[i] = q
		tier, tierArgs := "CASE WHEN id = ? THEN 0 ELSE 2 END", []any{name}
		match := "SELECT id, is_note, depth, id_fold FROM bounded_note_nodes WHERE id = ?"
		matchArgs := []any{name}
		if q.Path != "" {
			match += " UNION SELECT id, is_note, depth, id_fold FROM bounded_note_nodes WHERE name_fold = ?"
			matchArgs = append(matchArgs, q.Base)
		}
		if q.Slash {
			tier, tierArgs = "CASE WHEN id = ? THEN 0 WHEN id_fold = ? THEN 1 ELSE 2 END", []any{name, q.Path}
			// The folded ID is the path, or ends with "/" + the path:
			// its last n characters.
			n := utf8.RuneCountInString(q.Path) + 1
			match += " AND (id_fold = ? OR (" + s.d.charLength() + "(id_fold) > ? AND substr(id_fold, " + s.d.charLength() + "(id_fold) - ? + 1) = ?))"
			matchArgs = append(matchArgs, q.Path, n, n, "/"+q.Path)
		}
		parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT %d AS k, id, is_note, tied FROM (
			SELECT id, is_note, RANK() OVER (ORDER BY tier, is_note DESC, depth) AS rk,
				COUNT(*) OVER (PARTITION BY tier, is_note, depth) AS tied
			FROM (SELECT id, is_note, depth, %s AS tier FROM (%s) AS m) AS c
		) AS r WHERE rk = 1 ORDER BY id LIMIT %d) AS r%d`, i, tier, match, ports.MaxCandidates, i))
		args = append(append(args, tierArgs...), matchArgs...)
	}
	type best struct {
		ids    []string
		folder bool
		tied   int
	}
	found := make([]best, len(names))
	err := s.query(ctx, strings.Join(parts, " UNION ALL "), args, func(rows *sql.Rows) error {
		var k, isNote, tied int64
		var id string
		if err := rows.Scan(&k, &id, &isNote, &tied); err != nil {
			return err
		}
		b := &found[k]
		b.ids, b.folder, b.tied = append(b.ids, id), isNote == 0, int(tied)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]ports.Resolution, len(names))
	for i, q := range queries {
		b := found[i]
		slices.Sort(b.ids)
		out[i] = q.Resolve(b.ids, b.folder, b.tied)
	}
	return out, nil
}
