package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// untilFree runs f, and again while it fails because another connection
// holds the database's lock past the driver's own wait ([Dialect.Busy]),
// for as long as ctx lasts; the pauses between tries grow from 1 ms to
// 100 ms. When ctx ends it returns f's last error. Inside a caller's
// transaction f runs once: retrying it is the caller's decision.
func (s *Store) untilFree(ctx context.Context, f func() error) error {
	if s.d.Busy == nil {
		return f()
	}
	switch s.db.(type) {
	case bun.Tx, *bun.Tx:
		return f()
	}
	pause := time.Millisecond
	for {
		err := f()
		if err == nil || !s.d.Busy(err) {
			return err
		}
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}
