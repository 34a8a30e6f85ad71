package mcpresult_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

func ExampleServe() {
	ctx := context.Background()
	// A server written without bounded, whose tool returns a large log.
	server := mcp.NewServer(&mcp.Implementation{Name: "logs"}, nil)
	server.AddTool(&mcp.Tool{Name: "get_log", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			log := strings.Repeat("GET /health 200\n", 100_000)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: log}}}, nil
		})
	mcpresult.Serve(server, result.New(result.NewMemory(result.Quota{}), result.Options{}),
		mcpresult.Options{Budget: bounded.ClaudeCode()})

	st, ct := mcp.NewInMemoryTransports()
	server.Connect(ctx, st, nil)
	session, _ := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	defer session.Close()

	res, _ := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_log"})
	log := res.Content[0].(*mcp.TextContent).Text
	note := res.Content[1].(*mcp.TextContent).Text
	fmt.Println(strings.Count(log, "\n"), "lines shown")
	fmt.Println(note[:strings.Index(note, ".")+1])
	// Output:
	// 2250 lines shown
	// [Result cut to fit 45,000 characters and 22,500 tokens.
}
