// Package sqlstore is the bun code shared by the SQLite and Postgres
// adapters: one [Store] implementing every port, parameterised by a
// [Dialect] that names each difference between the engines.
//
// Every page is computed by the database in one statement: the total (a
// count over the same filter, exact or limited to a cap, or none, as the
// page asks) and the page (ORDER BY the documented keys, ending with the
// unique id, LIMIT n+1 OFFSET m, or after a cursor's keys by a row-value
// keyset predicate) are read together, so they come from one snapshot on
// every engine and in every isolation level, and the total is there even
// for an offset past the end. Statements are built with bun's query
// builder, their keyset predicates and orders by package keyset, as
// package bunpage builds its own. Inputs are validated with the helpers of
// package ports and bounded before any SQL runs; every value reaches SQL
// as a bun argument (bun quotes it for the dialect), never spliced into
// the query text by this package.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/keyset"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Store implements [ports.Notes], [ports.Knowledge], [ports.History] and
// [ports.Code] on a bun database. It holds no state besides db and the
// dialect, and is safe for concurrent use as far as db is.
type Store struct {
	db bun.IDB
	d  Dialect
}

// Every port is implemented by *Store.
var (
	_ ports.Notes     = (*Store)(nil)
	_ ports.Knowledge = (*Store)(nil)
	_ ports.History   = (*Store)(nil)
	_ ports.Code      = (*Store)(nil)
)

// New creates the schema on db (idempotently) and returns a store using it.
// Once ctx has ended, an error wraps ctx's ([ContextErr]).
func New(ctx context.Context, db bun.IDB, d Dialect) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("%s: nil database", d.Name)
	}
	if d.ExistingSchema {
		// Read-only: check that the schema is there, and say so if not.
		if _, err := db.ExecContext(ctx, "SELECT 1 FROM bounded_notes WHERE 1 = 0"); err != nil {
			return nil, ContextErr(ctx, fmt.Errorf("%s: the schema is missing (create it with a store on the primary first): %w", d.Name, err))
		}
		return &Store{db: db, d: d}, nil
	}
	s := &Store{db: db, d: d}
	if err := s.untilFree(ctx, func() error { return createSchema(ctx, db, d) }); err != nil {
		return nil, ContextErr(ctx, err)
	}
	return s, nil
}

// DB returns the database the store uses.
func (s *Store) DB() bun.IDB { return s.db }

// key is one sort key of a paged query, in the order of the method's
// [ports.Order] and with its direction.
type key struct {
	// inner is the key's expression where the page's rows are selected
	// and ordered (the clauses' ORDER BY and keyset predicate); outer its
	// column among the page's output columns, e.g. "p.updated_at", which
	// the statement joining the page to its counts orders by.
	inner, outer string
	desc         bool
	// num says the key is numeric, so that a mixed-direction keyset can
	// negate it.
	num bool
	// nullable says the key may be NULL: NULLs sort last in either
	// direction, and a cursor's nil value stands for NULL.
	nullable bool
	// conv, when set, turns the cursor's value of the key (the Order's)
	// into the value inner is compared with.
	conv func(v any) any
}

// paged is one paged statement: a count of the matching rows and a page of
// them, read together by [Store.run].
type paged struct {
	// with are common table expressions of the statement, which count
	// and page may read; materialized evaluates them once for both (AS
	// MATERIALIZED, on Postgres and SQLite), not once for each.
	with         []cte
	materialized bool
	// count selects the rows the total counts: its FROM and WHERE, to
	// which run adds the columns (and the cap's LIMIT) of a clone.
	count *bun.SelectQuery
	// extra are more count columns (e.g. whether the named note exists,
	// [foundNote]), read with the total.
	extra []column
	// page returns the SELECT of the page's rows, ordered, given the
	// page's clauses: c.apply(q) on the query selecting them. Its output
	// columns must have distinct names.
	page func(c clauses) *bun.SelectQuery
	// deferred, when set, is the page as a deferred join, which run uses
	// for a page at an offset: it applies the clauses to a subquery
	// selecting the page's keys from a covering index, so that the rows
	// the OFFSET skips are never fetched or joined; its own rows are not
	// ordered. A page that skips no row (at offset 0, or by cursor) reads
	// the rows directly, where the join would only look each row up twice.
	deferred func(c clauses) *bun.SelectQuery
	// keys are the sort keys, ending with the unique id.
	keys []key
	// counted, when set, selects the rows count does with the columns
	// of the page's rows, in no order. A statement with a count then
	// reads them once, up to the cap, into a materialized CTE the total
	// counts; the page is read from there when it holds every row (under
	// the cap, or an exact count), and by page only past the cap: a
	// costly filter is not run twice when the rows are few.
	counted *bun.SelectQuery
}

