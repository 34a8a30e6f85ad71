package mcptools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/boundedkit/bounded"
)

// sourceError is the error of a source that failed to read its rows,
// e.g. a query the database refused. Its message tells the model what to
// do; the cause is for the server's log.
type sourceError struct {
	tool string
	err  error
}

func (e *sourceError) Error() string {
	return e.tool + ": the results could not be read, for a reason on the server's side, not in your arguments: " +
		"call again later, and tell the user if it persists"
}

func (e *sourceError) Unwrap() error { return e.err }

// fromSource returns err, the error of reading a page of tool's source,
// as the model should read it: a bad page or cursor as it is, and any
// other error as a *sourceError, logged to l (slog.Default when nil).
func fromSource(ctx context.Context, l *slog.Logger, tool string, err error) error {
	switch {
	case err == nil, errors.Is(err, bounded.ErrInvalidPage), errors.Is(err, bounded.ErrInvalidCursor),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	if l == nil {
		l = slog.Default()
	}
	l.ErrorContext(ctx, "mcptools: reading a page failed", "tool", tool, "err", err)
	return &sourceError{tool: tool, err: err}
}
