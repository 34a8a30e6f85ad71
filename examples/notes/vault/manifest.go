package vault

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// manifestFormat is the version of the rules a manifest's notes were
// built with; an import of a manifest of another version parses every
// note again (and rewrites those that come out different).
const manifestFormat = "2"

// The manifest's tables. The SQL is the same on SQLite and Postgres.
var manifestSchema = []string{
	`CREATE TABLE IF NOT EXISTS bounded_vault_files (
		path TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		size BIGINT NOT NULL,
		mtime BIGINT NOT NULL,
		id TEXT NOT NULL,
		name TEXT NOT NULL,
		dirty INTEGER NOT NULL,
		dup INTEGER NOT NULL,
		hash TEXT NOT NULL,
		note_mtime BIGINT NOT NULL,
		note_hash TEXT NOT NULL,
		links INTEGER NOT NULL,
		embeds INTEGER NOT NULL,
		broken INTEGER NOT NULL,
		missing INTEGER NOT NULL,
		err TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS bounded_vault_files_name ON bounded_vault_files (name)`,
	`CREATE INDEX IF NOT EXISTS bounded_vault_files_id ON bounded_vault_files (id)`,
	`CREATE INDEX IF NOT EXISTS bounded_vault_files_todo ON bounded_vault_files (path) WHERE dirty = 1 OR err <> ''`,
	`CREATE TABLE IF NOT EXISTS bounded_vault_refs (
		path TEXT NOT NULL,
		name TEXT NOT NULL,
		PRIMARY KEY (path, name))`,
	`CREATE INDEX IF NOT EXISTS bounded_vault_refs_name ON bounded_vault_refs (name)`,
	`CREATE TABLE IF NOT EXISTS bounded_vault_meta (
		key TEXT PRIMARY KEY,
		value TEXT NOT NULL)`,
}

// fileRow is a row of bounded_vault_files: a file of the vault as the
// last import left it.
type fileRow struct {
	bun.BaseModel `bun:"table:bounded_vault_files"`

	Path string `bun:"path,pk"`
	Kind string `bun:"kind"`
	// Size and Mtime (Unix nanoseconds, 0 when unknown) are the file's
	// when it was last read.
	Size  int64 `bun:"size"`
	Mtime int64 `bun:"mtime"`
	// ID is a note's ID, "" for an attachment; Name is [file.name].
	ID   string `bun:"id"`
	Name string `bun:"name"`
	// Dirty is 1 when the note must be parsed again: new, changed, or a
	// file its links may resolve to appeared or went.
	Dirty int `bun:"dirty"`
	// Dup is 1 when another file holds the note's ID.
	Dup int `bun:"dup"`
	// Hash is the content's hash when the note was last parsed;
	// NoteMtime the modification time its note was built with, and
	// NoteHash the note's [noteHash] when last stored ("" for never).
	Hash      string `bun:"hash"`
	NoteMtime int64  `bun:"note_mtime"`
	NoteHash  string `bun:"note_hash"`
	// The note's links, as [counts] counts them.
	Links   int `bun:"links"`
	Embeds  int `bun:"embeds"`
	Broken  int `bun:"broken"`
	Missing int `bun:"missing"`
	// Err is why the file was skipped; "" when it was imported.
	Err string `bun:"err"`
}

// refRow is a row of bounded_vault_refs: a note depends on the files of a
// name (see [parsedNote.deps]).
type refRow struct {
	bun.BaseModel `bun:"table:bounded_vault_refs"`

	Path string `bun:"path,pk"`
	Name string `bun:"name,pk"`
}

// nanos is t as stored: Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos is the time stored as ns.
func fromNanos(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// openManifest creates the manifest's tables if missing and returns
// whether it was empty, and whether its notes were built by rules of
// another version (then it records this version).
func openManifest(ctx context.Context, db bun.IDB) (empty, stale bool, err error) {
	for _, s := range manifestSchema {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return false, false, fmt.Errorf("vault: creating the manifest: %w", err)
		}
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM bounded_vault_files").Scan(ctx, &n); err != nil {
		return false, false, fmt.Errorf("vault: reading the manifest: %w", err)
	}
	var format string
	err = db.NewRaw("SELECT value FROM bounded_vault_meta WHERE key = 'format'").Scan(ctx, &format)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, false, fmt.Errorf("vault: reading the manifest: %w", err)
	case format == manifestFormat:
		return n == 0, false, nil
	}
	err = runInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE bounded_vault_files SET dirty = 1 WHERE kind = ?", KindNote); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO bounded_vault_meta (key, value) VALUES ('format', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, manifestFormat)
		return err
	})
	if err != nil {
		return false, false, fmt.Errorf("vault: updating the manifest: %w", err)
	}
	return n == 0, n > 0, nil
}

