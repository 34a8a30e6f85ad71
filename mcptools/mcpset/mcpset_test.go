package mcpset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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

	cl := mcptoolstest.Serve(t, server)
	env, _ := cl.Call("list_notes", `{"limit":1,"detail":"concise"}`)
	const hint = `Found 3 results, showing 1-1. 2 pages remain: call list_notes(detail="concise", cursor=<pagination.nextCursor>, limit=1) for the next.`
	next := fmt.Sprintf(`{"detail":"concise","cursor":%q,"limit":1}`, env.Pagination.NextCursor)
	if len(env.Results) != 1 || string(env.Results[0]) != `{"id":"areas/home","title":"areas/home"}` || env.Hint != hint || env.Pagination.NextCursor == "" || string(env.Next) != next {
		t.Errorf("list_notes: results %s, hint %q, next %s; want areas/home, %q, %s", env.Results, env.Hint, env.Next, hint, next)
	}
	second, _ := cl.Call("list_notes", string(env.Next))
	if !strings.Contains(second.Hint, "showing 2-2") || !strings.Contains(string(second.Next), `"cursor":`) {
		t.Errorf("list_notes(%s): hint %q, next %s; want the second result, continued by cursor", env.Next, second.Hint, second.Next)
	}
}

// failing is a store whose listing fails as a database would.
type failing struct{ *memrepo.Store }

func (failing) ListNotes(context.Context, ports.ListFilter, bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	return bounded.Paged[ports.NoteRef]{}, errors.New("sqlite: SQL logic error: no such table: notes (1)")
}

// TestStoreError: a store that fails as a database would gets an error
// result that tells the model what to do, not the database's message,
// which goes to the server's log; a note not found is said as it is.
func TestStoreError(t *testing.T) {
	var log bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	set, err := tools.New(tools.Config{Notes: failing{memrepo.New()}})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes"}, nil)
	mcpset.Add(server, set)
	c := mcptoolstest.Serve(t, server)
	got := c.Error("list_notes", `{}`)
	if !strings.HasPrefix(got, "list_notes: the results could not be read") || strings.Contains(got, "no such table") {
		t.Errorf("list_notes: %q; want what to do, without the database's message", got)
	}
	if !strings.Contains(log.String(), "no such table: notes") || !strings.Contains(log.String(), "tool=list_notes") {
		t.Errorf("log %q; want the cause and the tool", log.String())
	}
	if got := c.Error("get_note", `{"id":"nope"}`); !strings.Contains(got, "not found") {
		t.Errorf("get_note: %q; want not found", got)
	}
}
