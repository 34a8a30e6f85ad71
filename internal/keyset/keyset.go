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
	// Computed marks an expression other than a column. It is compared
	// alone, never in a row value: SQLite searches an index on an
	// expression only by a comparison of the expression itself.
	Computed bool
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
	// LowNulls says the engine sorts NULL below every value, as SQLite,
	// MariaDB and MySQL do. With CaseNulls, a key whose NULLs sort there
	// is ordered without CASE, so that an index serves it.
	LowNulls bool
	// NullSafe matches NULL with <=>, for MariaDB and MySQL: their
	// optimizer reads the rows with a NULL key and a range on the next
	// key in index order, but sorts them when matched with IS NULL.
	NullSafe bool
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
		case !k.Nullable || st.CaseNulls && st.LowNulls && k.atEnd(back) == (dir == " DESC"):
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

// Band is a cursor value standing for every value from Lo to Hi: rows
// whose key lies in the band tie with the cursor on that key.
type Band struct{ Lo, Hi any }

// After returns the predicate selecting the rows that follow the values at
// (one a key: a value, a [Band], or nil for NULL) in the order of keys
// read forward, or in the reverse order when back, and its arguments.
//
// The predicate takes the form each engine's planner reads best:
//
//   - The row value (a, b) > (?, ?), one index range on the keys, when no
//     key is nullable and every key sorts one way (or, with
//     [Style.Negate], the keys sorting against the others are numbers).
//   - With [Style.Expand], a >= ? AND ((a > ?) OR (a = ? AND b > ?) ...),
//     whose disjuncts MariaDB's range optimizer turns into ranges.
//   - Otherwise each run of keys sorting one way is a row value, and the
//     keys after a run are compared only for rows tying with the cursor
//     on it: (a, b) >= (?, ?) AND ((a, b) <> (?, ?) OR c < ?). The first
//     run is a range an index enters at the cursor, and Postgres
//     estimates the rows selected as those of that range. For the
//     expanded form it multiplies the range's share by the share of
//     a < ?, which can make it read the range whole and sort.
//
// A NULL value is matched with IS NULL. A first key that may be NULL
// gives no range on SQLite and Postgres when the rows after the cursor
// hold both NULLs and values: after a value with the NULLs last, or
// after a NULL with the NULLs first.
func After(keys []Key, at []any, back bool, st Style) (string, []any, error) {
	if len(at) != len(keys) || len(keys) == 0 {
		return "", nil, ErrKeys
	}
	for i, k := range keys {
		if at[i] == nil && !k.Nullable {
			return "", nil, ErrKeys
		}
	}
	if pred, args, ok := rowValue(keys, at, back, st); ok {
		return pred, args, nil
	}
	if st.Expand {
		pred, args := expanded(keys, at, back, st)
		return pred, args, nil
	}
	p := nested(keys, at, back, st)
	return p.sql, p.args, nil
}

// expanded returns the expanded form of [After].
func expanded(keys []Key, at []any, back bool, st Style) (string, []any) {
	var b strings.Builder
	var args []any
	if first := keys[0]; at[0] != nil && !(first.Nullable && first.atEnd(back)) {
		// Unless NULLs follow the value, the rows after it are a range.
		lead, leadArgs := first.cmp(at[0], back, true)
		b.WriteString(lead + " AND (")
		args = append(args, leadArgs...)
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
			after, afterArgs = k.cmp(v, back, false)
			after, afterArgs = "("+after+" OR ? IS NULL)", append(afterArgs, k.Expr)
		case v != nil:
			after, afterArgs = k.cmp(v, back, false)
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
			eq, eqArgs := keys[j].eq(at[j], st)
			b.WriteString(eq + " AND ")
			args = append(args, eqArgs...)
		}
		b.WriteString(after + ")")
		args = append(args, afterArgs...)
	}
	if terms == 0 {
		b.WriteString("1 = 0")
	}
	b.WriteString(")")
	return b.String(), args
}

// part is a piece of a predicate; atom means it needs no parentheses.
type part struct {
	sql  string
	args []any
	atom bool
}

// wrapped returns p's SQL, parenthesized unless an atom.
func (p part) wrapped() string {
	if p.atom {
		return p.sql
	}
	return "(" + p.sql + ")"
}

