package bunpage

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/uptrace/bun/schema"
)

// resolve checks the columns of order against T's bun model (table) and
// returns them, with the positions of those never NULL whose NULLs a page
// looks for: those whose field the model does not declare NOT NULL.
func resolve[T any](table *schema.Table, order []Column[T]) ([]Column[T], []int, error) {
	cols := make([]Column[T], len(order))
	var checked []int
	for i, c := range order {
		if c.name == "" || c.key == nil || strings.Contains(c.name, ".") {
			cols[i] = c // checkOrder says what is wrong
			continue
		}
		f := table.LookupField(c.name)
		if f == nil {
			if g := fieldByGoName(table, c.name); g != nil {
				return nil, nil, fmt.Errorf("%w: column %q: %s is the Go name of column %q", ErrInvalidSource, c.name, c.name, g.Name)
			}
			return nil, nil, fmt.Errorf("%w: column %q: %s has no field for it", ErrInvalidSource, c.name, table.Type)
		}
		if !c.nullable && !f.NotNull {
			if mayBeNull(f) {
				return nil, nil, fmt.Errorf("%w: column %q: field %s (%s) may hold NULL, and Col is never NULL: use Nullable, or tag the field notnull", ErrInvalidSource, c.name, f.GoName, f.StructField.Type)
			}
			checked = append(checked, i)
		}
		cols[i] = c
	}
	return cols, checked, nil
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
	for _, f := range table.Fields {
		if f.GoName == name {
			return f
		}
	}
	return nil
}
