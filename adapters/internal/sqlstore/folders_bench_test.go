package sqlstore_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/benchutil"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
)

// BenchmarkFolders measures the hierarchy of folders and the resolution
// of names over BOUNDED_FOLDER_NOTES notes (10,000 by default) in one
// folder (benchutil.Load), on SQLite and, with BOUNDED_PG_DSN, Postgres
// (in the schema bounded_bench_folders, made anew).
//
//	BOUNDED_FOLDER_NOTES=100000 go test -run '^$' -bench Folders -benchtime 5x ./adapters/internal/sqlstore
func BenchmarkFolders(b *testing.B) {
	n := 10_000
	if s := os.Getenv("BOUNDED_FOLDER_NOTES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	engines := map[string]func(b *testing.B) (ports.Notes, *bun.DB){
		"sqlite": func(b *testing.B) (ports.Notes, *bun.DB) {
			s, db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "folders.db"))
			if err != nil {
				b.Fatal(err)
			}
			return s, db
		},
	}
	if dsn := os.Getenv("BOUNDED_PG_DSN"); dsn != "" {
		engines["postgres"] = func(b *testing.B) (ports.Notes, *bun.DB) {
			admin, err := postgres.OpenDB(dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer admin.Close()
			for _, q := range []string{"DROP SCHEMA IF EXISTS bounded_bench_folders CASCADE", "CREATE SCHEMA bounded_bench_folders"} {
				if _, err := admin.Exec(q); err != nil {
					b.Fatal(err)
				}
			}
			u, err := url.Parse(dsn)
			if err != nil {
				b.Fatal(err)
			}
			q := u.Query()
			q.Set("search_path", "bounded_bench_folders")
			u.RawQuery = q.Encode()
			s, db, err := postgres.Open(ctx, u.String())
			if err != nil {
				b.Fatal(err)
			}
			return s, db
		}
	}
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("%07d", i*7%n)
	}
	some := make([]string, 50)
	for i := range some {
		some[i] = fmt.Sprintf("notes/%07d", i)
	}
	for name, open := range engines {
		b.Run(name, func(b *testing.B) {
			s, db := open(b)
			defer db.Close()
			if err := benchutil.Load(ctx, db, n); err != nil {
				b.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			for _, c := range []struct {
				name string
				call func() error
			}{
				{"ResolveNotes/basename", func() error { _, err := s.ResolveNotes(ctx, names[1:2]); return err }},
				{"ResolveNotes/path-other-case", func() error { _, err := s.ResolveNotes(ctx, []string{"NOTES/" + names[1]}); return err }},
				{"ResolveNotes/100-basenames", func() error { _, err := s.ResolveNotes(ctx, names); return err }},
				{"Children/folder", func() error { _, err := s.Children(ctx, "notes", bounded.Page{}); return err }},
				{"Descendants/folder-depth-1", func() error { _, err := s.Descendants(ctx, "notes", 1, bounded.Page{}); return err }},
				{"Parents/note", func() error { _, err := s.Parents(ctx, some[0], bounded.Page{}); return err }},
				{"ParentsOf/50-notes", func() error { _, err := s.ParentsOf(ctx, some, 5); return err }},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if err := c.call(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
