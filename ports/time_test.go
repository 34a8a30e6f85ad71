package ports_test

import (
	"errors"
	"testing"
	"time"

	"github.com/boundedkit/bounded/ports"
)

// TestValidateTime: times in years 1 to 9999 in UTC are valid, others are
// ErrInvalidItem, whatever their zone.
func TestValidateTime(t *testing.T) {
	east, west := time.FixedZone("E", 3600), time.FixedZone("W", -3600)
	for _, c := range []struct {
		at time.Time
		ok bool
	}{
		{time.Time{}, true},
		{ports.MinTime, true},
		{ports.MaxTime, true},
		{ports.MaxTime.Add(999), true}, // truncated to the microsecond
		{time.Date(10000, 1, 1, 0, 30, 0, 0, east), true},
		{time.Date(2024, 3, 1, 12, 0, 0, 0, time.Local), true},
		{ports.MaxTime.Add(time.Microsecond), false},
		{ports.MinTime.Add(-1), false},
		{time.Date(9999, 12, 31, 23, 30, 0, 0, west), false},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(300_000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(-300_000, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		err := ports.ValidateTime("updatedAt", c.at)
		switch {
		case c.ok && err != nil:
			t.Errorf("ValidateTime(%v): %v; want nil", c.at, err)
		case !c.ok && !errors.Is(err, ports.ErrInvalidItem):
			t.Errorf("ValidateTime(%v): %v; want an error wrapping ErrInvalidItem", c.at, err)
		}
		if err == nil {
			if _, jerr := ports.Time(c.at).MarshalJSON(); jerr != nil {
				t.Errorf("ValidateTime(%v) accepts a time that does not encode as JSON: %v", c.at, jerr)
			}
		}
	}
}
