package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"

	"github.com/boundedkit/bounded"
)

// NoteIndex names the index an engine finds SearchNotes' candidates by.
// Whatever it is, SearchNotes returns exactly the notes whose folded title
// or content contains the folded query: the index only narrows the rows
// that the shared test (a substring test, [Dialect.Instr]) then checks.
type NoteIndex uint8

const (
	// NoteIndexNone reads every note: no index.
	NoteIndexNone NoteIndex = iota
	// NoteIndexFTS5 keeps an FTS5 table with the trigram tokenizer
	// (case-sensitive: it indexes the folded copies) over title_fold and
	// content_fold, filled by triggers on bounded_notes in the writing
	// statement's transaction. Its rowids are those of a side table
	// bounded_note_fts_ids (rid INTEGER PRIMARY KEY, id), which VACUUM
	// keeps, unlike bounded_notes' implicit rowids. A query of three
	// characters or more is looked up as an FTS5 phrase of its trigrams,
	// which finds the rows containing it; a shorter one reads every note.
	// A second FTS5 table, bounded_note_titles_fts, indexes the titles
	// alone, for the walk of a broad query ([searchWalk]).
	NoteIndexFTS5
	// NoteIndexTrigramGIN keeps pg_trgm GIN indexes on title_fold and
	// content_fold, which serve LIKE '%query%' (Postgres rechecks every
	// candidate). The extension is created if it can be; without it the
	// same query reads every note, with the same results.
	NoteIndexTrigramGIN
)

// indexPrefixRunes is the longest prefix of a query looked up in the
// index: the index finds the notes containing the prefix, the substring
// test keeps those containing the whole query. A longer prefix narrows
// no further in practice and costs more trigrams.
const indexPrefixRunes = 64

// minIndexRunes is the shortest query the trigram indexes serve.
const minIndexRunes = 3

// noteIndexSchema is the DDL of each NoteIndex, run after the shared
// tables. Every statement is idempotent.
var noteIndexSchema = map[NoteIndex][]string{
	NoteIndexFTS5: {
		`CREATE TABLE IF NOT EXISTS bounded_note_fts_ids (
			rid INTEGER PRIMARY KEY,
			id TEXT NOT NULL UNIQUE
		)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS bounded_notes_fts USING fts5(
			title_fold, content_fold, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
		)`,
		`CREATE TRIGGER IF NOT EXISTS bounded_notes_fts_insert AFTER INSERT ON bounded_notes BEGIN
			INSERT INTO bounded_note_fts_ids (id) VALUES (new.id);
			INSERT INTO bounded_notes_fts (rowid, title_fold, content_fold)
				SELECT rid, new.title_fold, new.content_fold FROM bounded_note_fts_ids WHERE id = new.id;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_notes_fts_update AFTER UPDATE OF title_fold, content_fold ON bounded_notes BEGIN
			DELETE FROM bounded_notes_fts WHERE rowid = (SELECT rid FROM bounded_note_fts_ids WHERE id = old.id);
			INSERT INTO bounded_notes_fts (rowid, title_fold, content_fold)
				SELECT rid, new.title_fold, new.content_fold FROM bounded_note_fts_ids WHERE id = new.id;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_notes_fts_delete AFTER DELETE ON bounded_notes BEGIN
			DELETE FROM bounded_notes_fts WHERE rowid = (SELECT rid FROM bounded_note_fts_ids WHERE id = old.id);
			DELETE FROM bounded_note_fts_ids WHERE id = old.id;
		END`,
		// The titles alone, for the walk of a broad query ([searchWalk]):
		// its rows come with their rids, and go before them.
		`CREATE VIRTUAL TABLE IF NOT EXISTS bounded_note_titles_fts USING fts5(
			title_fold, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
		)`,
		`CREATE TRIGGER IF NOT EXISTS bounded_note_titles_fts_insert AFTER INSERT ON bounded_note_fts_ids BEGIN
			INSERT INTO bounded_note_titles_fts (rowid, title_fold) SELECT new.rid, title_fold FROM bounded_notes WHERE id = new.id;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_note_titles_fts_update AFTER UPDATE OF title_fold ON bounded_notes BEGIN
			DELETE FROM bounded_note_titles_fts WHERE rowid = (SELECT rid FROM bounded_note_fts_ids WHERE id = old.id);
			INSERT INTO bounded_note_titles_fts (rowid, title_fold) SELECT rid, new.title_fold FROM bounded_note_fts_ids WHERE id = new.id;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_note_titles_fts_delete BEFORE DELETE ON bounded_notes BEGIN
			DELETE FROM bounded_note_titles_fts WHERE rowid = (SELECT rid FROM bounded_note_fts_ids WHERE id = old.id);
		END`,
	},
	NoteIndexTrigramGIN: {
		"CREATE EXTENSION IF NOT EXISTS pg_trgm",
		"CREATE INDEX IF NOT EXISTS bounded_notes_title_trgm ON bounded_notes USING gin (title_fold gin_trgm_ops)",
		"CREATE INDEX IF NOT EXISTS bounded_notes_content_trgm ON bounded_notes USING gin (content_fold gin_trgm_ops)",
	},
}

