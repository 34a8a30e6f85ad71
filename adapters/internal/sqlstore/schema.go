package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// schema is the DDL of the shared tables; {T} stands for [Dialect.Text].
// Every statement is idempotent (IF NOT EXISTS), so New may run it on every
// start. There is no migration framework yet: a future schema change will
// add one (bun's migrate package) and start from this version.
//
// Times are BIGINT unix microseconds (UTC): exact, sortable and identical
// on every engine. Folded copies (*_fold) hold [ports.Fold] of the text,
// computed in Go, so that case-insensitive matching is the same everywhere.
// Tags and observations are also kept on their row as JSON, so that a page
// is read by one statement; the side tables serve filtering.
//
// Each index matches the ORDER BY it serves, direction included. Large
// columns come last in their rows: SQLite reads a row's columns in order,
// through the overflow pages of any large one before them.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS bounded_notes (
		id {T} NOT NULL PRIMARY KEY,
		title {T} NOT NULL,
		tags {T} NOT NULL,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL,
		title_fold {T} NOT NULL,
		content {T} NOT NULL,
		content_fold {T} NOT NULL
	)`,
	// ListNotes, SearchByLinks: ORDER BY updated_at DESC, id.
	`CREATE INDEX IF NOT EXISTS bounded_notes_updated ON bounded_notes (updated_at DESC, id)`,
	// The note's updated_at is copied here so that ListNotes by tag walks
	// an index in page order.
	`CREATE TABLE IF NOT EXISTS bounded_note_tags (
		note_id {T} NOT NULL,
		tag {T} NOT NULL,
		updated_at BIGINT NOT NULL,
		PRIMARY KEY (note_id, tag)
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_note_tags_list ON bounded_note_tags (tag, updated_at DESC, note_id)`,
	`CREATE TABLE IF NOT EXISTS bounded_note_links (
		source_id {T} NOT NULL,
		pos BIGINT NOT NULL,
		target {T} NOT NULL,
		is_external SMALLINT NOT NULL,
		link_text {T} NOT NULL,
		host {T} NOT NULL,
		PRIMARY KEY (source_id, pos)
	)`,
	// Incoming links: ORDER BY source_id, pos for one target.
	`CREATE INDEX IF NOT EXISTS bounded_note_links_target ON bounded_note_links (target, is_external, source_id, pos)`,
	// One row per (target, source) pair of internal links, with the
	// source's updated_at, so that Backlinks walks an index in page order.
	`CREATE TABLE IF NOT EXISTS bounded_note_backlinks (
		target {T} NOT NULL,
		source_id {T} NOT NULL,
		updated_at BIGINT NOT NULL,
		PRIMARY KEY (target, source_id)
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_note_backlinks_list ON bounded_note_backlinks (target, updated_at DESC, source_id)`,
	`CREATE INDEX IF NOT EXISTS bounded_note_backlinks_source ON bounded_note_backlinks (source_id)`,
	`CREATE TABLE IF NOT EXISTS bounded_note_parents (
		note_id {T} NOT NULL,
		parent_id {T} NOT NULL,
		PRIMARY KEY (note_id, parent_id)
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_note_parents_parent ON bounded_note_parents (parent_id, note_id)`,
	// The hierarchy's nodes: every note and every folder (see tree.go).
	`CREATE TABLE IF NOT EXISTS bounded_note_nodes (
		id {T} NOT NULL PRIMARY KEY,
		is_note SMALLINT NOT NULL,
		below BIGINT NOT NULL,
		depth BIGINT NOT NULL,
		name_fold {T} NOT NULL,
		title {T} NOT NULL,
		id_fold {T} NOT NULL
	)`,
	// ResolveNotes: the nodes of a folded last element.
	`CREATE INDEX IF NOT EXISTS bounded_note_nodes_name ON bounded_note_nodes (name_fold, id)`,

	`CREATE TABLE IF NOT EXISTS bounded_entities (
		name {T} NOT NULL PRIMARY KEY,
		entity_type {T} NOT NULL,
		tags {T} NOT NULL,
		updated_at BIGINT NOT NULL,
		trigram_count BIGINT NOT NULL,
		name_fold {T} NOT NULL,
		type_fold {T} NOT NULL,
		observations {T} NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_entities_updated ON bounded_entities (updated_at DESC, name)`,
	`CREATE TABLE IF NOT EXISTS bounded_entity_observations (
		name {T} NOT NULL,
		pos BIGINT NOT NULL,
		fold {T} NOT NULL,
		PRIMARY KEY (name, pos)
	)`,
	`CREATE TABLE IF NOT EXISTS bounded_entity_tags (
		name {T} NOT NULL,
		tag {T} NOT NULL,
		PRIMARY KEY (name, tag)
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_entity_tags_tag ON bounded_entity_tags (tag, name)`,
	// Filled only under FuzzyTrigramTable. trigram_count is the name's
	// (bounded_entities.trigram_count): fuzzy search reads the names of
	// one count at a time.
	`CREATE TABLE IF NOT EXISTS bounded_entity_trigrams (
		trigram {T} NOT NULL,
		trigram_count BIGINT NOT NULL,
		name {T} NOT NULL,
		PRIMARY KEY (trigram, trigram_count, name)
	)`,

	`CREATE TABLE IF NOT EXISTS bounded_runs (
		id {T} NOT NULL PRIMARY KEY,
		endpoint_id {T} NOT NULL,
		started_at BIGINT NOT NULL,
		finished_at BIGINT NOT NULL,
		status {T} NOT NULL,
		status_code BIGINT NOT NULL,
		body_chars BIGINT NOT NULL,
		body {T} NOT NULL
	)`,
	// ResponseHistory: ORDER BY started_at DESC, id DESC for one endpoint.
	`CREATE INDEX IF NOT EXISTS bounded_runs_history ON bounded_runs (endpoint_id, started_at DESC, id DESC)`,

	`CREATE TABLE IF NOT EXISTS bounded_chunks (
		id {T} NOT NULL PRIMARY KEY,
		file_path {T} NOT NULL,
		language {T} NOT NULL,
		start_line BIGINT NOT NULL,
		end_line BIGINT NOT NULL,
		content {T} NOT NULL,
		context_before {T} NOT NULL,
		context_after {T} NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS bounded_chunk_terms (
		term {T} NOT NULL,
		chunk_id {T} NOT NULL,
		PRIMARY KEY (term, chunk_id)
	)`,
	`CREATE INDEX IF NOT EXISTS bounded_chunk_terms_chunk ON bounded_chunk_terms (chunk_id)`,
}

// chunkOrderIndex serves SearchCode's walk of the chunks in the order of
// its results ([codeWalk]).
const chunkOrderIndex = `CREATE INDEX IF NOT EXISTS bounded_chunks_order ON bounded_chunks (file_path, start_line, id)`

// createSchema runs the dialect's DDL and the shared tables' on db, then
// creates the dialect's note and knowledge indexes.
func createSchema(ctx context.Context, db bun.IDB, d Dialect) error {
	shared := schema
	if d.Schema != nil {
		shared = d.Schema
	}
	stmts := append(append(append([]string(nil), d.SchemaBefore...), shared...), d.SchemaAfter...)
	for _, s := range stmts {
		s = strings.ReplaceAll(s, "{T}", d.Text)
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: create schema: %w", d.Name, err)
		}
	}
	if err := migrateTrigrams(ctx, db, d, shared); err != nil {
		return err
	}
	if err := migrateNodes(ctx, db, d); err != nil {
		return err
	}
	if !d.ConstLimit {
		if _, err := db.ExecContext(ctx, chunkOrderIndex); err != nil {
			return fmt.Errorf("%s: create schema: %w", d.Name, err)
		}
	}
	if err := createNoteIndex(ctx, db, d); err != nil {
		return err
	}
	return createKnowledgeIndex(ctx, db, d)
}

// migrateTrigrams rebuilds a bounded_entity_trigrams table made before it
// held each name's trigram count, from the entities' counts, in one
// transaction.
func migrateTrigrams(ctx context.Context, db bun.IDB, d Dialect, shared []string) error {
	var n int
	var err error
	if d.CurrentSchema == "" {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('bounded_entity_trigrams') WHERE name = 'trigram_count'").Scan(&n)
	} else {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_schema = "+d.CurrentSchema+
			" AND table_name = 'bounded_entity_trigrams' AND column_name = 'trigram_count'").Scan(&n)
	}
	if err != nil || n > 0 {
		return wrapSchema(d, err)
	}
	create := ""
	for _, stmt := range shared {
		if strings.Contains(stmt, "CREATE TABLE IF NOT EXISTS bounded_entity_trigrams (") {
			create = strings.ReplaceAll(strings.Replace(stmt, "bounded_entity_trigrams (", "bounded_entity_trigrams_v2 (", 1), "{T}", d.Text)
		}
	}
	return wrapSchema(d, db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, stmt := range []string{
			create,
			"INSERT INTO bounded_entity_trigrams_v2 (trigram, trigram_count, name) SELECT t.trigram, e.trigram_count, t.name" +
				" FROM bounded_entity_trigrams t JOIN bounded_entities e ON e.name = t.name",
			"DROP TABLE bounded_entity_trigrams",
			"ALTER TABLE bounded_entity_trigrams_v2 RENAME TO bounded_entity_trigrams",
		} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}))
}

// wrapSchema is err, if any, as an error of creating d's schema.
func wrapSchema(d Dialect, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: create schema: %w", d.Name, err)
}
