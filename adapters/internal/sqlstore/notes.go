package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// noteRefCols are the columns of a NoteRef in page queries over notes n.
const noteRefCols = "n.id AS id, n.title AS title, n.tags AS tags, n.updated_at AS updated_at"

// foundNote is a count column: 1 when note id exists, 0 otherwise.
func foundNote(id string) column {
	return column{"(SELECT count(*) FROM bounded_notes WHERE id = ?) AS found", []any{id}}
}

// existsTarget is 1 when the internal link l's target note exists.
const existsTarget = "CASE WHEN l.is_external = 0 AND EXISTS (SELECT 1 FROM bounded_notes t WHERE t.id = l.target) THEN 1 ELSE 0 END"

// PutNote stores n.Normalize() with its tags, links, parents and node,
// replacing any note with the same ID, in one transaction. See
// [ports.Notes].
func (s *Store) PutNote(ctx context.Context, n ports.Note) error {
	n, err := n.Normalize()
	if err != nil {
		return err
	}
	if err := errors.Join(ports.ValidateTime("createdAt", n.CreatedAt), ports.ValidateTime("updatedAt", n.UpdatedAt)); err != nil {
		return fmt.Errorf("note %q: %w", n.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	updated := micros(n.UpdatedAt)
	return s.wrap(s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		var stored int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM bounded_notes WHERE id = ?", n.ID).Scan(&stored); err != nil {
			return err
		}
		if err := s.upsert(ctx, tx, "bounded_notes",
			[]string{"id", "title", "title_fold", "content", "content_fold", "tags", "created_at", "updated_at"},
			[]any{n.ID, n.Title, ports.Fold(n.Title), n.Content, ports.Fold(n.Content), encodeList(n.Tags), micros(n.CreatedAt), updated},
		); err != nil {
			return err
		}
		if err := s.putNode(ctx, tx, n, stored == 0); err != nil {
			return err
		}
		if err := deleteNoteEdges(ctx, tx, n.ID); err != nil {
			return err
		}
		tags := make([][]any, len(n.Tags))
		for i, t := range n.Tags {
			tags[i] = []any{n.ID, t, updated}
		}
		if err := insertRows(ctx, tx, "bounded_note_tags", []string{"note_id", "tag", "updated_at"}, tags, ""); err != nil {
			return err
		}
		links := make([][]any, len(n.Links))
		var back [][]any
		seen := make(map[string]bool)
		for i, l := range n.Links {
			ext := 0
			if l.External {
				ext = 1
			} else if !seen[l.Target] {
				seen[l.Target] = true
				back = append(back, []any{l.Target, n.ID, updated})
			}
			links[i] = []any{n.ID, i, l.Target, ext, l.Text, l.Domain()}
		}
		if err := insertRows(ctx, tx, "bounded_note_links", []string{"source_id", "pos", "target", "is_external", "link_text", "host"}, links, ""); err != nil {
			return err
		}
		if err := insertRows(ctx, tx, "bounded_note_backlinks", []string{"target", "source_id", "updated_at"}, back, ""); err != nil {
			return err
		}
		return insertRows(ctx, tx, "bounded_note_parents", []string{"note_id", "parent_id"}, parentEdges(n, stored == 0), s.ignoreDuplicates("note_id", "parent_id"))
	}))
}

// deleteNoteEdges deletes the rows that note id owns in the side tables,
// but for the edge of its node to its folder.
func deleteNoteEdges(ctx context.Context, tx bun.IDB, id string) error {
	for _, q := range []string{
		"DELETE FROM bounded_note_tags WHERE note_id = ?",
		"DELETE FROM bounded_note_links WHERE source_id = ?",
		"DELETE FROM bounded_note_backlinks WHERE source_id = ?",
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM bounded_note_parents WHERE note_id = ? AND parent_id <> ?", id, ports.FolderOf(id))
	return err
}

// DeleteNote removes note id with its links and parent edges; links to it
// become broken. See [ports.Notes].
func (s *Store) DeleteNote(ctx context.Context, id string) error {
	if err := ports.ValidateQuery("id", id); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM bounded_notes WHERE id = ?", id)
		if err != nil {
			return s.wrap(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return s.wrap(err)
		}
		if n == 0 {
			return notFound("note", id)
		}
		if err := deleteNoteEdges(ctx, tx, id); err != nil {
			return s.wrap(err)
		}
		return s.wrap(deleteNode(ctx, tx, id))
	})
}

