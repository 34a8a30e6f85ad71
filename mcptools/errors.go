package mcptools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/toolargs"
)

// fromSource returns err, the error of reading a page of tool's source,
// as the model should read it: a bad argument, page, cursor, window or
// budget, a context's error, or one matching callers, as it is; any
// other error as [reply.ServerError] words and logs it.
func fromSource(ctx context.Context, l *slog.Logger, tool string, err error, callers ...error) error {
	if err == nil {
		return nil
	}
	for _, c := range append([]error{toolargs.ErrInvalidArguments, bounded.ErrInvalidPage, bounded.ErrInvalidCursor,
		bounded.ErrInvalidWindow, bounded.ErrInvalidBudget, context.Canceled, context.DeadlineExceeded}, callers...) {
		if errors.Is(err, c) {
			return err
		}
	}
	return reply.ServerError(ctx, l, tool, err)
}
