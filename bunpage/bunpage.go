// Package bunpage pages a bun query as a [bounded.Source], by offset or by
// cursor, in an order of the caller's columns that ends with a unique one:
//
//	q := db.NewSelect().Model((*Book)(nil)).Where("shelf = ?", shelf)
//	src, err := bunpage.By[Book](db, q, "-year") // newest first, then by id
//	if err != nil { ... }
//	out, err := bounded.Respond(ctx, src, call, page, bounded.Options[Book]{Limits: limits})
//
// [By] names the order's fields and appends the primary key as the
// tie-breaker; [New] takes columns made by [Col] and [Nullable], with a
// value function each, [Field] and [Column.Expr]; [Orders] lets each call
// choose an order by name. [Source.CheckIndex], run in a test, reports
// an order no index serves.
//
// A page is one statement, SELECT * FROM (q) ORDER BY the columns
// LIMIT limit+1 with OFFSET n or, after a cursor, a keyset predicate on the
// columns, which an index on them enters at the cursor:
//
//   - the row value (a, b) > (?, ?) when the columns sort one way;
//   - for mixed directions, a row value per run of columns sorting one
//     way, each run after the first compared only on ties, as in
//     a <= ? AND (a <> ? OR b > ?);
//   - on MariaDB and MySQL, whose range optimizer does not enter an index
//     at a row value, a <= ? AND ((a < ?) OR (a = ? AND b > ?) ...).
//
// On SQLite and Postgres, a first column that may be NULL is no range
// after a value with its NULLs last, nor after a NULL with its NULLs
// first: such a page reads the index from its start. A count is a column
// of the same statement, so page and count come from one snapshot on
// every engine.
//
// On MariaDB and MySQL (bun's mysqldialect), which have no NULLS
// FIRST/LAST, NULLs sort by a CASE expression, which no index serves,
// unless they sort where the engine puts them: first ascending, last
// descending. Give string columns of the order a binary collation
// without pad space: utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on
// MySQL 8 (COLLATE "C" on Postgres; SQLite's default BINARY). They
// order as Go compares strings, bytewise, so the rows come in the same
// order on every engine and in memory. Any
// collation pages consistently, as the ORDER BY and the keyset compare
// alike, but the default utf8mb4_general_ci ties "apple" with "Apple",
// "é" with "e" and one emoji with another, and utf8mb4_bin's pad space
// ties "a" with "a " and sorts "a\t" before "a": such ties are broken by
// the next column, an order of the database's own. Keep times in
// DATETIME(6) columns (TIMESTAMP ends in 2038) in UTC, as the driver's
// parseTime=true with its default loc=UTC reads them and as a cursor's
// times are written, and floats in DOUBLE columns: FLOAT is read back
// with six digits. The server must not run with NO_BACKSLASH_ESCAPES,
// as the dialect escapes a backslash in a string with another.
//
// Cursors carry the edge item's column values. [bounded.Respond] binds
// them to the call's tool and arguments and signs them with its
// Options.Cursors: build q from those alone, so that a cursor means the
// same rows on every call that accepts it. Fetch checks a cursor's values
// against the columns before any SQL runs, so a forged one is
// [bounded.ErrInvalidCursor], never a database error.
package bunpage

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/keyset"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// ErrInvalidSource is returned by [New], wrapped with the reason, for
// arguments it cannot page: see New.
var ErrInvalidSource = errors.New("bunpage: invalid source")

// ErrNoTieBreaker is returned by [New] (wrapped with [ErrInvalidSource])
// for an order that does not end with a [Column.Unique] column that is
// never NULL: without one, rows that tie on every column could be
// skipped or repeated between pages.
var ErrNoTieBreaker = errors.New("bunpage: the order does not end with a unique column")

// alias names the user's query where a page or count selects from it.
const alias = "bunpage"

// Source is a [bounded.Source] over the rows of a bun query: see [New].
// It is safe for concurrent use as far as its database is.
type Source[T any] struct {
	db bun.IDB
	// from is the rows' SQL: the user's query, formatted by New.
	from bun.Safe
	cols []Column[T]
	// order is the columns as keys of the keyset, qualified with alias.
	order []keyset.Key
	// style: MariaDB and MySQL evaluate a row value row by row along the
	// index instead of entering it at the cursor, so they get the
	// expanded form and its ranges; they have no NULLS FIRST/LAST, so
	// NULLs are ordered by a CASE expression where they do not sort as
	// the least value.
	style keyset.Style
	// orderBy and orderArgs are the ORDER BY of a page read forward [0]
	// and backward [1].
	orderBy   [2]string
	orderArgs [2][]any
	// nullChecked are the columns never NULL whose NULLs a page looks
	// for: those the model does not declare NOT NULL.
	nullChecked []int
	// name is the order's name in [Orders]; table the model's table.
	name, table string
	// scope names the query and the order for cursors: [Source.CursorScope].
	scope string
	// bun scans rows; ptr returns the struct an item is scanned into.
	bun *bun.DB
	ptr func(*T) any
}