// noteRow is a note read from bounded_notes, or a folder (a node no note
// stands for) read from bounded_note_nodes.
type noteRow struct {
	id, title, tags, content string
	created, updated         int64
	folder                   bool
}

func (r noteRow) ref() (ports.NoteRef, error) {
	if r.folder {
		return ports.NoteRef{ID: r.id, Title: r.title, Folder: true}, nil
	}
	tags, err := decodeList(r.tags)
	if err != nil {
		return ports.NoteRef{}, err
	}
	return ports.NoteRef{ID: r.id, Title: r.title, Tags: tags, UpdatedAt: fromMicros(r.updated)}, nil
}

func (r noteRow) windowed(w bounded.Window) (ports.NoteContent, error) {
	ref, err := r.ref()
	if err != nil {
		return ports.NoteContent{}, err
	}
	text, info, err := bounded.ApplyWindow(r.content, w)
	if err != nil {
		return ports.NoteContent{}, err
	}
	return ports.NoteContent{NoteRef: ref, CreatedAt: fromMicros(r.created), Content: text, Window: info}, nil
}

// GetNote returns note id with the window w of its content. The content is
// read whole and windowed in Go. See [ports.Notes].
func (s *Store) GetNote(ctx context.Context, id string, w bounded.Window) (ports.NoteContent, error) {
	if err := ports.ValidateQuery("id", id); err != nil {
		return ports.NoteContent{}, err
	}
	if _, _, err := w.Normalize(); err != nil {
		return ports.NoteContent{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.NoteContent{}, err
	}
	var r noteRow
	a := &args{bind: s.d.BindArgs}
	err := s.queryRowArgs(ctx, "SELECT id, title, tags, created_at, updated_at, content FROM bounded_notes WHERE id = "+a.value(id), a,
		&r.id, &r.title, &r.tags, &r.created, &r.updated, &r.content)
	if isNoRows(err) {
		return ports.NoteContent{}, notFound("note", id)
	}
	if err != nil {
		return ports.NoteContent{}, s.wrapCtx(ctx, err)
	}
	return r.windowed(w)
}

// GetNotes returns the notes named by ids, in the order of ids, each with
// the window w; ids naming no note are listed in Missing. See
// [ports.Notes].
func (s *Store) GetNotes(ctx context.Context, ids []string, w bounded.Window) (ports.GetNotesResult, error) {
	if err := ports.ValidateGetNotes(ids, w); err != nil {
		return ports.GetNotesResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.GetNotesResult{}, err
	}
	return s.notesWindowed(ctx, ids, w)
}

// noteRefRow scans a row of count columns then the noteRefCols.
func noteRefRow(counts []any, rows *sql.Rows) (ports.NoteRef, bool, error) {
	var r noteRow
	if err := rows.Scan(append(counts, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated})...); err != nil {
		return ports.NoteRef{}, false, err
	}
	if r.id == "" {
		return ports.NoteRef{}, false, nil
	}
	ref, err := r.ref()
	return ref, err == nil, err
}

// updatedKeys are the keys of [ports.ByUpdatedDesc] over columns updated
// and id of the inner query, and p.updated_at, p.id outside.
func updatedKeys(updated, id string) []key {
	return []key{{inner: updated, outer: "p.updated_at", desc: true, num: true}, {inner: id, outer: "p.id"}}
}

// folderRange is the bytewise range [lo, hi) of the IDs that start with
// folder+"/": '0' is the byte after '/'.
func folderRange(folder string) (lo, hi string) { return folder + "/", folder + "0" }