// createNoteIndex creates d's note index on db. A new FTS5 index is
// filled with the notes already stored, in the transaction that creates
// it. Without the right to create pg_trgm, Postgres goes without the
// GIN indexes: SearchNotes reads every note, with the same results.
func createNoteIndex(ctx context.Context, db bun.IDB, d Dialect) error {
	stmts := noteIndexSchema[d.NoteIndex]
	switch d.NoteIndex {
	case NoteIndexFTS5:
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var notes, titles int
			if err := tx.QueryRowContext(ctx,
				"SELECT count(*) FILTER (WHERE name = 'bounded_notes_fts_insert'), count(*) FILTER (WHERE name = 'bounded_note_titles_fts_insert')"+
					" FROM sqlite_master WHERE type = 'trigger'").Scan(&notes, &titles); err != nil {
				return fmt.Errorf("%s: create note index: %w", d.Name, err)
			}
			for _, s := range stmts {
				if _, err := tx.ExecContext(ctx, s); err != nil {
					return fmt.Errorf("%s: create note index: %w", d.Name, err)
				}
			}
			// A new index is filled with the notes stored; the ids'
			// trigger fills the titles' index.
			var fill []string
			switch {
			case notes == 0:
				fill = []string{
					"INSERT INTO bounded_note_fts_ids (id) SELECT id FROM bounded_notes WHERE id NOT IN (SELECT id FROM bounded_note_fts_ids)",
					"INSERT INTO bounded_notes_fts (rowid, title_fold, content_fold) SELECT i.rid, n.title_fold, n.content_fold" +
						" FROM bounded_note_fts_ids i JOIN bounded_notes n ON n.id = i.id",
				}
			case titles == 0:
				fill = []string{"INSERT INTO bounded_note_titles_fts (rowid, title_fold) SELECT i.rid, n.title_fold" +
					" FROM bounded_note_fts_ids i JOIN bounded_notes n ON n.id = i.id"}
			}
			for _, s := range fill {
				if _, err := tx.ExecContext(ctx, s); err != nil {
					return fmt.Errorf("%s: fill note index: %w", d.Name, err)
				}
			}
			return nil
		})
	case NoteIndexTrigramGIN:
		// Without the right to create pg_trgm, and without it installed,
		// there is no index, and the same results. The operator class is
		// named with the extension's schema, which need not be on the
		// search path.
		_, cerr := db.ExecContext(ctx, stmts[0])
		var schema string
		err := db.QueryRowContext(ctx,
			"SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'").Scan(&schema)
		if isNoRows(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: create note index: %w", d.Name, errors.Join(cerr, err))
		}
		ops := `"` + strings.ReplaceAll(schema, `"`, `""`) + `".gin_trgm_ops`
		for _, s := range stmts[1:] {
			if _, err := db.ExecContext(ctx, strings.ReplaceAll(s, "gin_trgm_ops", ops)); err != nil {
				return fmt.Errorf("%s: create note index: %w", d.Name, err)
			}
		}
	}
	return nil
}

// likeEscape escapes s for a LIKE pattern whose escape character is the
// backslash (Postgres' default).
var likeEscape = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// prefixRunes is s cut to its first n runes.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// maxIndexCandidates is the most candidates SQLite's FTS5 index may
// find for SearchNotes to read the notes through it for a page with the
// exact count: each candidate costs a lookup of its id and of its note,
// about five times what reading a note in a scan costs, so that a query
// found in more notes (a broad term) walks them in order instead
// ([searchWalk]). The results are the same either way.
const maxIndexCandidates = 20_000

// ftsPhrase is the FTS5 phrase of q's first indexPrefixRunes runes: an
// FTS5 string is literal but for its quotes, doubled.
func ftsPhrase(q string) string {
	return `"` + strings.ReplaceAll(prefixRunes(q, indexPrefixRunes), `"`, `""`) + `"`
}

