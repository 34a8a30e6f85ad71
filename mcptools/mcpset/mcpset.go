// Package mcpset serves the agent tool set of package tools on the
// official MCP Go SDK, beside tools added with package mcptools.
//
//	set, err := tools.New(tools.Config{Notes: store, Budget: mcptools.ClientBudget(bounded.Budget{})})
//	...
//	mcpset.Add(server, set) // get_note, search_knowledge, ...
package mcpset

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// Add adds every tool of set to s, beside the server's own tools, with
// the tool's name, description and input schema, a short output schema of
// an envelope (the keys every one has), and [mcptools.MetaMaxResultSizeChars] from its budget
// argument's maximum. A call's arguments go to the tool's handler as they came: its
// own strict parsing answers bad input. Results and errors are as
// [mcptools.AddTool]'s: an error of the store (a query the database
// refused) says so without its cause, which goes to slog.Default.
//
// MAX_MCP_OUTPUT_TOKENS is honoured: build the set with a budget passed
// through [mcptools.ClientBudget]; should the set allow more tokens, Add lowers
// each call's budgetTokens to the limit.
func Add(s *mcp.Server, set *tools.Set) {
	out := setOutputSchema
	for _, t := range set.Tools() {
		chars, tokens := schemaMax(t.InputSchema, "budget"), schemaMax(t.InputSchema, "budgetTokens")
		budget := bounded.Budget{} // for errors: the budget argument's maximum
		if chars > 0 {
			budget = bounded.Budget{MaxChars: chars, MaxTokens: tokens, Margin: 1}
		}
		meta := mcp.Meta{}
		if chars > 0 {
			meta[mcptools.MetaMaxResultSizeChars] = chars
		}
		s.AddTool(&mcp.Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: out, Meta: meta,
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			env, err := t.Handler(ctx, capTokens(req.Params.Arguments, tokens))
			if err != nil {
				return reply.Error(t.Name, budget, fromStore(ctx, t.Name, err)), nil
			}
			return reply.Result(env), nil
		})
	}
}

// fromStore returns err, the error of a call of tool, as the model
// should read it: an error of the call (its arguments, a name not found,
// a query the port refuses) as it is, any other (a database's) as
// reply.ServerError words it, logged to slog.Default.
func fromStore(ctx context.Context, tool string, err error) error {
	for _, callers := range []error{tools.ErrInvalidArguments, ports.ErrNotFound, ports.ErrInvalidQuery, ports.ErrAmbiguous,
		bounded.ErrInvalidPage, bounded.ErrInvalidCursor, bounded.ErrInvalidWindow, bounded.ErrInvalidBudget,
		context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, callers) {
			return err
		}
	}
	return reply.ServerError(ctx, nil, tool, err)
}

// capTokens returns the arguments raw with budgetTokens lowered to the
// limit MAX_MCP_OUTPUT_TOKENS sets, with bounded's default margin, when
// the tool allows more than the variable (most): when the set's budget
// did not pass through ClientBudget. Arguments that do not decode go as
// they came, for the tool to name what is wrong.
func capTokens(raw json.RawMessage, most int) json.RawMessage {
	if most <= 0 {
		return raw
	}
	b := bounded.Budget{MaxTokens: most}
	cb := mcptools.ClientBudget(b)
	if cb.MaxTokens == b.MaxTokens {
		return raw
	}
	limit := cb.LimitTokens()
	var args bounded.Args
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return raw
		}
	}
	for i, a := range args {
		if a.Name != "budgetTokens" {
			continue
		}
		if n, ok := a.Value.(json.Number); ok {
			if given, err := n.Int64(); err == nil && given <= int64(limit) {
				return raw
			}
		}
		if a.Value != nil && !whole(a.Value) {
			return raw // not a whole number: the tool says so
		}
		args[i].Value = limit
		return marshalArgs(raw, args)
	}
	return marshalArgs(raw, append(args, bounded.Arg{Name: "budgetTokens", Value: limit}))
}

// whole reports whether v, an argument as bounded.Args decodes it, is a
// whole number.
func whole(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && f == math.Trunc(f)
}

func marshalArgs(raw json.RawMessage, args bounded.Args) json.RawMessage {
	b, err := args.MarshalJSON()
	if err != nil {
		return raw
	}
	return b
}

// schemaMax is the maximum of the integer argument name in the input
// schema s, or 0.
func schemaMax(s json.RawMessage, name string) int {
	var sc struct {
		Properties map[string]struct {
			Maximum *float64 `json:"maximum"`
		} `json:"properties"`
	}
	if json.Unmarshal(s, &sc) != nil || sc.Properties[name].Maximum == nil {
		return 0
	}
	return int(*sc.Properties[name].Maximum)
}

// setOutputSchema is the output schema of the set's tools: an envelope,
// whose results, pagination and truncation are always there. It is kept
// short, as tools/list repeats it for each of the set's tools; the set's
// instructions describe the envelope once.
var setOutputSchema = &jsonschema.Schema{Type: "object", Required: []string{"results", "pagination", "truncation"}}
