// Package mcpset serves the agent tool set of package tools on the
// official MCP Go SDK, beside tools added with package mcptools.
//
//	set, err := tools.New(tools.Config{Notes: store, Budget: mcptools.ClientBudget(bounded.Budget{})})
//	...
//	mcpset.Add(server, set) // get_note, search_knowledge, ...
package mcpset

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// Add adds every tool of set to s with [mcptools.AddEnvelopeTool],
// beside the server's own tools: the tool's name, description and input
// schema, a short output schema of an envelope (the keys every one
// has), and [mcptools.MetaMaxResultSizeChars] from the set's budget. A
// call's arguments go to the tool's handler as they came: its parser
// answers bad input. Results and errors are as [mcptools.AddTool]'s: a
// name not found, an ambiguous name and a query the port refuses are
// said as they are; an error of the store (a query the database
// refused) says so without its cause, which goes to the budget's
// logger, or slog.Default.
//
// MAX_MCP_OUTPUT_TOKENS is honoured: should the set's budget allow more
// tokens, each call's budget is lowered to the limit.
func Add(s *mcp.Server, set *tools.Set) {
	for _, t := range set.Tools() {
		mcptools.AddEnvelopeTool(s, &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: setOutputSchema},
			set.Budget(), callers, t.Handler)
	}
}

// callers are the errors of the port a call caused, said to the model
// as they are.
var callers = []error{ports.ErrNotFound, ports.ErrInvalidQuery, ports.ErrAmbiguous}

// setOutputSchema is the output schema of the set's tools: an envelope,
// whose results, pagination and truncation are always there. It is kept
// short, as tools/list repeats it for each of the set's tools; the set's
// instructions describe the envelope once.
var setOutputSchema = &jsonschema.Schema{Type: "object", Required: []string{"results", "pagination", "truncation"}}
