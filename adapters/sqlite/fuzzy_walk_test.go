package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// TestSearchFuzzyPlaces checks fuzzy SearchNodes where it reads the
// first places of names against memrepo ([adaptertest.FuzzyPlacesWalk]).
func TestSearchFuzzyPlaces(t *testing.T) {
	adaptertest.FuzzyPlacesWalk(t, func(t *testing.T, broad int) ports.Knowledge {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fuzzy.db"), func(d *sqlstore.Dialect) { d.BroadFuzzy = broad })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s
	})
}

func TestTrigramPlaces(t *testing.T) {
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "places.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	adaptertest.TrigramPlaces(t, db, "DROP INDEX bounded_entity_trigrams_pos", func(db *bun.DB) (ports.Knowledge, error) { return sqlite.New(context.Background(), db) })
}