// noteSearch is how SearchNotes finds a query's notes.
type noteSearch uint8

const (
	// searchScan reads every note: no index, or a query too short for it.
	searchScan noteSearch = iota
	// searchIndexed reads the candidates the note index finds.
	searchIndexed
	// searchWalk reads the notes in the order of the results, down the
	// index on (updated_at DESC, id), once for the notes whose title holds
	// the query and once for the others, each stopping at the page's end:
	// for a query found in many notes (a broad term), where a scan would
	// read and sort them all. The title branch reads the candidates of
	// the titles' index instead when they are few (titled).
	searchWalk
)

// noteSearchFor returns how SearchNotes should find the folded query q's
// notes for the request req. Under FTS5, a query of three characters or
// more is walked when it is dense: half a page of it (densityRows) is
// found among the densityNotes(req) most recently updated notes, counted
// by one probe that stops there; else its notes are found through the
// index. A walk finds the titles through the titles' index when it
// finds at most maxPagedIndexCandidates (titled), counted by the same
// probe. A page with the exact count, or a Dialect.BroadNotes set,
// decides as the index finds: through it when it finds at most that many
// notes (BroadNotes, or maxIndexCandidates), else walking. Postgres
// walks, and its planner chooses for each branch between the walk and the
// index.
func (s *Store) noteSearchFor(ctx context.Context, q string, req driver.Request) (how noteSearch, titled bool, err error) {
	if s.d.NoteIndex == NoteIndexNone || utf8.RuneCountInString(q) < minIndexRunes {
		return searchScan, false, nil
	}
	if s.d.NoteIndex != NoteIndexFTS5 {
		return searchWalk, false, nil
	}
	if req.Count != bounded.CountExact && s.d.BroadNotes == 0 {
		return s.densityProbe(ctx, q, req)
	}
	most := maxPagedIndexCandidates
	if req.Count == bounded.CountExact {
		most = maxIndexCandidates
	}
	most = cmp.Or(s.d.BroadNotes, most)
	few, err := s.ftsAtMost(ctx, "bounded_notes_fts", ftsPhrase(q), most)
	if err != nil || few {
		return searchIndexed, false, err
	}
	titled, err = s.ftsAtMost(ctx, "bounded_note_titles_fts", ftsPhrase(q), most)
	return searchWalk, titled, err
}

// indexFirst returns how many notes the FTS5 index may find for
// SearchNotes to read the folded query q's page of req through it first,
// in one statement (0: it does not try): for a page without the exact
// count, Dialect.BroadNotes or maxPagedIndexCandidates. Past them the
// statement reads no note, and noteSearchFor decides. Reading a few
// notes through the index costs about what the density probe would.
func (s *Store) indexFirst(q string, req driver.Request) int {
	if s.d.NoteIndex != NoteIndexFTS5 || utf8.RuneCountInString(q) < minIndexRunes || req.Count == bounded.CountExact {
		return 0
	}
	return cmp.Or(s.d.BroadNotes, maxPagedIndexCandidates)
}

// densityNotes is how many of the most recently updated notes the
// density probe of a page of req reads at most: ten pages' worth. A
// query found in densityRows(req) of them, one note in twenty, is dense.
func densityNotes(req driver.Request) int { return 10 * pageRows(req) }

// densityRows is half a page of req, rounded up: the matches the density
// probe looks for.
func densityRows(req driver.Request) int { return (pageRows(req) + 1) / 2 }

// densityProbe decides between the walk and the index for the folded
// query q and a page of req, in one statement (see [Store.noteSearchFor]).
// The titles' index is counted only for a dense query.
func (s *Store) densityProbe(ctx context.Context, q string, req driver.Request) (noteSearch, bool, error) {
	want := densityRows(req)
	var found, titles int
	a := &args{bind: s.d.BindArgs}
	query := "SELECT d.n, CASE WHEN d.n >= " + a.value(want) + " THEN" +
		" (SELECT count(*) FROM (SELECT 1 FROM bounded_note_titles_fts WHERE bounded_note_titles_fts MATCH " + a.value(ftsPhrase(q)) +
		" LIMIT " + a.value(maxPagedIndexCandidates+1) + ") AS t)" +
		" ELSE 0 END FROM (SELECT count(*) AS n FROM (SELECT 1 FROM" +
		" (SELECT n.title_fold AS t, n.content_fold AS c FROM bounded_notes AS n ORDER BY n.updated_at DESC, n.id LIMIT " + a.value(densityNotes(req)) + ") AS w" +
		" WHERE " + s.d.Instr + "(w.t, " + a.value(q) + ") > 0 OR " + s.d.Instr + "(w.c, " + a.value(q) + ") > 0 LIMIT " + a.value(want) + ") AS m) AS d"
	err := s.queryRowArgs(ctx, query, a, &found, &titles)
	if err != nil {
		return 0, false, s.wrapCtx(ctx, err)
	}
	if found < want {
		return searchIndexed, false, nil
	}
	return searchWalk, titles <= maxPagedIndexCandidates, nil
}

