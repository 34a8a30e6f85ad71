package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/notes/internal/genvault"
)

// BenchmarkImport imports a generated vault (genvault) of
// BOUNDED_VAULT_NOTES notes, 2,000 by default, into SQLite: the first
// import into an empty database, then again unchanged.
//
//	BOUNDED_VAULT_NOTES=50000 go test -run '^$' -bench Import -benchtime 1x ./examples/notes/vault
func BenchmarkImport(b *testing.B) {
	n := 2000
	if s := os.Getenv("BOUNDED_VAULT_NOTES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	if _, err := genvault.Write(dir, genvault.Options{Notes: n}); err != nil {
		b.Fatal(err)
	}
	fsys := os.DirFS(dir)
	ctx := context.Background()
	e := engines[0]
	b.Run("first", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_, db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), strconv.Itoa(i)+".db"))
			if err != nil {
				b.Fatal(err)
			}
			if sum, err := e.importer(db, 0).Import(ctx, fsys); err != nil || sum.Added != n {
				b.Fatalf("%+v, %v", sum, err)
			}
			db.Close()
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		_, db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "vault.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		im := e.importer(db, 0)
		if _, err := im.Import(ctx, fsys); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if sum, err := im.Import(ctx, fsys); err != nil || sum.Added+sum.Changed+sum.Relinked+sum.Removed != 0 {
				b.Fatalf("%+v, %v", sum, err)
			}
		}
	})
}