// ListNotes pages the notes that pass f, ordered by UpdatedAt descending,
// then ID. See [ports.Notes].
func (s *Store) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("ListNotes", f.Tag, f.Folder)
	return fetch(ctx, s, p, ports.ListNotesLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NoteRef], error) {
		if f.Tag != "" {
			if err := ports.ValidateQuery("tag", f.Tag); err != nil {
				return driver.Rows[ports.NoteRef]{}, err
			}
		}
		if f.Folder != "" {
			if err := ports.ValidateQuery("folder", f.Folder); err != nil {
				return driver.Rows[ports.NoteRef]{}, err
			}
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		// The page's IDs come from a covering index in page order, entered at
		// the cursor; only they are joined with their rows.
		var q paged
		if f.Tag != "" {
			where, args := "t.tag = ?", []any{f.Tag}
			if f.Folder != "" {
				lo, hi := folderRange(f.Folder)
				where += " AND t.note_id >= ? AND t.note_id < ?"
				args = append(args, lo, hi)
			}
			q = paged{
				count: s.from("bounded_note_tags AS t", where, args...),
				page: func(c clauses) *bun.SelectQuery {
					return c.apply(s.from("bounded_note_tags AS t"+s.d.index("bounded_note_tags_list"), where, args...).
						Join("JOIN bounded_notes AS n ON n.id = t.note_id").ColumnExpr(noteRefCols))
				},
				deferred: func(c clauses) *bun.SelectQuery {
					ids := c.apply(s.from("bounded_note_tags AS t"+s.d.index("bounded_note_tags_list"), where, args...).ColumnExpr("t.note_id AS id"))
					return s.deferredJoin(ids, "bounded_notes", "n", "id", noteRefCols)
				},
				keys: updatedKeys("t.updated_at", "t.note_id"),
			}
		} else {
			// The count of every note has no WHERE at all: SQLite counts a
			// whole table from its B-tree's pages, where even WHERE 1 = 1
			// forces a scan.
			where, args := "", []any(nil)
			if f.Folder != "" {
				lo, hi := folderRange(f.Folder)
				where, args = "n.id >= ? AND n.id < ?", []any{lo, hi}
			}
			q = paged{
				count: s.from("bounded_notes AS n", where, args...),
				page: func(c clauses) *bun.SelectQuery {
					return c.apply(s.from("bounded_notes AS n", where, args...).ColumnExpr(noteRefCols))
				},
				deferred: func(c clauses) *bun.SelectQuery {
					ids := c.apply(s.from("bounded_notes AS n"+s.d.index("bounded_notes_updated"), where, args...).ColumnExpr("n.id AS id"))
					return s.deferredJoin(ids, "bounded_notes", "n", "id", noteRefCols)
				},
				keys: updatedKeys("n.updated_at", "n.id"),
			}
		}
		rows, _, err := collect(ctx, s, q, req, ports.ByUpdatedDesc, noteRefRow)
		return rows, err
	})
}

// SearchNotes pages the notes whose folded title or content contains the
// folded query (a plain substring test, [Dialect.Instr], over the
// candidates of the dialect's [NoteIndex]): title matches first, then
// UpdatedAt descending, then ID.
// See [ports.Notes].
func (s *Store) SearchNotes(ctx context.Context, query string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("SearchNotes", query)
	return fetch(ctx, s, p, ports.SearchNotesLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NoteRef], error) {
		if err := ports.ValidateQuery("query", query); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		q := ports.Fold(query)
		row := func(counts []any, rows *sql.Rows) (ports.NoteRef, bool, error) {
			var r noteRow
			var rank int64
			if err := rows.Scan(append(counts, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated}, nint{&rank})...); err != nil {
				return ports.NoteRef{}, false, err
			}
			if r.id == "" {
				return ports.NoteRef{}, false, nil
			}
			ref, err := r.ref()
			return ref, err == nil, err
		}
		if most := s.indexFirst(q, req); most > 0 {
			// Through the index when it finds few notes, in one
			// statement; a broad term reads no note there.
			rows, extra, err := collect(ctx, s, s.searchNotesQuery(q, searchIndexed, false, most, req), req, ports.SearchNotesOrder(query), row)
			if err != nil || extra[0] <= int64(most) {
				return rows, err
			}
		}
		how, titled, err := s.noteSearchFor(ctx, q, req)
		if err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		rows, _, err := collect(ctx, s, s.searchNotesQuery(q, how, titled, 0, req), req, ports.SearchNotesOrder(query), row)
		return rows, err
	})
}

