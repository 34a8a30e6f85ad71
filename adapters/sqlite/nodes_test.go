package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
)

func TestNodeMigration(t *testing.T) {
	_, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	adaptertest.NodeMigration(t, db, func(db *bun.DB) (ports.Notes, error) { return sqlite.New(context.Background(), db) })
}
