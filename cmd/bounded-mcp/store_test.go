package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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

// TestPrincipal checks over streamable HTTP, where each client has a
// session of its own, that a handle is bound to the session that got it,
// and with -principal to that name instead: another session reads it.
func TestPrincipal(t *testing.T) {
	ctx := context.Background()
	var st upstreamState
	up := newUpstream(&st, false)
	orig, err := direct(t, up).CallTool(ctx, &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 2000}})
	if err != nil {
		t.Fatal(err)
	}
	prof := profile.Default().For("codex-mcp-client")
	for _, principal := range []string{"", "me"} {
		cfg := testConfig(inMemory(up))
		cfg.principal = principal
		p := startProxy(t, cfg)
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.server }, nil))
		t.Cleanup(srv.Close)
		sessions := make([]*mcp.ClientSession, 2)
		for i := range sessions {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "codex-mcp-client"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, legacyProtocol)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			sessions[i] = cs
		}
		if sessions[0].ID() == "" || sessions[0].ID() == sessions[1].ID() {
			t.Fatalf("sessions %q and %q: want two of their own", sessions[0].ID(), sessions[1].ID())
		}
		// A new params: a call of the latest protocol writes its version
		// in the params' _meta.
		res, err := sessions[0].CallTool(ctx, &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 2000}})
		if err != nil || res.IsError {
			t.Fatalf("records: %v %v", err, res)
		}
		rep := report(t, res)
		if rep == nil || rep.Next == nil {
			t.Fatal("the result was not cut")
		}
		if principal == "" {
			raw, _ := rep.Next.MarshalJSON()
			var args map[string]any
			json.Unmarshal(raw, &args)
			got, err := sessions[1].CallTool(ctx, &mcp.CallToolParams{Name: "read_result", Arguments: args})
			if err != nil || !got.IsError || !strings.Contains(texts(got)[0], "another session's") {
				t.Errorf("another session read the handle: %v %v", err, got)
			}
			continue
		}
		read, _ := walk(t, sessions[1].CallTool, prof, res)
		checkWhole(t, orig, res, read)
	}
}
