package mcptools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
)

// fromSource returns err, the error of reading a page of tool's source,
// as the model should read it: a bad page or cursor as it is, and any
// other error as [reply.ServerError] words and logs it.
func fromSource(ctx context.Context, l *slog.Logger, tool string, err error) error {
	switch {
	case err == nil, errors.Is(err, bounded.ErrInvalidPage), errors.Is(err, bounded.ErrInvalidCursor),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return reply.ServerError(ctx, l, tool, err)
}
