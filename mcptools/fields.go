package mcptools

import (
	"context"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// fit fits in into the call's budget, each result cut down to the
// fields the call names, if any.
func fit[T any](ctx context.Context, c *toolargs.Call, in bounded.FitInput[T]) (bounded.Fitted, error) {
	if len(c.Fields) == 0 {
		return bounded.FitContext(ctx, c.Budget, in)
	}
	out, err := toolargs.Project(c.Next.Tool, in, c.Fields)
	if err != nil {
		return bounded.Fitted{}, err
	}
	return bounded.FitContext(ctx, c.Budget, out)
}
