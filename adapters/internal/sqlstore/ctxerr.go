package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ContextErr is err, or when ctx has ended and err does not wrap ctx's error,
// an error wrapping both: a driver may report a call interrupted by its
// context as its own error (a read timeout, a canceled statement), and
// callers must be able to tell a timeout or a cancellation from a failure
// with errors.Is(err, context.Canceled) or context.DeadlineExceeded.
//
// A context whose deadline has passed counts as ended even before its
// Err reports it: a driver that sets its socket's deadline to the
// context's (bun's pgdriver, a dialer) can fail on it first.
func ContextErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	cerr := ctx.Err()
	if d, ok := ctx.Deadline(); cerr == nil && ok && !time.Now().Before(d) {
		cerr = context.DeadlineExceeded
	}
	if cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// wrapCtx is [Store.wrap] for the error of a call made with ctx: the
// engine's name, then, if ctx has ended, ctx's error ([ContextErr]).
func (s *Store) wrapCtx(ctx context.Context, err error) error {
	return s.wrap(ContextErr(ctx, err))
}