// SearchByLinks pages the notes matching q, ordered by UpdatedAt
// descending, then ID. See [ports.Notes].
func (s *Store) SearchByLinks(ctx context.Context, q ports.LinkQuery, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := q.Scope()
	return fetch(ctx, s, p, ports.SearchByLinksLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NoteRef], error) {
		if err := q.Validate(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		// Each criterion is a semi-join written as id IN (subquery), not as a
		// correlated EXISTS: SQLite 3.51's EXISTS-to-join rewrite counted
		// OFFSET once per matching inner row (fixed in later releases).
		var conds []string
		var args []any
		if len(q.HasLinksTo) > 0 {
			conds = append(conds, "n.id IN (SELECT l.source_id FROM bounded_note_links l WHERE l.is_external = 0 AND l.target IN (?))")
			args = append(args, bun.List(q.HasLinksTo))
		}
		if len(q.LinkedFrom) > 0 {
			// Links are stored only for existing notes, so every source found
			// here exists.
			conds = append(conds, "n.id IN (SELECT l.target FROM bounded_note_links l WHERE l.is_external = 0 AND l.source_id IN (?))")
			args = append(args, bun.List(q.LinkedFrom))
		}
		if len(q.ExternalDomains) > 0 {
			// host = d, or host ends with "." + d: its last n characters are
			// "." + d (the dialect's CharLength and substr count characters).
			var or []string
			for _, d := range q.ExternalDomains {
				d = ports.Fold(d)
				n := utf8.RuneCountInString(d) + 1
				or = append(or, "l.host = ? OR ("+s.d.charLength()+"(l.host) > ? AND substr(l.host, "+s.d.charLength()+"(l.host) - ? + 1) = ?)")
				args = append(args, d, n, n, "."+d)
			}
			conds = append(conds, "n.id IN (SELECT l.source_id FROM bounded_note_links l WHERE l.is_external = 1 AND ("+strings.Join(or, " OR ")+"))")
		}
		if q.BrokenLinks {
			conds = append(conds, "n.id IN (SELECT l.source_id FROM bounded_note_links l WHERE l.is_external = 0 AND NOT EXISTS (SELECT 1 FROM bounded_notes t WHERE t.id = l.target))")
		}
		where := strings.Join(conds, " AND ")
		pq := paged{
			count: s.from("bounded_notes AS n", where, args...),
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("bounded_notes AS n", where, args...).ColumnExpr(noteRefCols))
			},
			keys: updatedKeys("n.updated_at", "n.id"),
		}
		rows, _, err := collect(ctx, s, pq, req, ports.ByUpdatedDesc, noteRefRow)
		return rows, err
	})
}

// linkRefCols are the columns of a LinkRef in page queries over links l.
const linkRefCols = "l.source_id AS source_id, l.pos AS pos, l.target AS target, l.is_external AS is_external, l.link_text AS link_text, " +
	existsTarget + " AS target_exists"

// linkKeys are the keys of [ports.BySourcePosition] over links l.
var linkKeys = []key{{inner: "l.source_id", outer: "p.source_id"}, {inner: "l.pos", outer: "p.pos", num: true}}

// linkRefRow scans a row of count columns then the linkRefCols into a
// LinkRef; ok is false for the NULL row of an empty page.
func linkRefRow(counts []any, rows *sql.Rows) (ports.LinkRef, bool, error) {
	var src, target, text string
	var pos, ext, exists int64
	if err := rows.Scan(append(counts, nstr{&src}, nint{&pos}, nstr{&target}, nint{&ext}, nstr{&text}, nint{&exists})...); err != nil {
		return ports.LinkRef{}, false, err
	}
	if src == "" {
		return ports.LinkRef{}, false, nil
	}
	return ports.LinkRef{SourceID: src, Position: int(pos), Target: target, External: ext == 1, Text: text, Exists: exists == 1}, true, nil
}