// cte is a common table expression named name.
type cte struct {
	name string
	q    bun.Query
}

// column is a column expression of a SELECT and its arguments.
type column struct {
	expr string
	args []any
}

// clauses are a page's keyset predicate (none without a cursor), ORDER BY
// and LIMIT/OFFSET, for a [paged] page to apply to the query selecting
// its rows.
type clauses struct {
	pred          string
	predArgs      []any
	order         string
	orderArgs     []any
	limit, offset int
}

// keyset adds the keyset predicate to q's WHERE.
func (c clauses) keyset(q *bun.SelectQuery) *bun.SelectQuery {
	if c.pred == "" {
		return q
	}
	return q.Where(c.pred, c.predArgs...)
}

// apply adds the keyset predicate, the ORDER BY of the keys and the limit
// to q.
func (c clauses) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = c.keyset(q).OrderExpr(c.order, c.orderArgs...).Limit(int64(c.limit))
	if c.offset > 0 {
		q = q.Offset(int64(c.offset))
	}
	return q
}

// style is how the dialect's keysets and orders are written: numeric
// keys sorting against the others are negated, so that the mixed orders
// of the ports (updated_at descending, then id) are one row value, which
// an index on the keys serves as a range entered at the cursor.
func (s *Store) style() keyset.Style {
	return keyset.Style{Expand: s.d.ExpandKeyset, Negate: true, CaseNulls: s.d.CaseNulls}
}

// keysetKeys returns keys for package keyset: their inner expressions, or
// their outer ones.
func keysetKeys(keys []key, outer bool) []keyset.Key {
	out := make([]keyset.Key, len(keys))
	for i, k := range keys {
		e := k.inner
		if outer {
			e = k.outer
		}
		out[i] = keyset.Key{Expr: bun.Safe(e), Desc: k.desc, Nullable: k.nullable, Num: k.num}
	}
	return out
}

// after returns the predicate selecting the rows after the cursor's keys
// (before them, backward) and its arguments ([keyset.After]).
func (s *Store) after(keys []key, at *driver.Cursor) (string, []any, error) {
	if len(at.Keys) != len(keys) {
		return "", nil, fmt.Errorf("%w: %d keys, want %d", bounded.ErrInvalidCursor, len(at.Keys), len(keys))
	}
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = at.Keys[i]
		if k.conv != nil && vals[i] != nil {
			vals[i] = k.conv(vals[i])
		}
	}
	pred, args, err := keyset.After(keysetKeys(keys, false), vals, at.Backward, s.style())
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", bounded.ErrInvalidCursor, err)
	}
	return pred, args, nil
}

// orderBy returns the ORDER BY list of keys (inner or outer expressions),
// every direction flipped when backward, and its arguments.
func (s *Store) orderBy(keys []key, outer, backward bool) (string, []any) {
	return keyset.OrderBy(keysetKeys(keys, outer), backward, s.style())
}

