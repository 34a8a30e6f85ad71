package vault_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// TestFoldersAreTheHierarchy imports testVault into memrepo, SQLite and
// Postgres: a folder is the parent of what it holds, whether or not it has
// an index note (projects has one, projects/deep none), beside the parents
// a note's front matter names.
func TestFoldersAreTheHierarchy(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, store ports.Notes) {
		t.Helper()
		for _, c := range []struct {
			call string
			list func() ([]string, error)
			want []string
		}{
			{"Children(projects)", children(ctx, store, "projects"), []string{"projects/alpha", "projects/beta", "projects/deep"}},
			{"Children(projects/deep)", children(ctx, store, "projects/deep"), []string{"projects/deep/gamma"}},
			{"Children(Home)", children(ctx, store, "Home"), []string{"projects/alpha"}},
			{"Parents(projects/deep/gamma)", parents(ctx, store, "projects/deep/gamma"), []string{"projects/deep"}},
			{"Parents(projects/deep)", parents(ctx, store, "projects/deep"), []string{"projects"}},
			// By title: "Projects Index", "alpha".
			{"Parents(projects/beta)", parents(ctx, store, "projects/beta"), []string{"projects", "projects/alpha"}},
			{"Parents(projects)", parents(ctx, store, "projects"), nil},
		} {
			got, err := c.list()
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, %v; want %q", c.call, got, err, c.want)
			}
		}
	}
	t.Run("memrepo", func(t *testing.T) {
		store := memrepo.New()
		if _, err := vault.Import(ctx, testVault(), store); err != nil {
			t.Fatal(err)
		}
		check(t, store)
	})
	forEngines(t, func(t *testing.T, e engine) {
		db := e.open(t)
		if _, err := e.importer(db, 2).Import(ctx, testVault()); err != nil {
			t.Fatal(err)
		}
		store, err := e.store(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		check(t, store)
	})
}

// TestOldManifestRewritesParents imports a vault, then makes its manifest
// and stored notes what the rules of format 1 left (the index note of a
// note's folder among its Parents): the next import rewrites the notes.
func TestOldManifestRewritesParents(t *testing.T) {
	ctx := context.Background()
	forEngines(t, func(t *testing.T, e engine) {
		db := e.open(t)
		im := e.importer(db, 100)
		if _, err := im.Import(ctx, testVault()); err != nil {
			t.Fatal(err)
		}
		store, err := e.store(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		old, err := store.GetNote(ctx, "projects/deep/gamma", bounded.Window{})
		if err != nil {
			t.Fatal(err)
		}
		n := ports.Note{ID: old.ID, Title: old.Title, Content: old.Content, Tags: old.Tags, Parents: []string{"projects"},
			CreatedAt: old.CreatedAt, UpdatedAt: old.UpdatedAt}
		if err := store.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			"UPDATE bounded_vault_meta SET value = '1' WHERE key = 'format'",
			"UPDATE bounded_vault_files SET note_hash = 'format 1' WHERE id = 'projects/deep/gamma'",
		} {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := im.Import(ctx, testVault()); err != nil {
			t.Fatal(err)
		}
		got, err := parents(ctx, store, "projects/deep/gamma")()
		if err != nil || !slices.Equal(got, []string{"projects/deep"}) {
			t.Errorf("parents of projects/deep/gamma after the import: %q, %v; want its folder alone", got, err)
		}
	})
}

func children(ctx context.Context, s ports.Notes, id string) func() ([]string, error) {
	return func() ([]string, error) { return refIDs(s.Children(ctx, id, bounded.Page{Limit: 200})) }
}

func parents(ctx context.Context, s ports.Notes, id string) func() ([]string, error) {
	return func() ([]string, error) { return refIDs(s.Parents(ctx, id, bounded.Page{Limit: 200})) }
}

func refIDs(pg bounded.Paged[ports.NoteRef], err error) ([]string, error) {
	var ids []string
	for _, r := range pg.Items {
		ids = append(ids, r.ID)
	}
	if pg.Page.HasMore {
		return ids, fmt.Errorf("more than a page")
	}
	return ids, err
}