// nested returns the nested form of [After].
func nested(keys []Key, at []any, back bool, st Style) part {
	k, v := keys[0], at[0]
	last := len(keys) == 1
	rest := func() part { return nested(keys[1:], at[1:], back, st) }
	switch {
	case v == nil && k.atEnd(back):
		// Only NULLs follow a NULL sorting at the end.
		if last {
			return part{"1 = 0", nil, true}
		}
		null, args := k.eq(nil, st)
		r := rest()
		return part{null + " AND " + r.wrapped(), append(args, r.args...), false}
	case v == nil:
		// Every value follows a NULL sorting first.
		if last {
			return part{"? IS NOT NULL", []any{k.Expr}, true}
		}
		r := rest()
		return part{"(? IS NOT NULL OR " + r.wrapped() + ")", append([]any{k.Expr}, r.args...), true}
	case k.Nullable && k.atEnd(back):
		// The values after v, then the NULLs.
		after, args := k.cmp(v, back, false)
		sql := "(" + after + " OR ? IS NULL"
		args = append(args, k.Expr)
		if !last {
			eq, eqArgs := k.eq(v, st)
			r := rest()
			sql += " OR (" + eq + " AND " + r.wrapped() + ")"
			args = append(append(args, eqArgs...), r.args...)
		}
		return part{sql + ")", args, true}
	}
	n := runLen(keys, at, back)
	if n == len(keys) {
		sql, args := compareRow(keys, at, back, false)
		return part{sql, args, true}
	}
	from, args := compareRow(keys[:n], at[:n], back, true)
	ne, neArgs := differRow(keys[:n], at[:n])
	r := nested(keys[n:], at[n:], back, st)
	args = append(append(args, neArgs...), r.args...)
	return part{from + " AND (" + ne + " OR " + r.wrapped() + ")", args, false}
}

// runLen returns the length of the run of keys that starts keys and can
// be compared as one row value: columns sorting one way, with values (not
// bands) that no NULL follows.
func runLen(keys []Key, at []any, back bool) int {
	if !inRow(keys[0], at[0]) {
		return 1
	}
	n := 1
	for ; n < len(keys); n++ {
		k := keys[n]
		if !inRow(k, at[n]) || at[n] == nil || k.Desc != keys[0].Desc || k.Nullable && k.atEnd(back) {
			break
		}
	}
	return n
}

// inRow reports whether k's comparison with v may be part of a row value:
// k is a column, v a value.
func inRow(k Key, v any) bool {
	_, band := v.(Band)
	return !band && !k.Computed
}

// compareRow returns the comparison of the row value of keys with at
// selecting the rows after it, or those tying with it too when orEqual.
func compareRow(keys []Key, at []any, back, orEqual bool) (string, []any) {
	if len(keys) == 1 {
		return keys[0].cmp(at[0], back, orEqual)
	}
	op := keys[0].op(back)
	if orEqual {
		op += "="
	}
	row := rowOf(len(keys))
	return row + " " + op + " " + row, append(exprs(keys), at...)
}

// differRow returns the predicate of the rows whose keys differ from at.
func differRow(keys []Key, at []any) (string, []any) {
	if len(keys) == 1 {
		return keys[0].ne(at[0])
	}
	row := rowOf(len(keys))
	return row + " <> " + row, append(exprs(keys), at...)
}

// rowOf returns a row value of n placeholders.
func rowOf(n int) string { return "(" + strings.Repeat("?, ", n-1) + "?)" }

func exprs(keys []Key) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k.Expr
	}
	return out
}

// cmp returns the comparison of k with v (a value or a [Band]) selecting
// the rows after v, or those tying with it too when orEqual.
func (k Key) cmp(v any, back, orEqual bool) (string, []any) {
	op := k.op(back)
	if b, ok := v.(Band); ok {
		// The far edge of the band bounds the rows after it; the near
		// edge, the rows from it on.
		v = b.Hi
		if (op == ">") == orEqual {
			v = b.Lo
		}
	}
	if orEqual {
		op += "="
	}
	return "? " + op + " ?", []any{k.Expr, v}
}

// eq returns the predicate of the rows tying with v on k.
func (k Key) eq(v any, st Style) (string, []any) {
	switch b := v.(type) {
	case nil:
		if st.NullSafe {
			return "? <=> NULL", []any{k.Expr}
		}
		return "? IS NULL", []any{k.Expr}
	case Band:
		return "? BETWEEN ? AND ?", []any{k.Expr, b.Lo, b.Hi}
	}
	return "? = ?", []any{k.Expr, v}
}

// ne returns the predicate of the rows with a value of k other than v.
func (k Key) ne(v any) (string, []any) {
	if b, ok := v.(Band); ok {
		return "? NOT BETWEEN ? AND ?", []any{k.Expr, b.Lo, b.Hi}
	}
	return "? <> ?", []any{k.Expr, v}
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
		if !inRow(k, at[i]) || k.Nullable {
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