// run executes the statement
//
//	WITH ... SELECT c.*, p.* FROM (SELECT total, extra...) AS c
//	LEFT JOIN (page ORDER BY keys LIMIT limit+1 OFFSET ?) AS p ON TRUE ORDER BY keys
//
// The count and the page are read by one statement, so from one snapshot,
// and the total comes back even when the page is empty. The count follows
// req.Count: exact (a count subquery), capped (a count of a subquery
// limited to CountCap+1 rows) or none (0). The page reads one row past the
// limit, so that HasMore never depends on the count; a cursor request adds
// the keyset predicate and reads from OFFSET 0, backward in the reverse
// order. The outer ORDER BY sorts only the page's rows: without it the
// order of a joined subquery would be unspecified.
//
// It calls scan for every row, with the count's columns first. When the
// page is empty there is one row whose page columns are NULL: scan must
// accept NULLs (see the n* scanners) and the caller drops that row.
//
// A statement that reads no count column (q.bare) is the page alone, WITH
// clauses and all: its rows have no count columns, and an empty page has
// no row.
func (s *Store) run(ctx context.Context, q paged, req driver.Request, scan func(rows *sql.Rows) error) error {
	backward := req.Backward()
	c := clauses{limit: req.Limit + 1, offset: req.Offset}
	if req.At != nil {
		pred, args, err := s.after(q.keys, req.At)
		if err != nil {
			return err
		}
		c.pred, c.predArgs, c.offset = pred, args, 0
	}
	c.order, c.orderArgs = s.orderBy(q.keys, false, backward)
	var stmt *bun.SelectQuery
	if q.bare(req) {
		stmt = q.page(c)
	} else {
		page := q.page
		if q.deferred != nil && c.offset > 0 {
			page = q.deferred
		}
		counts := s.db.NewSelect()
		switch req.Count {
		case bounded.CountExact:
			counts = counts.ColumnExpr("(?) AS total", q.count.Clone().ColumnExpr("count(*)"))
		case bounded.CountCapped:
			capped := q.count.Clone().ColumnExpr("1 AS one").Limit(int64(req.CountCap) + 1)
			counts = counts.ColumnExpr("(?) AS total", s.db.NewSelect().ColumnExpr("count(*)").TableExpr("(?) AS cc", capped))
		default:
			counts = counts.ColumnExpr("0 AS total")
		}
		for _, e := range q.extra {
			counts = counts.ColumnExpr(e.expr, e.args...)
		}
		pageQ := page(c)
		if q.counted != nil && req.Count != bounded.CountNone && len(q.extra) == 0 {
			rows := q.counted.Clone()
			if req.Count == bounded.CountCapped {
				rows = rows.Limit(int64(req.CountCap) + 1)
			}
			q.with = append(slices.Clip(q.with), cte{"counted_rows", rows})
			q.materialized = true
			counts = s.db.NewSelect().ColumnExpr("(SELECT count(*) FROM counted_rows) AS total")
			pageQ = c.apply(s.db.NewSelect().ColumnExpr("*").TableExpr("counted_rows AS m"))
			if req.Count == bounded.CountCapped {
				under := fmt.Sprintf("(SELECT count(*) FROM counted_rows) <= %d", req.CountCap)
				pageQ = s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS s0", pageQ).Where(under).
					UnionAll(s.db.NewSelect().ColumnExpr("*").TableExpr("(?) AS s1", page(c)).Where("NOT " + under))
			}
		}
		order, oargs := s.orderBy(q.keys, true, backward)
		stmt = s.db.NewSelect().ColumnExpr("c.*, p.*").TableExpr("(?) AS c", counts).
			Join("LEFT JOIN (?) AS p ON TRUE", pageQ).OrderExpr(order, oargs...)
	}
	for _, w := range q.with {
		wq := bun.NewWithQuery(w.name, w.q)
		if q.materialized {
			wq = wq.Materialized() // which bun writes for Postgres only
		}
		stmt = stmt.WithQuery(wq)
	}
	if !q.materialized || s.db.Dialect().Name() != dialect.SQLite {
		rows, err := stmt.Rows(ctx)
		return s.scanRows(ctx, rows, err, scan)
	}
	query := stmt.String()
	for _, w := range q.with {
		name := `"` + w.name + `"` // SQLite's quoting of an identifier
		query = strings.Replace(query, name+" AS (", name+" AS MATERIALIZED (", 1)
	}
	rows, err := s.db.QueryContext(ctx, query)
	return s.scanRows(ctx, rows, err, scan)
}

