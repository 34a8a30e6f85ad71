package mcptools

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/toolargs"
)

// EnvelopeHandler answers a call with the JSON of one envelope
// ([bounded.Envelope]): it parses args itself, with a
// [toolargs.Parser] given ctx, and fits its results into the budget.
type EnvelopeHandler func(ctx context.Context, args json.RawMessage) ([]byte, error)

// AddEnvelopeTool adds the tool t answered by h, or replaces the one of
// the same name: a tool that parses its arguments and writes its
// envelope itself, as those of package tools do. t.InputSchema is
// served as it is. b is the tool's budget: [ClientBudget] lowers it, h's
// ctx carries it to the parser ([toolargs.WithBudget]), errors keep to
// it, and _meta declares [MetaMaxResultSizeChars] from it.
//
// Results and errors are as [AddTool]'s. An error of h is the model's
// to read, as it is, when it is an argument's, a page's, a cursor's, a
// window's or a budget's, a context's, or matches one of callers (a
// name not found, a query refused); any other (a database's) says the
// results could not be read, and goes to b.Logger (slog.Default when
// nil).
func AddEnvelopeTool(s *mcp.Server, t *mcp.Tool, b bounded.Budget, callers []error, h EnvelopeHandler) {
	cb := ClientBudget(b)
	mt := *t
	mt.Meta = maps.Clone(t.Meta)
	if mt.Meta == nil {
		mt.Meta = mcp.Meta{}
	}
	mt.Meta[MetaMaxResultSizeChars] = cb.LimitChars()
	s.AddTool(&mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		env, err := h(toolargs.WithBudget(ctx, cb), req.Params.Arguments)
		if err != nil {
			return reply.Error(t.Name, cb, fromSource(ctx, b.Logger, t.Name, err, callers...)), nil
		}
		return reply.Result(env), nil
	})
}