// chunk is the most values one IN list of the manifest's queries holds.
const chunk = 500

// chunks calls fn with the successive pieces of s of at most chunk
// values.
func chunks[T any](s []T, fn func([]T) error) error {
	for len(s) > 0 {
		n := min(len(s), chunk)
		if err := fn(s[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// rowsByPath returns the manifest's rows of paths, by path.
func rowsByPath(ctx context.Context, db bun.IDB, paths []string) (map[string]fileRow, error) {
	out := make(map[string]fileRow, len(paths))
	err := chunks(paths, func(ps []string) error {
		var rows []fileRow
		if err := db.NewSelect().Model(&rows).Where("path IN (?)", bun.List(ps)).Scan(ctx); err != nil {
			return err
		}
		for _, r := range rows {
			out[r.Path] = r
		}
		return nil
	})
	return out, err
}

// filesNamed returns a resolver holding the manifest's files of names.
func filesNamed(ctx context.Context, db bun.IDB, names []string) (resolver, error) {
	r := resolver{}
	err := chunks(names, func(ns []string) error {
		var rows []fileRow
		if err := db.NewSelect().Model(&rows).Column("path", "id").Where("name IN (?)", bun.List(ns)).Scan(ctx); err != nil {
			return err
		}
		for _, row := range rows {
			r.add(file{path: row.Path, id: row.ID})
		}
		return nil
	})
	return r, err
}

// markDependents marks dirty the notes whose links may resolve to files
// of names, and the note files of ids (which one holds an ID may change).
func markDependents(ctx context.Context, db bun.IDB, names, ids []string) error {
	err := chunks(names, func(ns []string) error {
		_, err := db.ExecContext(ctx, `UPDATE bounded_vault_files SET dirty = 1
			WHERE dirty = 0 AND path IN (SELECT path FROM bounded_vault_refs WHERE name IN (?))`, bun.List(ns))
		return err
	})
	if err != nil {
		return err
	}
	return chunks(ids, func(ids []string) error {
		_, err := db.ExecContext(ctx, "UPDATE bounded_vault_files SET dirty = 1 WHERE dirty = 0 AND kind = ? AND id IN (?)", KindNote, bun.List(ids))
		return err
	})
}

// setRefs deletes the refs of the notes at paths, then inserts refs.
func setRefs(ctx context.Context, db bun.IDB, paths []string, refs []refRow) error {
	err := chunks(paths, func(ps []string) error {
		_, err := db.NewDelete().Model((*refRow)(nil)).Where("path IN (?)", bun.List(ps)).Exec(ctx)
		return err
	})
	if err != nil || len(refs) == 0 {
		return err
	}
	_, err = db.NewInsert().Model(&refs).On("CONFLICT (path, name) DO NOTHING").Exec(ctx)
	return err
}

// totals are the manifest's sums, for a [Summary].
type totals struct {
	Notes       int `bun:"notes"`
	Attachments int `bun:"attachments"`
	Links       int `bun:"links"`
	Embeds      int `bun:"embeds"`
	Broken      int `bun:"broken"`
	Missing     int `bun:"missing"`
	Skipped     int `bun:"skipped"`
}

func readTotals(ctx context.Context, db bun.IDB) (totals, error) {
	var t totals
	err := db.NewRaw(`SELECT
		COALESCE(SUM(CASE WHEN kind = ? AND dup = 0 AND note_hash <> '' THEN 1 ELSE 0 END), 0) AS notes,
		COALESCE(SUM(CASE WHEN kind <> ? THEN 1 ELSE 0 END), 0) AS attachments,
		COALESCE(SUM(links), 0) AS links,
		COALESCE(SUM(embeds), 0) AS embeds,
		COALESCE(SUM(broken), 0) AS broken,
		COALESCE(SUM(missing), 0) AS missing,
		COALESCE(SUM(CASE WHEN err <> '' THEN 1 ELSE 0 END), 0) AS skipped
		FROM bounded_vault_files`, KindNote, KindNote).Scan(ctx, &t)
	return t, err
}

// runInTx runs fn in a transaction of db, its statements under ctx. The
// transaction is begun without ctx's cancellation, so that when ctx ends
// it is rolled back before runInTx returns, its connection back in the
// pool, rather than later by database/sql: a caller that closes db once
// the import returns then closes every connection.
func runInTx(ctx context.Context, db bun.IDB, fn func(context.Context, bun.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.RunInTx(context.WithoutCancel(ctx), nil, func(_ context.Context, tx bun.Tx) error {
		return fn(ctx, tx)
	})
}