// bare reports whether the statement of q for req reads no count column:
// no count, no extra column, and no deferred join, whose rows need the
// outer ORDER BY.
func (q paged) bare(req driver.Request) bool {
	return req.Count == bounded.CountNone && len(q.extra) == 0 && (q.deferred == nil || req.At != nil || req.Offset == 0)
}

// collect runs q for req with [Store.run] and returns its rows as a
// [bounded.Source] does (the count, HasMore from the row read past the
// page, the keys of o): row scans one row, given the count columns to scan
// first (the total, then one per extra column; none for a bare statement),
// and returns the item and whether the row holds one (false for the NULL
// row of an empty page). It also returns the extra count columns.
func collect[T any](ctx context.Context, s *Store, q paged, req driver.Request, o ports.Order[T],
	row func(counts []any, rows *sql.Rows) (T, bool, error)) (driver.Rows[T], []int64, error) {
	if req.At != nil {
		if err := o.Check(req.At.Keys); err != nil {
			return driver.Rows[T]{}, nil, err
		}
	}
	var total int64
	extra := make([]int64, len(q.extra))
	var counts []any
	if !q.bare(req) {
		counts = []any{nint{&total}}
		for i := range extra {
			counts = append(counts, nint{&extra[i]})
		}
	}
	var items []T
	err := s.run(ctx, q, req, func(rows *sql.Rows) error {
		it, ok, err := row(counts, rows)
		if ok {
			items = append(items, it)
		}
		return err
	})
	if err != nil {
		return driver.Rows[T]{}, nil, err
	}
	more := len(items) > req.Limit
	if more {
		items = items[:req.Limit]
	}
	if req.Backward() {
		slices.Reverse(items)
	}
	return driver.Rows[T]{Items: items, More: more, Count: int(total), Keys: o.Keys}, extra, nil
}

// source is a [bounded.Source] made of a method's query.
type source[T any] func(ctx context.Context, req driver.Request) (driver.Rows[T], error)

func (f source[T]) Fetch(ctx context.Context, req driver.Request) (driver.Rows[T], error) {
	return f(ctx, req)
}

// fetch returns the page p of read, limited by l, its cursors bound to
// scope and signed with the store's key: [bounded.FetchPage] validates p,
// calls read (again with an exact count for a page past the end) and
// builds the page's totals and cursors. Once ctx has ended, an error
// wraps ctx's ([ContextErr]), whichever statement failed.
func fetch[T any](ctx context.Context, s *Store, p bounded.Page, l bounded.Limits, scope string, read source[T]) (bounded.Paged[T], error) {
	pg, err := bounded.FetchPage(ctx, read, scope, p, l, s.d.Cursors)
	return pg, ContextErr(ctx, err)
}

// keyJoin joins the rows of table (as alias) whose key column equals k.id,
// the keys of a page read by a subquery k: a plain join, or with
// [Dialect.LateralJoin] a lateral subquery (its LIMIT 1, harmless on a
// key, keeps Postgres from flattening it back into a plain join).
func (s *Store) keyJoin(table, alias, key string) string {
	if s.d.LateralJoin {
		return "CROSS JOIN LATERAL (SELECT * FROM " + table + " WHERE " + key + " = k.id LIMIT 1) AS " + alias
	}
	return "JOIN " + table + " " + alias + " ON " + alias + "." + key + " = k.id"
}

// deferredJoin selects cols (with their arguments args) from the rows of table (as alias) whose key
// column equals the id column of the rows of ids, in their order: the
// page's keys, read from a covering index by ids, joined with their rows
// ([Store.keyJoin]).
func (s *Store) deferredJoin(ids *bun.SelectQuery, table, alias, key, cols string, args ...any) *bun.SelectQuery {
	return s.db.NewSelect().ColumnExpr(cols, args...).TableExpr("(?) AS k", ids).Join(s.keyJoin(table, alias, key))
}

