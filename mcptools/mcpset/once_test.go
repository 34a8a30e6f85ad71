package mcpset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/internal/probe"
	"github.com/boundedkit/bounded/mcptools/mcpset"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// TestOnceEach: one list_notes call, from the MCP handler to the store
// and back, parses its arguments once, normalizes its page once and
// encodes each result once, by offset, by cursor, with fields, and
// under MAX_MCP_OUTPUT_TOKENS.
func TestOnceEach(t *testing.T) {
	t.Setenv("MAX_MCP_OUTPUT_TOKENS", "5000")
	store := memrepo.New()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 12 {
		n := ports.Note{ID: fmt.Sprintf("n/%02d", i), Title: "note", Tags: []string{"x"}, CreatedAt: at, UpdatedAt: at.Add(time.Duration(i) * time.Hour)}
		if err := store.PutNote(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	set, err := tools.New(tools.Config{Notes: store})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes"}, nil)
	mcpset.Add(server, set)
	c := mcptoolstest.Serve(t, server)
	first, _ := c.Call("list_notes", `{"limit":3}`)
	for _, args := range []string{`{}`, `{"tag":"x","limit":5,"offset":2}`, `{"fields":["title"],"limit":4}`, `{"detail":"concise","limit":2,"budgetTokens":9000}`, string(first.Next)} {
		probe.Start()
		env, _ := c.Call("list_notes", args)
		parses, normalizations, encodings := probe.Stop()
		if n := int64(len(env.Results)); n == 0 || parses != 1 || normalizations != 1 || encodings != n {
			t.Errorf("list_notes(%s): %d results, %d parses of the arguments, %d page normalizations, %d encodings; want one parse, one normalization, one encoding each",
				args, n, parses, normalizations, encodings)
		}
	}
}
