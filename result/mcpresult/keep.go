package mcpresult

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/result"
)

// Keeper returns the keeper of an mcptools tool's clipped results
// (mcptools.Options.Keep): it stores them with b, bound to the call's
// session or o.Principal's principal, and names b's read tool with the
// handle and a pointer. Serve the read tool with [Serve] on the same
// server and b.
func Keeper(b *result.Bounder, o Options) mcptools.Keeper { return keeper{b: b, o: o} }

type keeper struct {
	b *result.Bounder
	o Options
}

func (k keeper) Keep(ctx context.Context, req *mcp.CallToolRequest, results []byte) (mcptools.ReadCall, error) {
	s := &server{b: k.b, o: k.o}
	call := result.Call{Tool: req.Params.Name, Args: argsOf(req.Params.Arguments), Principal: s.principal(ctx, req.Session)}
	h, err := k.b.Keep(ctx, call, result.JSON(results))
	if err != nil {
		return mcptools.ReadCall{}, err
	}
	return mcptools.ReadCall{Tool: k.b.Options().ReadTool, Args: bounded.Args{{Name: "handle", Value: h}}, PointerArg: "pointer"}, nil
}
