package bunpage

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded/internal/keyset"
	"github.com/uptrace/bun"
)

// predicate returns the predicate of the rows after the cursor's arguments at
// (checked by args) in the reading direction, and its arguments. A float32
// value stands for the band of doubles that read as it: a double column
// written by bun holds the float32's shortest decimal, one written with
// the float32 as a float64 holds that, and both must tie with it.
func (s *Source[T]) predicate(at []any, back bool) (string, []any) {
	var banded []any
	for i, c := range s.cols {
		if c.f32 && at[i] != nil {
			if banded == nil {
				banded = slices.Clone(at)
			}
			lo, hi := band(at[i].(float64))
			banded[i] = keyset.Band{Lo: lo, Hi: hi}
		}
	}
	if banded != nil {
		at = banded
	}
	// at fits the keys: Fetch checked it with args.
	pred, args, _ := keyset.After(s.order, at, back, s.style)
	return pred, literals(args)
}

// band returns the least and the greatest double that round to the
// float32 f, as a float64.
func band(f float64) (lo, hi float64) {
	v := float32(f)
	up := float64(math.Nextafter32(v, float32(math.Inf(1))))
	down := float64(math.Nextafter32(v, float32(math.Inf(-1))))
	// Past ±MaxFloat32 the next float32 would be a step further.
	if math.IsInf(up, 0) {
		up = f + (f - down)
	}
	if math.IsInf(down, 0) {
		down = f - (up - f)
	}
	hi = (f + up) / 2 // exact: float32s have 24 bits
	lo = (f + down) / 2
	// A double halfway between two float32s rounds to the even one.
	if math.Float32bits(v)&1 != 0 {
		hi = math.Nextafter(hi, math.Inf(-1))
		lo = math.Nextafter(lo, math.Inf(1))
	}
	return lo, hi
}

// literals returns args with each float64 written as a literal in
// exponent form: bun writes every digit of a float64, hundreds for 1e300
// or 5e-324, which MariaDB reads as a DECIMAL, clamped to 65 digits.
func literals(args []any) []any {
	for i, a := range args {
		if f, ok := a.(float64); ok {
			args[i] = literal(f)
		}
	}
	return args
}

// literal is f in exponent form, read back exactly by every engine.
func literal(f float64) bun.Safe { return bun.Safe(strconv.FormatFloat(f, 'e', -1, 64)) }

// checkTies returns an error wrapping ErrInvalidSource when two adjacent
// rows of items, as read, are equal on every column: the unique column
// is not, and a cursor at either would skip the other.
func (s *Source[T]) checkTies(items []T) error {
	u := s.cols[len(s.cols)-1]
	for i := 1; i < len(items); i++ {
		if !u.same(&items[i-1], &items[i]) {
			continue
		}
		a, b := s.keys(&items[i-1]), s.keys(&items[i])
		if slices.EqualFunc(a, b, func(x, y any) bool { return x == y || x != nil && y != nil && keysEqual(x, y) }) {
			return fmt.Errorf("%w: two rows have the same values of every column, %v, though %q is unique", ErrInvalidSource, a, u.name)
		}
	}
	return nil
}

// checkNulls returns an error wrapping ErrInvalidSource when a column
// never NULL holds NULL: in a row of items, or in any row of the query
// when end (a walk by cursor reached its end, and passed over the rows
// its keyset excludes). bun scans NULL as the zero value, so only the
// rows with one are looked up.
func (s *Source[T]) checkNulls(ctx context.Context, items []T, end bool) error {
	if len(s.nullChecked) == 0 {
		return nil
	}
	u := s.cols[len(s.cols)-1]
	var ids []any
	for j := range items {
		it := &items[j]
		for _, i := range s.nullChecked {
			if s.cols[i].zero(it) {
				id, _ := u.arg(u.key(it))
				ids = append(ids, id)
				break
			}
		}
	}
	if len(ids) == 0 && !end {
		return nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("(")
	for n, i := range s.nullChecked {
		if n > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("? IS NULL")
		args = append(args, s.order[i].Expr)
	}
	b.WriteString(")")
	q := s.selectFrom(alias).ColumnExpr("1").Where(b.String(), args...)
	if !end {
		q = q.Where("? IN (?)", s.order[len(s.order)-1].Expr, bun.List(literals(ids)))
	}
	found, err := q.Limit(1).Exists(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("bunpage: look for NULLs: %w", err)
	case found:
		names := make([]string, len(s.nullChecked))
		for n, i := range s.nullChecked {
			names[n] = strconv.Quote(s.cols[i].name)
		}
		return fmt.Errorf("%w: a row holds NULL in %s, declared never NULL: declare a column that may be NULL with Nullable", ErrInvalidSource, strings.Join(names, " or "))
	}
	return nil
}
