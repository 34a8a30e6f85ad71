package mysql_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/mysql"
	"github.com/boundedkit/bounded/ports"
)

func TestNodeMigration(t *testing.T) {
	adaptertest.NodeMigration(t, openDB(t), func(db *bun.DB) (ports.Notes, error) { return mysql.New(context.Background(), db) })
}