// ftsAtMost reports whether the FTS5 table finds at most most rows for
// the query match, counted by a probe that stops past them.
func (s *Store) ftsAtMost(ctx context.Context, table, match string, most int) (bool, error) {
	n, err := s.countsUpTo(ctx, table, table+" MATCH ?", [][]any{{match}}, most)
	if err != nil {
		return false, s.wrapCtx(ctx, err)
	}
	return n[0] <= int64(most), nil
}

// searchNotesQuery is the paged statement of SearchNotes for the folded
// query q and the request req, found as how says (see [noteSearch]): the
// notes whose title_fold or content_fold contains q, with their rank (0
// when the title contains it). Through the FTS5 index with most > 0, it
// reads no note when the index finds more than most, and its extra count
// column is how many it finds, up to most+1.
func (s *Store) searchNotesQuery(q string, how noteSearch, titled bool, most int, req driver.Request) paged {
	in := func(col string) string { return s.d.Instr + "(" + col + ", ?) > 0" }
	where := "(" + in("n.title_fold") + " OR " + in("n.content_fold") + ")"
	args := []any{q, q}
	keys := []key{{inner: "m.rnk", outer: "p.rnk", num: true}, {inner: "m.updated_at", outer: "p.updated_at", desc: true, num: true},
		{inner: "m.id", outer: "p.id"}}
	if how == searchIndexed && s.d.NoteIndex == NoteIndexFTS5 {
		// The index's candidates that match, each note's text searched
		// once for the count and the page.
		cands := "SELECT i.id FROM bounded_notes_fts f JOIN bounded_note_fts_ids i ON i.rid = f.rowid WHERE bounded_notes_fts MATCH ?"
		var with []cte
		var extra []column
		if most > 0 {
			// At most most candidates: past them no note is read, and the
			// extra column says how many there were, up to most+1.
			with = []cte{{"note_cands", s.db.NewRaw(cands+" LIMIT ?", ftsPhrase(q), most+1)}}
			cands = fmt.Sprintf("SELECT id FROM note_cands WHERE (SELECT count(*) FROM note_cands) <= %d", most)
			extra = []column{{expr: "(SELECT count(*) FROM note_cands) AS cands"}}
		}
		var matchArgs []any
		if most == 0 {
			matchArgs = append(matchArgs, ftsPhrase(q))
		}
		matches := s.db.NewRaw("SELECT "+noteRefCols+", CASE WHEN "+in("n.title_fold")+" THEN 0 ELSE 1 END AS rnk FROM bounded_notes AS n"+
			" WHERE n.id IN ("+cands+") AND "+where, append(append([]any{q}, matchArgs...), args...)...)
		return paged{
			with: append(with, cte{"note_matches", matches}), materialized: true,
			count: s.db.NewSelect().TableExpr("note_matches AS m"),
			extra: extra,
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.db.NewSelect().ColumnExpr("*").TableExpr("note_matches AS m"))
			},
			keys: keys,
		}
	}
	if (how == searchIndexed || how == searchWalk) && s.d.NoteIndex == NoteIndexTrigramGIN {
		pattern := "%" + likeEscape.Replace(prefixRunes(q, indexPrefixRunes)) + "%"
		where = "(n.title_fold LIKE ? OR n.content_fold LIKE ?) AND " + where
		args = append([]any{pattern, pattern}, args...)
	}
	count := s.from("bounded_notes AS n", where, args...)
	if how == searchWalk && s.d.NoteIndex == NoteIndexFTS5 && req.Count == bounded.CountCapped {
		// The capped count of a broad query reads the index's candidates
		// as the index finds them, and stops at the cap.
		count = s.db.NewSelect().TableExpr("bounded_notes_fts AS f").
			Join("JOIN bounded_note_fts_ids AS i ON i.rid = f.rowid").Join("JOIN bounded_notes AS n ON n.id = i.id").
			Where("bounded_notes_fts MATCH ?", ftsPhrase(q)).Where(where, args...)
	}
	page := func(c clauses) *bun.SelectQuery {
		ranked := s.from("bounded_notes AS n", where, args...).ColumnExpr(noteRefCols+", CASE WHEN "+in("n.title_fold")+" THEN 0 ELSE 1 END AS rnk", q)
		return c.apply(s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS m", ranked))
	}
	if how == searchWalk {
		titles, titleArgs := in("n.title_fold"), []any{q}
		contents, contentArgs := s.d.Instr+"(n.title_fold, ?) = 0 AND "+in("n.content_fold"), []any{q, q}
		switch {
		case titled:
			titles = "n.id IN (SELECT i.id FROM bounded_note_titles_fts f JOIN bounded_note_fts_ids i ON i.rid = f.rowid" +
				" WHERE bounded_note_titles_fts MATCH ?) AND " + titles
			titleArgs = []any{ftsPhrase(q), q}
		case s.d.NoteIndex == NoteIndexTrigramGIN:
			// The planner walks, or reads the GIN index's candidates and
			// sorts them, as it estimates the query's matches.
			pattern := "%" + likeEscape.Replace(prefixRunes(q, indexPrefixRunes)) + "%"
			titles, titleArgs = "n.title_fold LIKE ? AND "+titles, []any{pattern, q}
			contents, contentArgs = "n.content_fold LIKE ? AND "+contents, []any{pattern, q, q}
		}
		// The branch read second (of rank 1, or 0 backward) reads only
		// the rows the first leaves to the page, a LIMIT the engines
		// compute before reading: a query found in many titles reads no
		// other note.
		conds := [2]string{titles, contents}
		condArgs := [2][]any{titleArgs, contentArgs}
		order := [2]int64{0, 1}
		if req.Backward() {
			order = [2]int64{1, 0}
		}
		page = func(c clauses) *bun.SelectQuery {
			// Built here, once run has checked the cursor's keys.
			first := s.walkBranch(req, order[0], true, conds[order[0]], condArgs[order[0]]...)
			var second bunschema.QueryAppender
			if q := s.walkBranch(req, order[1], first == nil, conds[order[1]], condArgs[order[1]]...); q != nil {
				second = q
				if first != nil {
					second = bun.SafeQuery("? LIMIT ? - (SELECT count(*) FROM (?) AS f)", q, pageRows(req), first)
				}
			}
			var union bunschema.QueryAppender
			switch {
			case first == nil:
				union = second
			case second == nil:
				union = first
			default:
				union = s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS b0", first).
					UnionAll(s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS b1", second))
			}
			return c.apply(s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS m", union))
		}
	}
	var counted *bun.SelectQuery
	if s.d.NoteIndex == NoteIndexTrigramGIN {
		// The index's candidates are read once when they are few.
		counted = s.from("bounded_notes AS n", where, args...).ColumnExpr(noteRefCols+", CASE WHEN "+in("n.title_fold")+" THEN 0 ELSE 1 END AS rnk", q)
	}
	return paged{
		counted: counted,
		count:   count,
		page:    page,
		keys:    keys,
	}
}

// walkBranch is the branch of rank rank of a SearchNotes walk for req
// (see searchWalk): the notes passing cond, with the rank, in the order of
// the results from req's cursor (backward from it when req reads
// backward), with limit as many as the page may need (pageRows), else
// with no LIMIT; nil when the cursor is past them all.
func (s *Store) walkBranch(req driver.Request, rank int64, limit bool, cond string, args ...any) *bun.SelectQuery {
	keys := updatedKeys("n.updated_at", "n.id")
	var c clauses
	if limit {
		c.limit = pageRows(req)
	}
	if at := req.At; at != nil {
		switch r, _ := at.Keys[0].(int64); {
		case r == rank:
			var err error
			c.pred, c.predArgs, err = s.after(keys, &driver.Cursor{Backward: at.Backward, Keys: at.Keys[1:]})
			if err != nil {
				return nil // unreachable: run checked the same keys
			}
		case at.Backward == (rank > r):
			return nil
		}
	}
	c.order, c.orderArgs = s.orderBy(keys, false, req.Backward())
	return c.apply(s.from("bounded_notes AS n", cond, args...).ColumnExpr(noteRefCols+", ? AS rnk", rank))
}

// pageRows is the most rows a page of req reads from the start of its
// order, or from its cursor: the page, the row after it, and the rows its
// offset skips.
func pageRows(req driver.Request) int {
	if req.At != nil {
		return req.Limit + 1
	}
	return req.Limit + 1 + req.Offset
}
