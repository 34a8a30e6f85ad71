package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/uptrace/bun"
)

// BenchmarkSearch measures search at scale; see benchutil.RunSearch. The
// note index (of titles and contents, and of titles) is rebuilt by
// dropping it and opening the store again, which fills a new index from
// the stored notes; its size is read from dbstat.
func BenchmarkSearch(b *testing.B) {
	benchutil.RunSearch(b, func(b *testing.B, rows int) (benchutil.Store, *bun.DB) {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return s, db
	}, func(ctx context.Context, db *bun.DB) (time.Duration, int64, error) {
		if err := dropNoteIndex(ctx, db, true); err != nil {
			return 0, 0, err
		}
		start := time.Now()
		if _, err := sqlite.New(ctx, db); err != nil {
			return 0, 0, err
		}
		took := time.Since(start)
		var size int64
		err := db.QueryRowContext(ctx, "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'bounded_notes_fts%' OR name LIKE 'bounded_note_titles_fts%' OR name LIKE 'bounded_note_fts_ids%' OR name LIKE 'sqlite_autoindex_bounded_note_fts_ids%'").Scan(&size)
		return took, size, err
	})
}

// dropNoteIndex drops the titles' FTS5 index of the notes, as a database
// made before it was has none, and with all the rest of the note index.
func dropNoteIndex(ctx context.Context, db bun.IDB, all bool) error {
	stmts := []string{"DROP TRIGGER bounded_note_titles_fts_insert", "DROP TRIGGER bounded_note_titles_fts_update",
		"DROP TRIGGER bounded_note_titles_fts_delete", "DROP TABLE bounded_note_titles_fts"}
	if all {
		stmts = append(stmts, "DROP TRIGGER bounded_notes_fts_insert", "DROP TRIGGER bounded_notes_fts_update",
			"DROP TRIGGER bounded_notes_fts_delete", "DROP TABLE bounded_notes_fts", "DROP TABLE bounded_note_fts_ids")
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
