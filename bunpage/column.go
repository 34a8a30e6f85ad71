package bunpage

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
)

// Value is the type of a column's values in an item: an integer (not uint
// or uint64), a float, a string, a bool or a time.Time, or a type defined
// from one of the first five (type Status string).
type Value interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 |
		~float32 | ~float64 | ~string | ~bool | time.Time
}

// A Column is one key of a [Source]'s order: a column of the query's
// results, its direction, where its NULLs sort, and how to read its value
// from an item. Make one with [Col], [Nullable] or [Field].
type Column[T any] struct {
	name       string
	kind       kind
	desc       bool
	nullable   bool
	nullsFirst bool
	unique     bool
	// f32: the values are float32s, each standing for every double
	// that reads as it.
	f32 bool
	// key returns an item's cursor key: int64, float64, string or bool
	// as kind says (int64 microseconds for a time), or nil for NULL.
	key func(*T) any
	// same reports whether two items hold the same value; zero whether
	// an item holds the zero value, which bun scans NULL as.
	same func(a, b *T) bool
	zero func(*T) bool
	// byField: name is a column or a Go field of T, resolved by New.
	byField bool
	// expr, when set, is the SQL the column's values are selected by.
	expr     string
	exprArgs []any
}

// kind is the type of a column's cursor keys.
type kind uint8

const (
	kindInt kind = iota + 1
	kindFloat
	kindString
	kindBool
	kindTime
)

var kindNames = [...]string{kindInt: "an integer", kindFloat: "a float", kindString: "a string", kindBool: "a bool", kindTime: "a time (an integer)"}

// Col returns the column name of the query's results, ascending, never
// NULL, whose value in an item is value(item). name is a column of the
// query's results as it returns them ("year", not "b.year"), quoted as an
// identifier; T must have a field bun scans it into.
//
// A time column is compared at microsecond precision, as bun writes times.
// A float32 value stands for every double that reads as it. A value that
// is NaN or infinite, or a string that is not UTF-8 or holds NUL, cannot
// be a cursor's key: such items are read by offset.
func Col[T any, V Value](name string, value func(T) V) Column[T] {
	c := Column[T]{name: name, kind: kindOf[V](), f32: is32[V]()}
	if value != nil {
		c.key = func(it *T) any { return keyOf(value(*it)) }
		c.same = sameFunc(value)
		c.zero = zeroFunc(value)
	}
	return c
}

// Nullable is [Col] for a column that may be NULL, which value reports as
// nil. NULLs sort after every value, in either direction, unless
// [Column.NullsFirst].
func Nullable[T any, V Value](name string, value func(T) *V) Column[T] {
	c := Column[T]{name: name, kind: kindOf[V](), f32: is32[V](), nullable: true}
	if value != nil {
		c.key = func(it *T) any {
			if v := value(*it); v != nil {
				return keyOf(*v)
			}
			return nil
		}
		c.same = func(a, b *T) bool {
			x, y := c.key(a), c.key(b)
			return x == y || x != nil && y != nil && keysEqual(x, y)
		}
	}
	return c
}

// Field returns the key of T's field name, a column ("created_at") or a
// Go field ("CreatedAt") of T's bun model, ascending. [New] resolves it
// and reads its values from the field: a pointer, a sql.Null type or a
// nullzero field (unless tagged notnull) may be NULL, as with [Nullable];
// the model's one primary key, or a field tagged unique on its own, is
// [Column.Unique]. The field's type must be one [Value] allows, or a
// pointer or sql.Null of one.
func Field[T any](name string) Column[T] { return Column[T]{name: name, byField: true} }

// Expr returns c selected by the SQL expression sql, with bun's
// placeholders for args, over the columns of the query's results:
// Col("name_key", ...).Expr("lower(name)"), say. c's name must be a field
// of T tagged scanonly, into which each page scans the expression's
// value; c's value is that field's. An index on the expression serves
// the order where the engine has expression indexes.
func (c Column[T]) Expr(sql string, args ...any) Column[T] {
	c.expr, c.exprArgs = sql, args
	return c
}

// Desc returns c sorted descending: largest first.
func (c Column[T]) Desc() Column[T] {
	c.desc = true
	return c
}

// NullsFirst returns c with its NULLs sorted before its values, in
// either direction. Only a [Nullable] column has NULLs: [New] refuses
// NullsFirst on another.
func (c Column[T]) NullsFirst() Column[T] {
	c.nullsFirst = true
	return c
}

