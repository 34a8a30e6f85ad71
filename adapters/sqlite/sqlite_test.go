package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// open opens a new store in a fresh database file under t.TempDir().
func open(t *testing.T) adaptertest.Store {
	t.Helper()
	s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s
}

func TestDifferential(t *testing.T) { adaptertest.Differential(t, open) }

// TestConformance runs the conformance suite on a fresh database file per
// subtest.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		Name:    "sqlite",
		Cursors: true,
		New: func(t conformance.TB) conformance.Store {
			s, db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			t.Cleanup(func() { db.Close() })
			return conformance.Store{Notes: s, Knowledge: s, History: s, Code: s}
		},
	})
}

func TestHostileInput(t *testing.T) { adaptertest.Hostile(t, open) }

func TestHugeBody(t *testing.T) { adaptertest.HugeBody(t, open) }

func TestInCallersTx(t *testing.T) {
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "tx.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Open created the schema; drop it so that the rollback is seen to
	// remove the schema New creates inside the transaction.
	for _, table := range []string{"bounded_notes", "bounded_note_tags", "bounded_note_links", "bounded_note_backlinks", "bounded_note_parents",
		"bounded_entities", "bounded_entity_observations", "bounded_entity_tags", "bounded_entity_trigrams", "bounded_runs", "bounded_chunks", "bounded_chunk_terms"} {
		if _, err := db.Exec("DROP TABLE " + table); err != nil {
			t.Fatal(err)
		}
	}
	adaptertest.InTx(t, db, func(ctx context.Context, db bun.IDB) (adaptertest.Store, error) { return sqlite.New(ctx, db) })
}

func TestSignedCursors(t *testing.T) {
	adaptertest.SignedCursors(t, func(t *testing.T, key []byte) (ports.Notes, ports.Notes, ports.Notes) {
		path := filepath.Join(t.TempDir(), "signed.db")
		var stores []ports.Notes
		for _, opts := range [][]sqlite.Option{{sqlite.CursorKey(key)}, nil, {sqlite.CursorKey([]byte("another key"))}} {
			s, db, err := sqlite.Open(t.Context(), path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			stores = append(stores, s)
		}
		return stores[0], stores[1], stores[2]
	})
}

func TestRotatedCursors(t *testing.T) {
	adaptertest.RotatedCursors(t, func(t *testing.T, codecs ...driver.Codec) []ports.Notes {
		path := filepath.Join(t.TempDir(), "rotated.db")
		var stores []ports.Notes
		for _, c := range codecs {
			s, db, err := sqlite.Open(t.Context(), path, sqlite.Cursors(c))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			stores = append(stores, s)
		}
		return stores
	})
}
