package sqlstore

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// unnoticed is a context whose deadline has passed while its timer has not
// yet fired: Err still reports nil.
type unnoticed struct {
	context.Context
	deadline time.Time
}

func (c unnoticed) Deadline() (time.Time, bool) { return c.deadline, true }

// TestCtxErr checks which errors ContextErr wraps with the context's error,
// including a driver's timeout at a deadline that the context's Err does
// not report yet.
func TestCtxErr(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	later, cancelLater := context.WithTimeout(context.Background(), time.Hour)
	defer cancelLater()
	driverErr := os.ErrDeadlineExceeded // what a socket's deadline gives
	for _, c := range []struct {
		name string
		ctx  context.Context
		want error // nil: err is returned as it is
	}{
		{"canceled", canceled, context.Canceled},
		{"deadline passed, unnoticed", unnoticed{context.Background(), time.Now().Add(-time.Millisecond)}, context.DeadlineExceeded},
		{"deadline ahead", later, nil},
		{"no deadline", context.Background(), nil},
	} {
		got := ContextErr(c.ctx, driverErr)
		if !errors.Is(got, driverErr) {
			t.Errorf("%s: %q lost the driver's error", c.name, got)
		}
		if c.want == nil {
			if got != driverErr {
				t.Errorf("%s: %q, want the driver's error as it is", c.name, got)
			}
			continue
		}
		if !errors.Is(got, c.want) {
			t.Errorf("%s: %q does not wrap %q", c.name, got, c.want)
		}
	}
	if err := ContextErr(canceled, nil); err != nil {
		t.Errorf("no error: %v", err)
	}
}
