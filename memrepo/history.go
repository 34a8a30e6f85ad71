package memrepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// RecordRun stores r.Normalize(), replacing any run with the same ID. An
// invalid run (see Normalize), or one with a time [ports.ValidateTime]
// refuses, is an error wrapping [ports.ErrInvalidItem], and nothing is
// written.
func (s *Store) RecordRun(ctx context.Context, r ports.Run) error {
	r, err := r.Normalize()
	if err != nil {
		return err
	}
	if err := errors.Join(ports.ValidateTime("startedAt", r.StartedAt), ports.ValidateTime("finishedAt", r.FinishedAt)); err != nil {
		return fmt.Errorf("run %q: %w", r.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	s.runs[r.ID] = r
	return nil
}

// ResponseHistory pages the runs of endpointID, newest first: StartedAt
// descending, then ID descending, each clipped by [ports.ViewRun]. An
// endpoint with no runs gives an empty page (nil Items, Total 0). An
// invalid endpointID ([ports.ValidateQuery]) is [ports.ErrInvalidQuery].
func (s *Store) ResponseHistory(ctx context.Context, endpointID string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	scope := ports.Scope("ResponseHistory", endpointID)
	return page(ctx, s, p, ports.ResponseHistoryLimits, scope, ports.ByStartedDesc, ports.ViewRun, func() ([]ports.Run, error) {
		if err := ports.ValidateQuery("endpointID", endpointID); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var all []ports.Run
		for _, r := range s.runs {
			if r.EndpointID == endpointID {
				all = append(all, r)
			}
		}
		slices.SortFunc(all, func(a, b ports.Run) int {
			if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
		return all, nil
	})
}