// New returns the Source of the rows q selects, in the order of the
// columns of order, the last of which must be [Column.Unique] and never
// NULL (an error wrapping [ErrNoTieBreaker] otherwise). Pages run on db,
// a *bun.DB, bun.Conn or bun.Tx of q's dialect; q supplies only the rows'
// SQL, formatted now, so that later changes to q do not change the source.
//
// Each page is scanned into a []T by column name, as q.Scan would scan
// it, joined relations (has-one, belongs-to) included; relations bun loads
// with queries of their own (has-many, many-to-many) are not loaded.
//
// T is a struct or a pointer to one, with a field for each column of the
// order. A nil db or q, a q that does not format, or an order with an
// empty, qualified ("b.year"), repeated or unknown name, a column not
// made by [Col], [Nullable] or [Field], a [Col] over a field that may
// hold NULL (a pointer, a sql.Null type, nullzero, unless tagged
// notnull), or NullsFirst on a column that is not Nullable, is an error
// wrapping [ErrInvalidSource].
func New[T any](db bun.IDB, q *bun.SelectQuery, order ...Column[T]) (*Source[T], error) {
	return newSource(db, q, false, order)
}

// newSource is New; with tieBreak, an order that does not end with a
// unique column gets the model's primary key.
func newSource[T any](db bun.IDB, q *bun.SelectQuery, tieBreak bool, order []Column[T]) (*Source[T], error) {
	switch {
	case db == nil:
		return nil, fmt.Errorf("%w: nil database", ErrInvalidSource)
	case q == nil || q.DB() == nil:
		return nil, fmt.Errorf("%w: nil query", ErrInvalidSource)
	case db.Dialect().Name() != q.Dialect().Name():
		return nil, fmt.Errorf("%w: the database's dialect is %s, the query's %s", ErrInvalidSource, db.Dialect().Name(), q.Dialect().Name())
	}
	st := reflect.TypeFor[T]()
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: items of type %s: want a struct or a pointer to one", ErrInvalidSource, reflect.TypeFor[T]())
	}
	bdb := db.NewSelect().DB()
	order, checked, err := resolve(bdb.Table(st), order, tieBreak)
	if err != nil {
		return nil, err
	}
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	from, err := q.AppendQuery(q.DB().QueryGen(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: the query: %w", ErrInvalidSource, err)
	}
	d := db.Dialect().Name()
	noRowValue := d == dialect.MSSQL || d == dialect.MySQL
	s := &Source[T]{
		db:          db,
		from:        bun.Safe(from),
		cols:        order,
		style:       keyset.Style{Expand: noRowValue, CaseNulls: noRowValue, LowNulls: noRowValue, NullSafe: noRowValue},
		nullChecked: checked,
		bun:         bdb,
		table:       bdb.Table(st).Name,
	}
	s.ptr = func(p *T) any { return p }
	if t := reflect.TypeFor[T](); t.Kind() == reflect.Pointer {
		s.ptr = func(p *T) any {
			*p = reflect.New(t.Elem()).Interface().(T)
			return *p
		}
	}
	s.build()
	return s, nil
}

// build derives the order's SQL and the cursor scope from the columns,
// the style and the order's name.
func (s *Source[T]) build() {
	d := s.db.Dialect().Name()
	scope := fmt.Appendf(nil, "bunpage\x00%s\x00%q\x00%s", d, s.name, s.from)
	s.order = s.order[:0:0]
	for _, c := range s.cols {
		scope = fmt.Appendf(scope, "%q %d %t %t %t %t %t %q\x00", c.name, c.kind, c.desc, c.nullable, c.nullsFirst, c.unique, c.f32, c.expr)
		if c.expr != "" {
			scope = s.bun.QueryGen().AppendQuery(scope, c.expr, c.exprArgs...)
		}
		s.order = append(s.order, keyset.Key{Expr: c.sql(), Desc: c.desc, Nullable: c.nullable, NullsFirst: c.nullsFirst, Computed: c.expr != ""})
	}
	s.scope = string(scope)
	for i := range 2 {
		s.orderBy[i], s.orderArgs[i] = keyset.OrderBy(s.order, i == 1, s.style)
	}
}

// Reverse returns s read in the opposite order: each column's direction
// flipped, its NULLs where they were. Its cursors are not s's.
func (s *Source[T]) Reverse() *Source[T] {
	c := *s
	c.cols = slices.Clone(s.cols)
	for i := range c.cols {
		c.cols[i].desc = !c.cols[i].desc
	}
	c.build()
	return &c
}

