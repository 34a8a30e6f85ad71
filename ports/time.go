package ports

import (
	"fmt"
	"time"
)

// The range of the times a store holds: years 1 to 9999 in UTC, which
// every item's JSON (RFC 3339) and every engine's microseconds can
// represent. Write methods refuse a time outside it ([ValidateTime]).
var (
	// MinTime is the earliest time a store holds, 0001-01-01T00:00:00Z
	// (the zero time.Time).
	MinTime = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	// MaxTime is the latest time a store holds,
	// 9999-12-31T23:59:59.999999Z.
	MaxTime = time.Date(9999, time.December, 31, 23, 59, 59, 999999000, time.UTC)
)

// ValidateTime checks a stored time of an item: normalized with [Time], it
// must lie in [MinTime, MaxTime]. The error wraps [ErrInvalidItem] and
// names field.
func ValidateTime(field string, t time.Time) error {
	if u := Time(t); u.Before(MinTime) || u.After(MaxTime) {
		return fmt.Errorf("%w: %s %s is outside the years 1 to 9999 (UTC)", ErrInvalidItem, field, t.Format(time.RFC3339Nano))
	}
	return nil
}
