package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"strconv"

	"github.com/uptrace/bun"
)

// Bound is a statement's text and the arguments of its named parameters
// (":p1", ":p2", ...), passed to the database driver through the
// statement's context ([WithBound]) rather than formatted into the text by
// bun. A driver that reads them ([Dialect.BindArgs]) can keep the
// statement prepared: its text is the same on every call.
type Bound struct {
	Query string
	Args  []driver.NamedValue
}

type boundKey struct{}

// WithBound returns ctx carrying b.
func WithBound(ctx context.Context, b *Bound) context.Context {
	return context.WithValue(ctx, boundKey{}, b)
}

// BoundOf returns the arguments ctx carries for the statement query, if
// any.
func BoundOf(ctx context.Context, query string) ([]driver.NamedValue, bool) {
	b, ok := ctx.Value(boundKey{}).(*Bound)
	if !ok || b.Query != query {
		return nil, false
	}
	return b.Args, true
}

// args gathers a statement's arguments as its text is written: formatted
// into the text by bun, or, with bind, as named parameters.
type args struct {
	bind  bool
	bun   []any
	named []driver.NamedValue
}

// value writes the placeholder of v.
func (a *args) value(v any) string {
	if !a.bind {
		a.bun = append(a.bun, v)
		return "?"
	}
	// The arguments reach the driver past database/sql's conversion.
	dv, err := driver.DefaultParameterConverter.ConvertValue(v)
	if err != nil { // the statements bind strings and ints
		panic(err)
	}
	n := len(a.named) + 1
	name := "p" + strconv.Itoa(n)
	a.named = append(a.named, driver.NamedValue{Name: name, Ordinal: n, Value: dv})
	return ":" + name
}

// list writes the parenthesized list of ids for IN: the ids themselves, or
// a bound JSON array read by json_each (SQLite), so that the statement's
// text does not change with their number.
func (a *args) list(ids []string) string {
	if !a.bind {
		return "(" + a.value(bun.List(ids)) + ")"
	}
	b, err := json.Marshal(ids)
	if err != nil { // []string always marshals
		panic(err)
	}
	return "(SELECT value FROM json_each(" + a.value(string(b)) + "))"
}

// queryArgs runs query, written with a's placeholders, as [Store.query]
// does.
func (s *Store) queryArgs(ctx context.Context, query string, a *args, scan func(*sql.Rows) error) error {
	if a.bind {
		return s.query(WithBound(ctx, &Bound{Query: query, Args: a.named}), query, nil, scan)
	}
	return s.query(ctx, query, a.bun, scan)
}

// queryRowArgs runs query, written with a's placeholders, and scans its
// first row into dest, as database/sql's QueryRowContext does
// ([sql.ErrNoRows] when there is none).
func (s *Store) queryRowArgs(ctx context.Context, query string, a *args, dest ...any) error {
	if a.bind {
		return s.db.QueryRowContext(WithBound(ctx, &Bound{Query: query, Args: a.named}), query).Scan(dest...)
	}
	return s.db.QueryRowContext(ctx, query, a.bun...).Scan(dest...)
}
