package mysql_test

import (
	"context"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/internal/sqlstore"
	"github.com/boundedkit/bounded/adapters/mysql"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// TestSearchFuzzyPlaces checks fuzzy SearchNodes where it reads the
// first places of names against memrepo ([adaptertest.FuzzyPlacesWalk]).
func TestSearchFuzzyPlaces(t *testing.T) {
	adaptertest.FuzzyPlacesWalk(t, func(t *testing.T, broad int) ports.Knowledge {
		s, err := mysql.New(context.Background(), openDB(t), func(d *sqlstore.Dialect) { d.BroadFuzzy = broad })
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestTrigramPlaces(t *testing.T) {
	adaptertest.TrigramPlaces(t, openDB(t), "DROP INDEX bounded_entity_trigrams_pos ON bounded_entity_trigrams", func(db *bun.DB) (ports.Knowledge, error) {
		return mysql.New(context.Background(), db)
	})
}