// sql is the column's SQL in a page: its expression, or its name
// qualified with alias.
func (c Column[T]) sql() any {
	if c.expr != "" {
		return bun.SafeQuery(c.expr, c.exprArgs...)
	}
	return bun.Ident(alias + "." + c.name)
}

func checkOrder[T any](order []Column[T]) error {
	if len(order) == 0 {
		return fmt.Errorf("%w: %w: the order is empty; end it with a unique column, such as the primary key", ErrInvalidSource, ErrNoTieBreaker)
	}
	seen := make(map[string]bool, len(order))
	for i, c := range order {
		switch {
		case c.key == nil:
			return fmt.Errorf("%w: column %d (%q) has no value function: make columns with Col, Nullable or Field", ErrInvalidSource, i, c.name)
		case c.name == "":
			return fmt.Errorf("%w: column %d has no name", ErrInvalidSource, i)
		case strings.Contains(c.name, "."):
			return fmt.Errorf("%w: column %q: name a column of the query's results, without its table", ErrInvalidSource, c.name)
		case seen[c.name]:
			return fmt.Errorf("%w: column %q appears twice", ErrInvalidSource, c.name)
		case c.nullsFirst && !c.nullable:
			return fmt.Errorf("%w: column %q is never NULL: NullsFirst needs a Nullable column", ErrInvalidSource, c.name)
		}
		seen[c.name] = true
	}
	switch last := order[len(order)-1]; {
	case !last.unique:
		return fmt.Errorf("%w: %w: the last column, %q, is not Unique; end the order with a unique column, such as the primary key", ErrInvalidSource, ErrNoTieBreaker, last.name)
	case last.nullable:
		return fmt.Errorf("%w: %w: the last column, %q, may be NULL, and NULLs do not break ties", ErrInvalidSource, ErrNoTieBreaker, last.name)
	}
	return nil
}

// CursorScope names the source's query and order, so that [bounded.Respond]
// refuses a cursor another query issued, even for the same tool and
// arguments, with an error wrapping [bounded.ErrInvalidCursor].
func (s *Source[T]) CursorScope() string { return s.scope }

// Fetch returns the rows r asks for, as [bounded.Source] documents, with
// their keys (each column's value) for cursors: nil for an item with a
// key no cursor can hold. A cursor's keys that do not fit the columns
// (their number, a type, NULL for a column never NULL, NaN or an
// infinity, a string that is not UTF-8 or holds NUL, a time outside the
// years 1 to 9999) are an error wrapping [bounded.ErrInvalidCursor], and
// a Limit under 1 or a negative Offset one wrapping
// [bounded.ErrInvalidPage], both before any SQL runs. Database errors are
// returned wrapped.
//
// Rows that break the order's promises are an error wrapping
// [ErrInvalidSource]: two rows equal on every column, among those read
// (the rows on either side of the page included); a NULL in a column
// never NULL, in a row read or, at the end of a walk by cursor, in any
// row. NULLs are looked for with a statement of their own, for a column
// whose field is not tagged notnull, on a page that reads its zero value
// and at the end of a walk by cursor.
//
// The count r.Count asks for is read by the page's own statement, so that
// both come from one snapshot on every engine: the exact count of q's
// rows, or of at most r.CountCap+1 of them (with a CountCap of 0,
// [bounded.DefaultCountCap] of r.Limit). An empty page after the start
// counts with a statement of its own. With [bounded.CountNone] nothing is
// counted and Rows.Count is -1.
func (s *Source[T]) Fetch(ctx context.Context, r driver.Request) (driver.Rows[T], error) {
	if r.Limit < 1 || r.Offset < 0 {
		return driver.Rows[T]{}, fmt.Errorf("%w: limit %d, offset %d", bounded.ErrInvalidPage, r.Limit, r.Offset)
	}
	var at []any
	if r.At != nil {
		var err error
		if at, err = s.args(r.At.Keys); err != nil {
			return driver.Rows[T]{}, err
		}
	}
	var items []T
	count := int64(-1)
	var err error
	if r.Count == bounded.CountNone {
		err = s.page(r, at).Scan(ctx, &items)
	} else {
		items, count, err = s.pageCount(ctx, r, at)
	}
	if err != nil {
		return driver.Rows[T]{}, fmt.Errorf("bunpage: %w", err)
	}
	if err := s.checkTies(items); err != nil {
		return driver.Rows[T]{}, err
	}
	if r.At == nil && r.Offset > 0 && len(items) > 0 {
		items = items[1:] // the row before the page
	}
	more := len(items) > r.Limit
	if err := s.checkNulls(ctx, items, r.At != nil && !more); err != nil {
		return driver.Rows[T]{}, err
	}
	if more {
		items = items[:r.Limit]
	}
	if r.Backward() {
		slices.Reverse(items)
	}
	var cur []any
	if r.At != nil {
		cur = r.At.Keys
	}
	if err := s.checkOrder(items, cur, r.Backward()); err != nil {
		return driver.Rows[T]{}, err
	}
	return driver.Rows[T]{Items: items, More: more, Count: int(count), Keys: s.cursorKeys}, nil
}

