package bunpage

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/uptrace/bun/schema"
)

// resolve checks the columns of order against T's bun model (table),
// resolving those made by Field, and returns them, with the positions of
// those never NULL whose NULLs a page looks for: those whose field the
// model does not declare NOT NULL. With tieBreak, an order that does not
// end with a unique column (or is empty) gets the model's primary key.
func resolve[T any](table *schema.Table, order []Column[T], tieBreak bool) ([]Column[T], []int, error) {
	cols := make([]Column[T], 0, len(order)+1)
	var fields []*schema.Field
	for _, c := range order {
		if c.name == "" || strings.Contains(c.name, ".") || c.key == nil && !c.byField {
			cols, fields = append(cols, c), append(fields, nil) // checkOrder says what is wrong
			continue
		}
		f := table.LookupField(c.name)
		if f == nil && c.byField {
			f = fieldByGoName(table, c.name)
		}
		switch {
		case f == nil && fieldByGoName(table, c.name) != nil:
			return nil, nil, fmt.Errorf("%w: column %q: %s is the Go name of column %q: name the column, or use Field", ErrInvalidSource, c.name, c.name, fieldByGoName(table, c.name).Name)
		case f == nil:
			return nil, nil, fmt.Errorf("%w: column %q: %s has no field for it", ErrInvalidSource, c.name, table.Type)
		case c.expr != "" && !f.Tag.HasOption("scanonly"):
			return nil, nil, fmt.Errorf("%w: column %q is an expression: its field %s must be tagged scanonly, as the query does not select it", ErrInvalidSource, c.name, f.GoName)
		}
		if c.byField {
			var err error
			if c, err = fieldColumn(table, f, c); err != nil {
				return nil, nil, err
			}
		}
		cols, fields = append(cols, c), append(fields, f)
	}
	if last := len(cols) - 1; tieBreak && (last < 0 || !cols[last].unique || cols[last].nullable) && len(table.PKs) == 1 {
		pk := table.PKs[0]
		if !containsColumn(cols, pk.Name) {
			c, err := fieldColumn(table, pk, Column[T]{desc: last >= 0 && cols[last].desc})
			if err != nil {
				return nil, nil, err
			}
			cols, fields = append(cols, c), append(fields, pk)
		}
	}
	var checked []int
	for i, c := range cols {
		f := fields[i]
		if f == nil || c.nullable || f.NotNull {
			continue
		}
		if mayBeNull(f) {
			return nil, nil, fmt.Errorf("%w: column %q: field %s (%s) may hold NULL, and Col is never NULL: use Nullable, or tag the field notnull", ErrInvalidSource, c.name, f.GoName, f.StructField.Type)
		}
		checked = append(checked, i)
	}
	return cols, checked, nil
}

func containsColumn[T any](cols []Column[T], name string) bool {
	for _, c := range cols {
		if c.name == name {
			return true
		}
	}
	return false
}

// fieldColumn returns c, a column of Field, resolved to the field f of
// table: its column's name, type, NULLs and uniqueness, and its values
// read from the field.
func fieldColumn[T any](table *schema.Table, f *schema.Field, c Column[T]) (Column[T], error) {
	t := f.StructField.Type
	// value reads the field's value from the struct field: nil for
	// NULL, or a value of a type kindOfType knows.
	var value func(v reflect.Value) (reflect.Value, bool)
	switch {
	case kindOfType(t) != 0 && f.NullZero && !f.NotNull:
		// bun writes the zero value as NULL, and reads NULL as it.
		value = func(v reflect.Value) (reflect.Value, bool) { return v, !v.IsZero() }
		c.nullable = true
	case kindOfType(t) != 0:
		value = func(v reflect.Value) (reflect.Value, bool) { return v, true }
	case t.Kind() == reflect.Pointer && kindOfType(t.Elem()) != 0:
		t = t.Elem()
		value = func(v reflect.Value) (reflect.Value, bool) {
			if v.IsNil() {
				return v, false
			}
			return v.Elem(), true
		}
		c.nullable = !f.NotNull
	default:
		valid, inner, ok := nullStruct(t)
		if !ok {
			return c, fmt.Errorf("%w: field %s of %s is a %s: a key's field must be a type Value allows, or a pointer or sql.Null of one", ErrInvalidSource, f.GoName, table.Type, t)
		}
		t = t.Field(inner).Type
		value = func(v reflect.Value) (reflect.Value, bool) { return v.Field(inner), v.Field(valid).Bool() }
		c.nullable = !f.NotNull
	}
	c.name, c.byField = f.Name, false
	c.kind, c.f32 = kindOfType(t), t.Kind() == reflect.Float32
	c.unique = c.unique || uniqueField(table, f)
	index := f.Index
	// get returns the field's value in the item at it, false for NULL.
	get := func(it *T) (reflect.Value, bool) {
		v := reflect.ValueOf(it).Elem()
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		fv, err := v.FieldByIndexErr(index)
		if err != nil {
			return fv, false // a nil embedded pointer
		}
		return value(fv)
	}
	c.key = func(it *T) any {
		if v, ok := get(it); ok {
			return keyOfValue(v)
		}
		return nil
	}
	c.same = func(a, b *T) bool {
		x, xok := get(a)
		y, yok := get(b)
		if !xok || !yok {
			return xok == yok
		}
		switch c.kind {
		case kindTime:
			return timeOf(x).UnixMicro() == timeOf(y).UnixMicro()
		case kindString:
			return x.String() == y.String()
		}
		return x.Equal(y)
	}
	c.zero = func(it *T) bool {
		v, ok := get(it)
		return !ok || v.IsZero()
	}
	return c, nil
}

// nullStruct reports whether t is a type like sql.NullString: a struct
// that scans NULL itself, with a Valid field and the value's field, at
// the indexes returned.
func nullStruct(t reflect.Type) (valid, value int, ok bool) {
	if t.Kind() != reflect.Struct || t.NumField() != 2 || !reflect.PointerTo(t).Implements(reflect.TypeFor[sql.Scanner]()) {
		return 0, 0, false
	}
	for i := range 2 {
		if f := t.Field(i); f.Name == "Valid" && f.Type.Kind() == reflect.Bool {
			other := 1 - i
			return i, other, kindOfType(t.Field(other).Type) != 0
		}
	}
	return 0, 0, false
}

// uniqueField reports whether f alone is unique in table: its one
// primary key, or a field tagged unique on its own.
func uniqueField(table *schema.Table, f *schema.Field) bool {
	if f.IsPK && len(table.PKs) == 1 {
		return true
	}
	for _, group := range table.Unique {
		if len(group) == 1 && group[0] == f {
			return true
		}
	}
	return false
}

// mayBeNull reports whether a field holds NULL as something else than
// the zero value: a pointer, a type that scans NULL itself (sql.NullString),
// or a field whose zero value bun writes as NULL (nullzero).
func mayBeNull(f *schema.Field) bool {
	t := f.StructField.Type
	return f.IsPtr || f.NullZero ||
		t != reflect.TypeFor[time.Time]() && reflect.PointerTo(t).Implements(reflect.TypeFor[sql.Scanner]())
}

// fieldByGoName returns the field of table whose Go name is name.
func fieldByGoName(table *schema.Table, name string) *schema.Field {
	for _, f := range table.FieldMap {
		if f.GoName == name {
			return f
		}
	}
	return nil
}
