package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
)

// TestStores bounds a result through one proxy and reads it to the end
// through another, the two sharing a store and a key as instances of
// bounded-mcp do: SQLite in a file, and Postgres at BOUNDED_PG_DSN.
func TestStores(t *testing.T) {
	ctx := context.Background()
	where := map[string]string{"sqlite": filepath.Join(t.TempDir(), "results.db")}
	if dsn := os.Getenv("BOUNDED_PG_DSN"); dsn != "" {
		where["postgres"] = dsn
	} else if os.Getenv("CI") == "true" {
		t.Error("BOUNDED_PG_DSN is not set: the Postgres store is not tested")
	}
	for name, w := range where {
		t.Run(name, func(t *testing.T) {
			var st upstreamState
			up := newUpstream(&st, false)
			key := []byte("a key both instances share, 32 b")
			var proxies []*proxy
			for range 2 {
				store, closeStore, err := openStore(ctx, w, result.Quota{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(closeStore)
				cfg := testConfig(inMemory(up))
				cfg.bounder = result.New(store, result.Options{Key: key})
				proxies = append(proxies, startProxy(t, cfg))
			}
			first := connect(t, proxies[0].server, "codex-mcp-client", nil, nil)
			second := connect(t, proxies[1].server, "codex-mcp-client", nil, nil)
			params := &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 2000}}
			orig, err := direct(t, up).CallTool(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			prof := profile.Default().For("codex-mcp-client")
			res, err := first.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("records: %v %v", err, res)
			}
			checkFits(t, "records", prof, res)
			got, reads := walk(t, second.CallTool, prof, res)
			checkWhole(t, orig, res, got)
			t.Logf("%d reads through the second instance", reads)
		})
	}
}
