// Command onetool serves one bounded tool of its own over stdio: the
// program whose dependencies TestOneToolDependencies checks.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
)

type run struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
}

type listRuns struct {
	Status string `json:"status,omitempty"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "runs"}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	mcptools.AddTool(server, &mcp.Tool{Name: "list_runs", Description: "Lists runs."},
		mcptools.Options[run]{Limits: bounded.Limits{Default: 20, Max: 100}},
		func(_ context.Context, _ *mcp.CallToolRequest, in listRuns) (bounded.Source[run], error) {
			return bounded.FromSlice([]run{{1, "ok"}, {2, in.Status}}), nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
