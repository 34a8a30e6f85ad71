package sqlstore

import (
	"context"
	"errors"
	"fmt"
)

// ctxErr is err, or when ctx has ended and err does not wrap ctx's error,
// an error wrapping both: a driver may report a call interrupted by its
// context as its own error (a read timeout, a canceled statement), and
// callers must be able to tell a timeout or a cancellation from a failure
// with errors.Is(err, context.Canceled) or context.DeadlineExceeded.
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// wrapCtx is [Store.wrap] for the error of a call made with ctx: the
// engine's name, then, if ctx has ended, ctx's error ([ctxErr]).
func (s *Store) wrapCtx(ctx context.Context, err error) error {
	return s.wrap(ctxErr(ctx, err))
}
