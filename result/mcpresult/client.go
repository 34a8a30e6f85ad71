package mcpresult

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/result"
)

// Client is a host's view of a client session: CallTool returns each
// result bounded, as Bound does, and answers the read tool itself from the
// bounder's store. It is safe for concurrent use.
type Client struct {
	cs        *mcp.ClientSession
	b         *result.Bounder
	principal string
	o         Options
}

// NewClient returns a Client calling tools through cs, bounding their
// results with b for principal (the user or conversation the host
// serves). Options.BudgetFor and Options.Principal are not used.
func NewClient(cs *mcp.ClientSession, b *result.Bounder, principal string, o Options) *Client {
	return &Client{cs: cs, b: b, principal: principal, o: o}
}

// ReadTool returns the read tool's definition, for the tool list the host
// gives the model beside the session's tools.
func (c *Client) ReadTool() *mcp.Tool { return ReadTool(c.b) }

// CallTool calls a tool of the session and returns its result bounded, or
// answers the read tool. Errors are the session's, and
// bounded.ErrInvalidBudget for a budget under result.MinChars.
func (c *Client) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(p.Arguments)
	if err != nil {
		return nil, fmt.Errorf("mcpresult: arguments of %s: %w", p.Name, err)
	}
	budget := c.o.budget(p.Name)
	if p.Name == c.b.Options().ReadTool {
		return Read(ctx, c.b, budget, c.principal, raw)
	}
	res, err := c.cs.CallTool(ctx, p)
	if err != nil || c.o.Tools[p.Name].Skip {
		return res, err
	}
	return Bound(ctx, c.b, budget, result.Call{Tool: p.Name, Args: argsOf(raw), Principal: c.principal}, res)
}