// countsUpTo returns, for each key of keys, how many rows of table pass
// cond with the key's arguments, each counted by a probe that stops past
// limit rows (at most limit+1), 200 keys to a statement.
func (s *Store) countsUpTo(ctx context.Context, table, cond string, keys [][]any, limit int) ([]int64, error) {
	counts := make([]int64, len(keys))
	for start := 0; start < len(keys); start += 200 {
		chunk := keys[start:min(start+200, len(keys))]
		cols := make([]string, len(chunk))
		var args []any
		dest := make([]any, len(chunk))
		for i, k := range chunk {
			cols[i] = fmt.Sprintf("(SELECT count(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT ?) AS c%d)", table, cond, i)
			args = append(append(args, k...), limit+1)
			dest[i] = &counts[start+i]
		}
		if err := s.db.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// from is a SELECT from table (an expression, e.g. "bounded_notes AS n")
// WHERE cond, when cond is not "".
func (s *Store) from(table, cond string, args ...any) *bun.SelectQuery {
	q := s.db.NewSelect().TableExpr(table)
	if cond != "" {
		q = q.Where(cond, args...)
	}
	return q
}

// query runs a statement and calls scan for each row.
func (s *Store) query(ctx context.Context, query string, args []any, scan func(rows *sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	return s.scanRows(ctx, rows, err, scan)
}

// scanRows calls scan for each of rows, the result of a query that
// returned err, and closes them.
func (s *Store) scanRows(ctx context.Context, rows *sql.Rows, err error, scan func(rows *sql.Rows) error) error {
	if err != nil {
		return s.wrapCtx(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return s.wrapCtx(ctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.wrapCtx(ctx, err)
	}
	return s.wrapCtx(ctx, rows.Close())
}

// wrap names the engine in an error, keeping context errors recognisable
// with errors.Is.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", s.d.Name, err)
}

// tx runs f in a transaction on s.db: a real one on a database or
// connection, a savepoint inside the caller's transaction. A transaction
// that finds the database locked by another connection is run again while
// ctx lasts ([Store.untilFree]). When ctx has ended, the error wraps ctx's
// error too ([ContextErr]).
func (s *Store) tx(ctx context.Context, f func(ctx context.Context, tx bun.IDB) error) error {
	return ContextErr(ctx, s.untilFree(ctx, func() error {
		return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return f(ctx, tx)
		})
	}))
}

// micros is t as stored: unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is a stored time as returned: UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// encodeList encodes a stored list (tags, observations) for its row
// column: "" for none, JSON otherwise.
func encodeList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	b, err := json.Marshal(l)
	if err != nil { // cannot happen: strings always encode
		panic(err)
	}
	return string(b)
}

// decodeList decodes a column written by encodeList; nil for none.
func decodeList(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("decode stored list: %w", err)
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}

// nstr scans a text column that may be NULL (as "").
type nstr struct{ p *string }

func (n nstr) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n.p = ""
	case string:
		*n.p = v
	case []byte:
		*n.p = string(v)
	default:
		return fmt.Errorf("scan %T into a string", v)
	}
	return nil
}

// nint scans an integer column that may be NULL (as 0).
type nint struct{ p *int64 }

func (n nint) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n.p = 0
	case int64:
		*n.p = v
	case float64:
		*n.p = int64(v)
	case bool:
		*n.p = 0
		if v {
			*n.p = 1
		}
	case []byte, string:
		var s string
		if b, ok := v.([]byte); ok {
			s = string(b)
		} else {
			s = v.(string)
		}
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("scan %q into an integer: %w", s, err)
		}
		*n.p = i
	default:
		return fmt.Errorf("scan %T into an integer", v)
	}
	return nil
}

// nfloat scans a float column that may be NULL (as 0).
type nfloat struct{ p *float64 }

func (n nfloat) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n.p = 0
	case float64:
		*n.p = v
	case int64:
		*n.p = float64(v)
	case []byte, string:
		var s string
		if b, ok := v.([]byte); ok {
			s = string(b)
		} else {
			s = v.(string)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("scan %q into a float: %w", s, err)
		}
		*n.p = f
	default:
		return fmt.Errorf("scan %T into a float", v)
	}
	return nil
}

// notFound is the error of an id that names no item of the given kind.
func notFound(kind, id string) error {
	return fmt.Errorf("%s %q: %w", kind, id, ports.ErrNotFound)
}

// isNoRows reports sql.ErrNoRows.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// placeholders returns "?, ?, ..." for n values.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