// FindBrokenLinks pages the internal links whose target note does not
// exist, ordered by source ID, then position. See [ports.Notes].
func (s *Store) FindBrokenLinks(ctx context.Context, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
	scope := ports.Scope("FindBrokenLinks")
	return fetch(ctx, s, p, ports.FindBrokenLinksLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.LinkRef], error) {
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.LinkRef]{}, err
		}
		const where = "l.is_external = 0 AND NOT EXISTS (SELECT 1 FROM bounded_notes t WHERE t.id = l.target)"
		q := paged{
			count: s.from("bounded_note_links AS l", where),
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("bounded_note_links AS l", where).ColumnExpr(linkRefCols))
			},
			keys: linkKeys,
		}
		rows, _, err := collect(ctx, s, q, req, ports.BySourcePosition, linkRefRow)
		return rows, err
	})
}

// NoteLinks pages note id's internal and external links (by position) and
// its incoming links (by source ID, then position), each category by one
// statement counting its total with its page. See [ports.Notes].
func (s *Store) NoteLinks(ctx context.Context, id string, p ports.NoteLinksPages) (ports.NoteLinks, error) {
	if err := p.Check(id); err != nil {
		return ports.NoteLinks{}, err
	}
	pages := [3]bounded.Page{p.Internal, p.External, p.Incoming}
	if err := ctx.Err(); err != nil {
		return ports.NoteLinks{}, err
	}
	wheres := [3]string{
		"l.source_id = ? AND l.is_external = 0",
		"l.source_id = ? AND l.is_external = 1",
		"l.target = ? AND l.is_external = 0",
	}
	scopes := ports.NoteLinksScopes(id)
	var out [3]bounded.Paged[ports.LinkRef]
	for i, where := range wheres {
		q := paged{
			count: s.from("bounded_note_links AS l", where, id),
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("bounded_note_links AS l", where, id).ColumnExpr(linkRefCols))
			},
			keys: linkKeys,
		}
		if i == 0 {
			q.extra = []column{foundNote(id)}
		}
		page, err := fetch(ctx, s, pages[i], ports.NoteLinksLimits, scopes[i], func(ctx context.Context, req driver.Request) (driver.Rows[ports.LinkRef], error) {
			rows, extra, err := collect(ctx, s, q, req, ports.BySourcePosition, linkRefRow)
			if err == nil && i == 0 && extra[0] == 0 {
				err = notFound("note", id)
			}
			return rows, err
		})
		if err != nil {
			return ports.NoteLinks{}, err
		}
		out[i] = page
	}
	return ports.NoteLinks{Internal: out[0], External: out[1], Incoming: out[2]}, nil
}

// Backlinks pages the notes with an internal link to id, ordered by
// UpdatedAt descending, then ID: the page's IDs are read from the
// backlinks index in page order (skipped notes are never fetched), then
// their rows. See [ports.Notes].
func (s *Store) Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Backlinks", id)
	return fetch(ctx, s, p, ports.BacklinksLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.NoteRef], error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.NoteRef]{}, err
		}
		q := paged{
			count: s.from("bounded_note_backlinks AS b", "b.target = ?", id),
			deferred: func(c clauses) *bun.SelectQuery {
				ids := c.apply(s.from("bounded_note_backlinks AS b"+s.d.index("bounded_note_backlinks_list"), "b.target = ?", id).ColumnExpr("b.source_id AS id"))
				return s.deferredJoin(ids, "bounded_notes", "n", "id", noteRefCols)
			},
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("bounded_note_backlinks AS b"+s.d.index("bounded_note_backlinks_list"), "b.target = ?", id).
					Join("JOIN bounded_notes AS n ON n.id = b.source_id").ColumnExpr(noteRefCols))
			},
			keys: updatedKeys("b.updated_at", "b.source_id"),
		}
		rows, _, err := collect(ctx, s, q, req, ports.ByUpdatedDesc, noteRefRow)
		return rows, err
	})
}