// keys returns the keys of the item at it.
func (s *Source[T]) keys(it *T) []any {
	keys := make([]any, len(s.cols))
	for i, c := range s.cols {
		keys[i] = c.key(it)
	}
	return keys
}

// cursorKeys returns the keys of it, or nil when a cursor cannot hold
// them.
func (s *Source[T]) cursorKeys(it T) []any {
	keys := s.keys(&it)
	for i, c := range s.cols {
		if c.check(keys[i]) != "" {
			return nil
		}
	}
	return keys
}

// args checks a cursor's keys against the columns and returns their SQL
// arguments.
func (s *Source[T]) args(keys []any) ([]any, error) {
	if len(keys) != len(s.cols) {
		return nil, fmt.Errorf("%w: %d keys, want %d", bounded.ErrInvalidCursor, len(keys), len(s.cols))
	}
	args := make([]any, len(keys))
	for i, c := range s.cols {
		a, err := c.arg(keys[i])
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	return args, nil
}

// selectFrom returns a query selecting from the user's, named name.
func (s *Source[T]) selectFrom(name string) *bun.SelectQuery {
	return s.db.NewSelect().TableExpr("(?) AS ?", s.from, bun.Ident(name))
}

// page is the query of r's page: ordered in r's reading direction, after
// the keys at when set, one row past r.Limit; by offset after the start,
// from the row before the page.
func (s *Source[T]) page(r driver.Request, at []any) *bun.SelectQuery {
	q := s.selectFrom(alias).ColumnExpr("?.*", bun.Ident(alias))
	for _, c := range s.cols {
		if c.expr != "" {
			q = q.ColumnExpr("? AS ?", c.sql(), bun.Ident(c.name))
		}
	}
	back := r.Backward()
	if at != nil {
		pred, args := s.predicate(at, back)
		q = q.Where(pred, args...)
	}
	dir := 0
	if back {
		dir = 1
	}
	q = q.OrderExpr(s.orderBy[dir], s.orderArgs[dir]...)
	if at == nil && r.Offset > 0 {
		// The row before the page too, to see it tie with the first.
		return q.Limit(int64(r.Limit) + 2).Offset(int64(r.Offset) - 1)
	}
	return q.Limit(int64(r.Limit) + 1)
}

// totalColumn is the column of a page's count. bun skips columns whose
// names start with "_" when it scans a row into a struct.
const totalColumn = "_bunpage_total"

// pageCount reads r's page and its count with one statement: the page's,
// with the count as a column (an uncorrelated subquery, which the engines
// evaluate once). The count is read from the first row, then bun scans
// the rows as it does a page alone. An empty page has no row to carry the
// count: the count of an empty set is 0, and an empty page after the
// start counts with a statement of its own.
func (s *Source[T]) pageCount(ctx context.Context, r driver.Request, at []any) ([]T, int64, error) {
	var count int64
	q := s.page(r, at).ColumnExpr("(?) AS ?", s.count(r), bun.Ident(totalColumn))
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil || r.At == nil && r.Offset == 0 {
			return nil, 0, err
		}
		err := s.count(r).Scan(ctx, &count)
		return nil, count, err
	}
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = skip{}
	}
	dest[len(dest)-1] = &count
	if err := rows.Scan(dest...); err != nil {
		return nil, 0, err
	}
	items := make([]T, 1, r.Limit+2)
	if err := s.bun.ScanRow(ctx, rows, s.ptr(&items[0])); err != nil {
		return nil, 0, err
	}
	var rest []T
	if err := s.bun.ScanRows(ctx, rows, &rest); err != nil {
		return nil, 0, err
	}
	return append(items, rest...), count, nil
}

// skip is a column scanned and discarded.
type skip struct{}

func (skip) Scan(any) error { return nil }

// count is the query of r's count: every row of q, or at most
// r.CountCap+1 of them.
func (s *Source[T]) count(r driver.Request) *bun.SelectQuery {
	q := s.db.NewSelect().ColumnExpr("count(*)")
	if r.Count != bounded.CountCapped {
		return q.TableExpr("(?) AS ?", s.from, bun.Ident(alias+"_all"))
	}
	limit := r.CountCap
	if limit <= 0 {
		limit = bounded.DefaultCountCap(r.Limit)
	}
	capped := s.selectFrom(alias + "_all").ColumnExpr("1 AS one").Limit(int64(limit) + 1)
	return q.TableExpr("(?) AS ?", capped, bun.Ident(alias+"_capped"))
}
