// Package keyset writes the SQL of keyset pagination for bunpage and the
// built-in SQL stores: the ORDER BY of a list of keys, and the predicate
// selecting the rows that follow a cursor's values in that order.
//
// Expressions and values reach SQL as bun arguments: each ? of the SQL
// returned takes the next argument returned with it.
package keyset

import (
	"errors"
	"math"
	"strings"
)

// Key is one key of an order.
type Key struct {
	// Expr is the key's SQL expression as a bun argument, such as
	// bun.Ident("t.year") or bun.Safe("n.updated_at").
	Expr any
	Desc bool
	// Nullable keys sort their NULLs last in either direction, or first
	// with NullsFirst; a cursor's nil value stands for NULL.
	Nullable, NullsFirst bool
	// Num marks a numeric key, which [Style.Negate] may negate.
	Num bool
}

// Style names what an engine and a caller's indexes need.
type Style struct {
	// Expand writes every predicate in the expanded form: MariaDB's and
	// MySQL's range optimizer enters an index at it, not at a row value.
	Expand bool
	// Negate keeps a mixed order one row value by negating the numeric
	// keys that sort against the others: (-a, b) > (-?, ?) for a
	// descending and b ascending, after a range on a alone.
	Negate bool
	// CaseNulls orders NULLs with CASE, for engines without NULLS
	// FIRST/LAST.
	CaseNulls bool
}

// ErrKeys is returned by [After] for values that are not one a key.
var ErrKeys = errors.New("keyset: the values do not match the keys")

// atEnd reports whether k's NULLs come last in the reading direction.
func (k Key) atEnd(back bool) bool { return k.NullsFirst == back }

// op is the comparison of a row after a value of k in the reading
// direction.
func (k Key) op(back bool) string {
	if k.Desc != back {
		return "<"
	}
	return ">"
}

// OrderBy returns the ORDER BY list of keys, every direction flipped when
// back, and its arguments.
func OrderBy(keys []Key, back bool, st Style) (string, []any) {
	var b strings.Builder
	var args []any
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		dir := " ASC"
		if k.Desc != back {
			dir = " DESC"
		}
		switch {
		case !k.Nullable:
			b.WriteString("?" + dir)
			args = append(args, k.Expr)
		case st.CaseNulls:
			null, value := "0", "1" // NULLs first
			if k.atEnd(back) {
				null, value = "1", "0"
			}
			b.WriteString("CASE WHEN ? IS NULL THEN " + null + " ELSE " + value + " END, ?" + dir)
			args = append(args, k.Expr, k.Expr)
		case k.atEnd(back):
			b.WriteString("?" + dir + " NULLS LAST")
			args = append(args, k.Expr)
		default:
			b.WriteString("?" + dir + " NULLS FIRST")
			args = append(args, k.Expr)
		}
	}
	return b.String(), args
}

// After returns the predicate selecting the rows that follow the values at
// (one a key, nil for NULL) in the order of keys read forward, or in the
// reverse order when back, and its arguments.
//
// The row value (a, b) > (?, ?), one index range on the keys, serves when
// no key is nullable and every key sorts one way (or, with [Style.Negate],
// the keys sorting against the others are numbers). Otherwise the
// predicate is the expanded a >= ? AND ((a > ?) OR (a = ? AND b > ?) ...),
// whose first range lets an index on a start at the cursor; a NULL value
// is matched with IS NULL.
func After(keys []Key, at []any, back bool, st Style) (string, []any, error) {
	if len(at) != len(keys) || len(keys) == 0 {
		return "", nil, ErrKeys
	}
	if pred, args, ok := rowValue(keys, at, back, st); ok {
		return pred, args, nil
	}
	var b strings.Builder
	var args []any
	if first := keys[0]; !first.Nullable && at[0] != nil {
		b.WriteString("? " + first.op(back) + "= ? AND (")
		args = append(args, first.Expr, at[0])
	} else {
		b.WriteString("(")
	}
	terms := 0
	for i, k := range keys {
		v := at[i]
		var after string
		var afterArgs []any
		switch {
		case v != nil && k.Nullable && k.atEnd(back):
			after, afterArgs = "(? "+k.op(back)+" ? OR ? IS NULL)", []any{k.Expr, v, k.Expr}
		case v != nil:
			after, afterArgs = "? "+k.op(back)+" ?", []any{k.Expr, v}
		case !k.Nullable:
			return "", nil, ErrKeys
		case k.atEnd(back):
			continue // nothing follows a NULL that sorts at the end
		default:
			after, afterArgs = "? IS NOT NULL", []any{k.Expr}
		}
		if terms > 0 {
			b.WriteString(" OR ")
		}
		terms++
		b.WriteString("(")
		for j := range i {
			if at[j] == nil {
				b.WriteString("? IS NULL AND ")
				args = append(args, keys[j].Expr)
			} else {
				b.WriteString("? = ? AND ")
				args = append(args, keys[j].Expr, at[j])
			}
		}
		b.WriteString(after + ")")
		args = append(args, afterArgs...)
	}
	if terms == 0 {
		b.WriteString("1 = 0")
	}
	b.WriteString(")")
	return b.String(), args, nil
}

// rowValue returns the row-value predicate of [After], when one serves.
func rowValue(keys []Key, at []any, back bool, st Style) (string, []any, bool) {
	if st.Expand {
		return "", nil, false
	}
	// ref is the direction of the row value: that of the first key that
	// cannot be negated, or of the first key.
	ref := keys[0].Desc
	if st.Negate {
		for _, k := range keys {
			if !k.Num {
				ref = k.Desc
				break
			}
		}
	}
	mixed := false
	for i, k := range keys {
		if k.Nullable || at[i] == nil {
			return "", nil, false
		}
		if k.Desc != ref {
			mixed = true
			if !st.Negate || !k.Num || !negatable(at[i]) {
				return "", nil, false
			}
		}
	}
	var b strings.Builder
	var args []any
	if mixed {
		// A range on the first key alone enters an index on it near the
		// cursor; the negated comparison filters the few ties. Added
		// when nothing is negated, it would mislead SQLite, which for an
		// index whose prefix has one value picks a skip-scan.
		b.WriteString("? " + keys[0].op(back) + "= ? AND ")
		args = append(args, keys[0].Expr, at[0])
	}
	b.WriteString("(")
	vals := make([]any, len(keys))
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		vals[i] = at[i]
		if k.Desc != ref {
			b.WriteString("-(?)")
			vals[i] = negate(at[i])
		} else {
			b.WriteString("?")
		}
		args = append(args, k.Expr)
	}
	b.WriteString(") " + Key{Desc: ref}.op(back) + " (")
	for i := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?")
	}
	b.WriteString(")")
	return b.String(), append(args, vals...), true
}

// negatable reports whether v is a number whose negation is exact.
func negatable(v any) bool {
	switch n := v.(type) {
	case int64:
		return n != math.MinInt64
	case float64:
		return true
	}
	return false
}

func negate(v any) any {
	if n, ok := v.(int64); ok {
		return -n
	}
	return -v.(float64)
}