// RelatedNotes pages the notes related to id, scored and ordered in SQL
// (score descending, then ID). See [ports.Notes].
func (s *Store) RelatedNotes(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.Related], error) {
	scope := ports.Scope("RelatedNotes", id)
	return fetch(ctx, s, p, ports.RelatedNotesLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.Related], error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return driver.Rows[ports.Related]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.Related]{}, err
		}
		raw := s.db.NewRaw
		q := paged{
			with: []cte{
				{"base_tags", raw("SELECT tag FROM bounded_note_tags WHERE note_id = ?", id)},
				{"base_targets", raw("SELECT DISTINCT target FROM bounded_note_links WHERE source_id = ? AND is_external = 0", id)},
				{"st", raw("SELECT t.note_id AS id, count(*) AS c FROM bounded_note_tags t JOIN base_tags b ON b.tag = t.tag GROUP BY t.note_id")},
				{"sl", raw(`SELECT x.source_id AS id, count(*) AS c FROM (
			SELECT DISTINCT l.source_id, l.target FROM bounded_note_links l JOIN base_targets b ON b.target = l.target WHERE l.is_external = 0
		) AS x GROUP BY x.source_id`)},
				{"lf", raw("SELECT DISTINCT source_id AS id FROM bounded_note_links WHERE target = ? AND is_external = 0", id)},
				{"cand", raw("SELECT id FROM st UNION SELECT id FROM sl UNION SELECT target FROM base_targets UNION SELECT id FROM lf")},
				{"scored", raw(`SELECT n.id, n.title, n.tags, n.updated_at,
				COALESCE(st.c, 0) AS shared_tags, COALESCE(sl.c, 0) AS shared_links,
				CASE WHEN bt.target IS NULL THEN 0 ELSE 1 END AS links_to,
				CASE WHEN lf.id IS NULL THEN 0 ELSE 1 END AS linked_from
			FROM cand JOIN bounded_notes n ON n.id = cand.id
			LEFT JOIN st ON st.id = n.id
			LEFT JOIN sl ON sl.id = n.id
			LEFT JOIN base_targets bt ON bt.target = n.id
			LEFT JOIN lf ON lf.id = n.id
			WHERE n.id <> ?`, id)},
				{"rel", raw("SELECT scored.*, shared_tags + shared_links + CASE WHEN links_to = 1 OR linked_from = 1 THEN 2 ELSE 0 END AS score FROM scored")},
			},
			count: s.from("rel", ""),
			extra: []column{foundNote(id)},
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("rel", "").ColumnExpr("id, title, tags, updated_at, shared_tags, shared_links, links_to, linked_from, score"))
			},
			keys: []key{{inner: "score", outer: "p.score", desc: true, num: true}, {inner: "id", outer: "p.id"}},
		}
		page, ext, err := collect(ctx, s, q, req, ports.ByRelatedScore, func(counts []any, rows *sql.Rows) (ports.Related, bool, error) {
			var r noteRow
			var tags, links, to, from, score int64
			if err := rows.Scan(append(counts, nstr{&r.id}, nstr{&r.title}, nstr{&r.tags}, nint{&r.updated},
				nint{&tags}, nint{&links}, nint{&to}, nint{&from}, nint{&score})...); err != nil {
				return ports.Related{}, false, err
			}
			if r.id == "" {
				return ports.Related{}, false, nil
			}
			ref, err := r.ref()
			return ports.Related{NoteRef: ref, Score: int(score), SharedTags: int(tags), SharedLinks: int(links), LinksTo: to == 1, LinkedFrom: from == 1}, err == nil, err
		})
		if err != nil {
			return driver.Rows[ports.Related]{}, err
		}
		if ext[0] == 0 {
			return driver.Rows[ports.Related]{}, notFound("note", id)
		}
		return page, nil
	})
}
