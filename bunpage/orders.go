package bunpage

import (
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// ErrUnknownOrder is returned by [Orders.New] for a name not among the
// orders.
var ErrUnknownOrder = errors.New("bunpage: unknown order")

// Fields returns the columns of T's fields named by keys, each a column
// or a Go field as [Field] takes it, descending with a leading "-":
// Fields[Task]("-priority", "due").
func Fields[T any](keys ...string) []Column[T] {
	cols := make([]Column[T], len(keys))
	for i, k := range keys {
		if name, ok := strings.CutPrefix(k, "-"); ok {
			cols[i] = Field[T](name).Desc()
		} else {
			cols[i] = Field[T](k)
		}
	}
	return cols
}

// By returns the Source of the rows q selects, in the order of T's
// fields named by keys (see [Fields]), the model's primary key last
// unless the last key is unique: By[Task](db, q, "-priority") pages by
// priority, then id, both descending; By[Task](db, q) by id. Its errors
// are New's.
func By[T any](db bun.IDB, q *bun.SelectQuery, keys ...string) (*Source[T], error) {
	return newSource(db, q, true, Fields[T](keys...))
}

// Order is an order of [Orders]: its name, as a tool's argument gives
// it, and its columns. When the last column is not unique, the model's
// primary key follows it, in its direction.
type Order[T any] struct {
	Name    string
	Columns []Column[T]
}

// Orders are the orders a call chooses from by name, the first the
// default. List their names in a tool's input schema (an enum) with
// [Orders.Names].
type Orders[T any] []Order[T]

// Names returns the orders' names, in order.
func (o Orders[T]) Names() []string {
	names := make([]string, len(o))
	for i, ord := range o {
		names[i] = ord.Name
	}
	return names
}

// New returns the Source of the rows q selects in the order named name
// (the first for ""), as [New] does. A cursor holds only for the order
// that issued it: another's is driver.ErrCursorForeign. A name not
// among the orders is an error wrapping [ErrUnknownOrder]; two orders
// of one name, or none, one wrapping [ErrInvalidSource].
func (o Orders[T]) New(db bun.IDB, q *bun.SelectQuery, name string) (*Source[T], error) {
	if len(o) == 0 {
		return nil, fmt.Errorf("%w: no orders", ErrInvalidSource)
	}
	pick := -1
	for i, ord := range o {
		if ord.Name == "" {
			return nil, fmt.Errorf("%w: order %d has no name", ErrInvalidSource, i)
		}
		for _, other := range o[:i] {
			if other.Name == ord.Name {
				return nil, fmt.Errorf("%w: two orders are named %q", ErrInvalidSource, ord.Name)
			}
		}
		if ord.Name == name || name == "" && i == 0 {
			pick = i
		}
	}
	if pick < 0 {
		return nil, fmt.Errorf("%w: %q: want one of %q", ErrUnknownOrder, name, o.Names())
	}
	s, err := newSource(db, q, true, o[pick].Columns)
	if err != nil {
		return nil, fmt.Errorf("order %q: %w", o[pick].Name, err)
	}
	s.name = o[pick].Name
	s.build()
	return s, nil
}
