package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The knowledge index finds the candidates of SearchNodes in Exact mode:
// the entities whose folded name or type, or one of whose folded
// observations, may contain a folded query. The dialect's [NoteIndex]
// names its kind, as for the notes:
//
//   - NoteIndexFTS5: an FTS5 table bounded_entities_fts with the trigram
//     tokenizer (case-sensitive: it indexes the folded copies), one row
//     per entity (fold: name_fold, type_fold) and one per observation
//     (fold: its fold, type_fold empty), filled by triggers on
//     bounded_entities and bounded_entity_observations in the writing
//     statement's transaction. Its rowids are those of a side table
//     bounded_entity_fts_ids (rid, name, pos), pos -1 for the entity's
//     own row, an observation's pos otherwise.
//   - NoteIndexTrigramGIN: pg_trgm GIN indexes on name_fold, type_fold
//     and the observations' fold, serving LIKE '%query%'.
//   - NoteIndexNone: no index; every entity is read.
//
// Whatever the index, the results are those of the shared substring test
// ([Dialect.Instr]): the index only narrows the rows it checks.
var knowledgeIndexSchema = map[NoteIndex][]string{
	NoteIndexFTS5: {
		`CREATE TABLE IF NOT EXISTS bounded_entity_fts_ids (
			rid INTEGER PRIMARY KEY,
			name TEXT NOT NULL,
			pos BIGINT NOT NULL,
			UNIQUE (name, pos)
		)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS bounded_entities_fts USING fts5(
			fold, type_fold, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
		)`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entities_fts_insert AFTER INSERT ON bounded_entities BEGIN
			INSERT INTO bounded_entity_fts_ids (name, pos) VALUES (new.name, -1);
			INSERT INTO bounded_entities_fts (rowid, fold, type_fold)
				SELECT rid, new.name_fold, new.type_fold FROM bounded_entity_fts_ids WHERE name = new.name AND pos = -1;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entities_fts_update AFTER UPDATE OF name, name_fold, type_fold ON bounded_entities
			WHEN old.name IS NOT new.name OR old.name_fold IS NOT new.name_fold OR old.type_fold IS NOT new.type_fold BEGIN
			DELETE FROM bounded_entities_fts WHERE rowid = (SELECT rid FROM bounded_entity_fts_ids WHERE name = old.name AND pos = -1);
			DELETE FROM bounded_entity_fts_ids WHERE name = old.name AND pos = -1;
			INSERT INTO bounded_entity_fts_ids (name, pos) VALUES (new.name, -1);
			INSERT INTO bounded_entities_fts (rowid, fold, type_fold)
				SELECT rid, new.name_fold, new.type_fold FROM bounded_entity_fts_ids WHERE name = new.name AND pos = -1;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entities_fts_delete AFTER DELETE ON bounded_entities BEGIN
			DELETE FROM bounded_entities_fts WHERE rowid = (SELECT rid FROM bounded_entity_fts_ids WHERE name = old.name AND pos = -1);
			DELETE FROM bounded_entity_fts_ids WHERE name = old.name AND pos = -1;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entity_observations_fts_insert AFTER INSERT ON bounded_entity_observations BEGIN
			INSERT INTO bounded_entity_fts_ids (name, pos) VALUES (new.name, new.pos);
			INSERT INTO bounded_entities_fts (rowid, fold, type_fold)
				SELECT rid, new.fold, '' FROM bounded_entity_fts_ids WHERE name = new.name AND pos = new.pos;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entity_observations_fts_update AFTER UPDATE ON bounded_entity_observations BEGIN
			DELETE FROM bounded_entities_fts WHERE rowid = (SELECT rid FROM bounded_entity_fts_ids WHERE name = old.name AND pos = old.pos);
			DELETE FROM bounded_entity_fts_ids WHERE name = old.name AND pos = old.pos;
			INSERT INTO bounded_entity_fts_ids (name, pos) VALUES (new.name, new.pos);
			INSERT INTO bounded_entities_fts (rowid, fold, type_fold)
				SELECT rid, new.fold, '' FROM bounded_entity_fts_ids WHERE name = new.name AND pos = new.pos;
		END`,
		`CREATE TRIGGER IF NOT EXISTS bounded_entity_observations_fts_delete AFTER DELETE ON bounded_entity_observations BEGIN
			DELETE FROM bounded_entities_fts WHERE rowid = (SELECT rid FROM bounded_entity_fts_ids WHERE name = old.name AND pos = old.pos);
			DELETE FROM bounded_entity_fts_ids WHERE name = old.name AND pos = old.pos;
		END`,
	},
	NoteIndexTrigramGIN: {
		"CREATE INDEX IF NOT EXISTS bounded_entities_name_fold_trgm ON bounded_entities USING gin (name_fold gin_trgm_ops)",
		"CREATE INDEX IF NOT EXISTS bounded_entities_type_fold_trgm ON bounded_entities USING gin (type_fold gin_trgm_ops)",
		"CREATE INDEX IF NOT EXISTS bounded_entity_observations_fold_trgm ON bounded_entity_observations USING gin (fold gin_trgm_ops)",
	},
}

// knowledgeFTSTriggers are the triggers keeping the FTS5 knowledge index
// current.
var knowledgeFTSTriggers = []string{
	"bounded_entities_fts_insert", "bounded_entities_fts_update", "bounded_entities_fts_delete",
	"bounded_entity_observations_fts_insert", "bounded_entity_observations_fts_update", "bounded_entity_observations_fts_delete",
}

// knowledgeFTSFill rebuilds the FTS5 knowledge index from the stored
// entities and observations.
var knowledgeFTSFill = []string{
	"INSERT INTO bounded_entities_fts (bounded_entities_fts) VALUES ('delete-all')",
	"DELETE FROM bounded_entity_fts_ids",
	"INSERT INTO bounded_entity_fts_ids (name, pos) SELECT name, -1 FROM bounded_entities",
	"INSERT INTO bounded_entity_fts_ids (name, pos) SELECT name, pos FROM bounded_entity_observations",
	"INSERT INTO bounded_entities_fts (rowid, fold, type_fold) SELECT i.rid, e.name_fold, e.type_fold" +
		" FROM bounded_entity_fts_ids i JOIN bounded_entities e ON e.name = i.name WHERE i.pos = -1",
	"INSERT INTO bounded_entities_fts (rowid, fold, type_fold) SELECT i.rid, o.fold, ''" +
		" FROM bounded_entity_fts_ids i JOIN bounded_entity_observations o ON o.name = i.name AND o.pos = i.pos",
}

// createKnowledgeIndex creates the places of the trigram table
// ([createTrigramPlaces]) and d's knowledge index on db, after the
// shared tables and the note index (which creates pg_trgm). Under FTS5, a
// missing trigger means the index may have missed writes (a new index, or
// a table dropped and created again): the index is rebuilt from the
// stored entities in the transaction that creates the triggers. Without
// pg_trgm, Postgres goes without the GIN indexes: SearchNodes reads every
// entity, with the same results.
func createKnowledgeIndex(ctx context.Context, db bun.IDB, d Dialect) error {
	if err := createTrigramPlaces(ctx, db, d); err != nil {
		return err
	}
	stmts := knowledgeIndexSchema[d.NoteIndex]
	switch d.NoteIndex {
	case NoteIndexFTS5:
		return createFTS(ctx, db, d, "knowledge", stmts, knowledgeFTSTriggers, knowledgeFTSFill)
	case NoteIndexTrigramGIN:
		ops, err := trgmOps(ctx, db)
		if err != nil {
			return fmt.Errorf("%s: create knowledge index: %w", d.Name, err)
		}
		if ops == "" {
			return nil
		}
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, strings.ReplaceAll(s, "gin_trgm_ops", ops)); err != nil {
				return fmt.Errorf("%s: create knowledge index: %w", d.Name, err)
			}
		}
	}
	return nil
}

// createFTS runs stmts, the DDL of an FTS5 index (of what) and of the
// triggers keeping it current, in one transaction. When one of the named
// triggers was missing before, the index may lack stored rows (it is
// new, or its table was created again): fill then fills it from them, in
// the same transaction.
func createFTS(ctx context.Context, db bun.IDB, d Dialect, what string, stmts, triggers, fill []string) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var found int
		if err := tx.QueryRowContext(ctx,
			"SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?)", bun.List(triggers)).Scan(&found); err != nil {
			return fmt.Errorf("%s: create %s index: %w", d.Name, what, err)
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("%s: create %s index: %w", d.Name, what, err)
			}
		}
		if found == len(triggers) {
			return nil
		}
		for _, s := range fill {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("%s: fill %s index: %w", d.Name, what, err)
			}
		}
		return nil
	})
}

// trgmOps is pg_trgm's GIN operator class named with the extension's
// schema, which need not be on the search path; "" when pg_trgm is not
// installed.
func trgmOps(ctx context.Context, db bun.IDB) (string, error) {
	var schema string
	err := db.QueryRowContext(ctx,
		"SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'").Scan(&schema)
	if isNoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return `"` + strings.ReplaceAll(schema, `"`, `""`) + `".gin_trgm_ops`, nil
}

// maxPagedIndexCandidates is the most candidates an FTS5 index (of the
// knowledge graph, or of the notes: [searchWalk]) may find for a page that
// does not count every match (a capped count, or none) to be read through
// it. Such a page, read in page order (UpdatedAt, then name: the
// bounded_entities_updated index, and likewise for notes), stops after
// its rows and the capped count's: a broad query finds them within the
// first rows read, where the probe alone would read its candidates up to
// the limit. A page with the exact
// count reads every entity without the index, so it keeps
// maxIndexCandidates.
const maxPagedIndexCandidates = 2_000

// useKnowledgeIndex reports whether SearchNodes should find the
// candidates of the folded queries qs through the dialect's knowledge
// index, for a page whose count is exact (exact) or not. Every query must
// be three characters or more: a trigram index cannot find the texts
// containing a shorter one, so one short query makes the statement read
// every entity, as it does without an index. Under FTS5 the index must
// also find at most maxIndexCandidates rows (maxPagedIndexCandidates
// without the exact count) for all the queries together, counted by a
// probe that stops there; a broader query reads the entities in page
// order instead. Postgres' planner makes that choice itself
// ([Store.searchExactGIN]).
func (s *Store) useKnowledgeIndex(ctx context.Context, qs []string, exact bool) (bool, error) {
	if s.d.NoteIndex == NoteIndexNone {
		return false, nil
	}
	for _, q := range qs {
		if utf8.RuneCountInString(q) < minIndexRunes {
			return false, nil
		}
	}
	if s.d.NoteIndex != NoteIndexFTS5 {
		return true, nil
	}
	most := maxPagedIndexCandidates
	if exact {
		most = maxIndexCandidates
	}
	return s.ftsAtMost(ctx, "bounded_entities_fts", ftsQuery(qs), most)
}

// ftsQuery is the FTS5 query finding the rows that contain any of the
// folded queries qs: their phrases ([ftsPhrase]) joined by OR.
func ftsQuery(qs []string) string {
	phrases := make([]string, len(qs))
	for i, q := range qs {
		phrases[i] = ftsPhrase(q)
	}
	return strings.Join(phrases, " OR ")
}

// exactMatch is the shared test of SearchNodes in Exact mode for the
// folded queries qs, over entities e: the name or the type contains a
// query, or an observation read from obs (as o) does.
func (s *Store) exactMatch(qs []string, obs string) (string, []any) {
	var or []string
	var args []any
	for _, q := range qs {
		or = append(or, s.d.Instr+"(e.name_fold, ?) > 0 OR "+s.d.Instr+"(e.type_fold, ?) > 0 OR e.name IN (SELECT o.name FROM "+obs+" WHERE "+s.d.Instr+"(o.fold, ?) > 0)")
		args = append(args, q, q, q)
	}
	return "(" + strings.Join(or, " OR ") + ")", args
}

// searchExactFTS5 is the statement of SearchNodes in Exact mode through
// the FTS5 index: the candidates (cand: the entity and the position of
// each of the index's rows matching a query, pos -1 for the entity's own
// row) are read once, for the count and the page; the shared test then
// checks the candidate entities, reading only the candidate observations.
func (s *Store) searchExactFTS5(qs []string, tagWhere []string, tagArgs []any) paged {
	// CROSS JOIN makes SQLite read cand first, then each candidate
	// observation by its key, where its estimates might rather scan them.
	match, args := s.exactMatch(qs, "cand CROSS JOIN bounded_entity_observations o ON o.name = cand.name AND o.pos = cand.pos")
	pq := s.exactPage("e.name IN (SELECT cand.name FROM cand) AND "+match, args, tagWhere, tagArgs)
	pq.with = []cte{{"cand", s.db.NewRaw("SELECT i.name AS name, i.pos AS pos FROM bounded_entities_fts f"+
		" JOIN bounded_entity_fts_ids i ON i.rid = f.rowid WHERE bounded_entities_fts MATCH ?", ftsQuery(qs))}}
	return pq
}

// searchExactGIN is the statement of SearchNodes in Exact mode through
// the GIN trigram indexes, one condition over bounded_entities that the
// planner may serve with a bitmap OR of three index scans, or walk in
// page order for a broad query: the name or type is LIKE '%prefix%' for
// a query (the name_fold and type_fold indexes) and passes the shared
// test; or the name is one of the entities with an observation that is
// LIKE '%prefix%' (the observations' fold index) and passes the shared
// test, an array computed once per statement. (A subquery in an OR, as in
// the shared test, would make Postgres read every entity.)
func (s *Store) searchExactGIN(qs []string, tagWhere []string, tagArgs []any) paged {
	in := func(col string) string { return s.d.Instr + "(" + col + ", ?) > 0" }
	var like, named, obsLike, obsIn []string
	var likeArgs, namedArgs, obsLikeArgs, obsInArgs []any
	for _, q := range qs {
		pattern := "%" + likeEscape.Replace(prefixRunes(q, indexPrefixRunes)) + "%"
		like = append(like, "e.name_fold LIKE ? OR e.type_fold LIKE ?")
		likeArgs = append(likeArgs, pattern, pattern)
		named = append(named, in("e.name_fold")+" OR "+in("e.type_fold"))
		namedArgs = append(namedArgs, q, q)
		obsLike = append(obsLike, "o.fold LIKE ?")
		obsLikeArgs = append(obsLikeArgs, pattern)
		obsIn = append(obsIn, in("o.fold"))
		obsInArgs = append(obsInArgs, q)
	}
	where := "((" + strings.Join(like, " OR ") + ") AND (" + strings.Join(named, " OR ") + ")" +
		" OR e.name = ANY (ARRAY(SELECT o.name FROM bounded_entity_observations o WHERE (" + strings.Join(obsLike, " OR ") + ") AND (" +
		strings.Join(obsIn, " OR ") + "))))"
	var args []any
	for _, a := range [][]any{likeArgs, namedArgs, obsLikeArgs, obsInArgs} {
		args = append(args, a...)
	}
	return s.exactPage(where, args, tagWhere, tagArgs)
}

// exactPage is the paged statement of SearchNodes in Exact mode over the
// entities e meeting cond (with its arguments args) and every condition
// of tagWhere (with tagArgs).
func (s *Store) exactPage(cond string, args []any, tagWhere []string, tagArgs []any) paged {
	where := cond
	for _, w := range tagWhere {
		where += " AND " + w
	}
	args = append(args[:len(args):len(args)], tagArgs...)
	return paged{
		count: s.from("bounded_entities AS e", where, args...),
		page: func(c clauses) *bun.SelectQuery {
			return c.apply(s.from("bounded_entities AS e", where, args...).ColumnExpr(entityCols + ", 1.0 AS score"))
		},
		keys: []key{{inner: "e.updated_at", outer: "p.updated_at", desc: true, num: true}, {inner: "e.name", outer: "p.name"}},
	}
}
