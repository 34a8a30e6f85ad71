package mcpset_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcpset"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// TestAdd: a set's tool answers through the SDK's client as the set
// answers it, with its hint and next.
func TestAdd(t *testing.T) {
	store := memrepo.New()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, id := range []string{"projects/alpha", "projects/beta", "areas/home"} {
		if err := store.PutNote(context.Background(), ports.Note{ID: id, Title: id, Content: "text", CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	set, err := tools.New(tools.Config{Notes: store, Budget: mcptools.ClientBudget(bounded.ClaudeCode())})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes"}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	mcpset.Add(server, set)

	env, _ := mcptoolstest.Serve(t, server).Call("list_notes", `{"limit":1,"detail":"concise"}`)
	const hint = `Found 3 results, showing 1-1. 2 pages remain: call list_notes(detail="concise", offset=1, limit=1) for the next.`
	if len(env.Results) != 1 || string(env.Results[0]) != `{"id":"areas/home","title":"areas/home"}` || env.Hint != hint || string(env.Next) != `{"detail":"concise","offset":1,"limit":1}` {
		t.Errorf("list_notes: results %s, hint %q, next %s; want areas/home, %q", env.Results, env.Hint, env.Next, hint)
	}
}
