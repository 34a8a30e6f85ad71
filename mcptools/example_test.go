package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// Run is an application's own data.
type Run struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
}

// ListRuns are the arguments of list_runs besides the paging ones.
type ListRuns struct {
	Status string `json:"status,omitempty" jsonschema:"only runs with this status"`
}

func ExampleAddTool() {
	runs := []Run{{1, "ok"}, {2, "failed"}, {3, "ok"}, {4, "ok"}, {5, "failed"}}
	server := mcp.NewServer(&mcp.Implementation{Name: "runs"}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	mcptools.AddTool(server, &mcp.Tool{Name: "list_runs", Description: "Lists the runs, oldest first."},
		mcptools.Options[Run]{Limits: bounded.Limits{Default: 2, Max: 10}},
		func(ctx context.Context, req *mcp.CallToolRequest, in ListRuns) (bounded.Source[Run], error) {
			var matching []Run
			for _, r := range runs {
				if in.Status == "" || r.Status == in.Status {
					matching = append(matching, r)
				}
			}
			return bounded.FromSlice(matching), nil
		})

	printCall(server, "list_runs", `{"status":"ok"}`)
	// Output:
	// results [{"id":1,"status":"ok"},{"id":3,"status":"ok"}]
	// hint Found 3 results, showing 1-2. 1 page remains: call list_runs(status="ok", offset=2) for the next.
	// next {"status":"ok","offset":2}
}

// FolderArgs are the arguments of folder_notes besides the paging ones.
type FolderArgs struct {
	Folder string `json:"folder" jsonschema:"the folder, e.g. projects"`
}

func ExampleAddPagedTool() {
	store := memrepo.New() // any ports.Notes: its methods take a bounded.Page
	putNotes(store, "projects/alpha", "projects/beta", "projects/gamma", "areas/home")
	server := mcp.NewServer(&mcp.Implementation{Name: "notes"}, nil)
	mcptools.AddPagedTool(server, &mcp.Tool{Name: "folder_notes", Description: "Lists a folder's notes, latest first."},
		mcptools.Options[ports.NoteRef]{Limits: bounded.Limits{Default: 2, Max: 50}},
		func(ctx context.Context, req *mcp.CallToolRequest, in FolderArgs, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return store.ListNotes(ctx, ports.ListFilter{Folder: in.Folder}, p)
		})

	printCall(server, "folder_notes", `{"folder":"projects"}`)
	// Output:
	// results [{"id":"projects/alpha","title":"projects/alpha","updatedAt":"2025-03-01T12:00:00Z"},{"id":"projects/beta","title":"projects/beta","updatedAt":"2025-03-01T12:00:00Z"}]
	// hint Found 3 results, showing 1-2. 1 page remains: call folder_notes(folder="projects", cursor=<pagination.nextCursor>) for the next.
	// next {"folder":"projects","cursor":"AQA7KziONMTnIAICA4DA2ZnV0ZcGBQ1wcm9qZWN0cy9iZXRhzmPnY2XV1ZU"}
}

func ExampleClientBudget() {
	os.Setenv(mcptools.EnvMaxOutputTokens, "10000") // as a client that allows 10,000 tokens
	defer os.Unsetenv(mcptools.EnvMaxOutputTokens)

	b := mcptools.ClientBudget(bounded.ClaudeCode())
	fmt.Println(b.MaxTokens, b.LimitTokens())
	// Output:
	// 10000 9000
}

// putNotes stores a note of each id, updated at the same time.
func putNotes(store *memrepo.Store, ids ...string) {
	for _, id := range ids {
		n := ports.Note{ID: id, Title: id, Content: "text", CreatedAt: base, UpdatedAt: base}
		if err := store.PutNote(context.Background(), n); err != nil {
			panic(err)
		}
	}
}

// printCall calls a tool of server through the SDK's client in memory, and
// prints the results, the hint and next of its envelope.
func printCall(server *mcp.Server, name, args string) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		panic(err)
	}
	var env struct {
		Results json.RawMessage `json:"results"`
		Hint    string          `json:"hint"`
		Next    json.RawMessage `json:"next"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &env); err != nil {
		panic(err)
	}
	fmt.Printf("results %s\nhint %s\nnext %s\n", env.Results, env.Hint, env.Next)
}