// Unique returns c marked as holding no two equal values, such as a
// primary key: the tie-breaker [New] requires at the end of every order.
func (c Column[T]) Unique() Column[T] {
	c.unique = true
	return c
}

func kindOf[V Value]() kind {
	t := reflect.TypeFor[V]()
	if t == reflect.TypeFor[time.Time]() {
		return kindTime
	}
	return kindOfType(t)
}

// kindOfType is the kind of keys of values of t, 0 for none.
func kindOfType(t reflect.Type) kind {
	if t == reflect.TypeFor[time.Time]() {
		return kindTime
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return kindFloat
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return kindInt
	}
	return 0
}

func is32[V Value]() bool { return reflect.TypeFor[V]().Kind() == reflect.Float32 }

// sameFunc returns the function reporting whether two items hold the same
// value.
func sameFunc[T any, V Value](value func(T) V) func(a, b *T) bool {
	if tv, ok := any(value).(func(T) time.Time); ok {
		return func(a, b *T) bool { return tv(*a).UnixMicro() == tv(*b).UnixMicro() }
	}
	return func(a, b *T) bool { return value(*a) == value(*b) }
}

// zeroFunc returns the function reporting whether an item holds the zero
// value.
func zeroFunc[T any, V Value](value func(T) V) func(*T) bool {
	if tv, ok := any(value).(func(T) time.Time); ok {
		return func(it *T) bool { return tv(*it).IsZero() }
	}
	return func(it *T) bool {
		var z V
		return value(*it) == z
	}
}

// keyOf returns v as a cursor key.
func keyOf[V Value](v V) any {
	switch x := any(v).(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case string:
		return x
	case float64:
		return x
	case bool:
		return x
	case time.Time:
		return x.UnixMicro()
	}
	return keyOfValue(reflect.ValueOf(v))
}

// keyOfValue returns the cursor key of v, a value of a type kindOfType
// knows.
func keyOfValue(v reflect.Value) any {
	if v.Type() == reflect.TypeFor[time.Time]() {
		return timeOf(v).UnixMicro()
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return int64(v.Uint())
	}
	return v.Int()
}

// timeOf returns v, a time.Time, without copying it when addressable.
func timeOf(v reflect.Value) *time.Time {
	if v.CanAddr() {
		return v.Addr().Interface().(*time.Time)
	}
	t := v.Interface().(time.Time)
	return &t
}

// keysEqual reports whether the keys x and y, neither nil, are equal.
func keysEqual(x, y any) bool { return compareKeys(x, y) == 0 }

// The times a cursor may hold: years 1 to 9999, which every engine stores
// and bun writes in one format.
var (
	minTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
)

// check returns why the cursor key k does not fit c ("" when it does).
func (c Column[T]) check(k any) string {
	if i, ok := k.(int); ok {
		k = int64(i)
	}
	switch v := k.(type) {
	case nil:
		if c.nullable {
			return ""
		}
		return "is NULL, and the column is never NULL"
	case int64:
		switch c.kind {
		case kindInt:
			return ""
		case kindTime:
			if v < minTime || v > maxTime {
				return "is a time outside the years 1 to 9999"
			}
			return ""
		}
	case float64:
		if c.kind == kindFloat {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return fmt.Sprintf("is %v", v)
			case c.f32 && float64(float32(v)) != v:
				return fmt.Sprintf("is %v, not a float32", v)
			}
			return ""
		}
	case string:
		if c.kind == kindString {
			if !utf8.ValidString(v) {
				return "is not valid UTF-8"
			}
			if strings.IndexByte(v, 0) >= 0 {
				return "holds a NUL byte"
			}
			return ""
		}
	case bool:
		if c.kind == kindBool {
			return ""
		}
	}
	return fmt.Sprintf("is %T, want %s", k, kindNames[c.kind])
}

// arg checks the cursor key k against c and returns the SQL argument it
// stands for (nil for NULL), or an error wrapping bounded.ErrInvalidCursor.
func (c Column[T]) arg(k any) (any, error) {
	if why := c.check(k); why != "" {
		return nil, fmt.Errorf("%w: key for column %q %s", bounded.ErrInvalidCursor, c.name, why)
	}
	switch v := k.(type) {
	case int:
		return int64(v), nil
	case int64:
		if c.kind == kindTime {
			return time.UnixMicro(v).UTC(), nil
		}
	}
	return k, nil
}
