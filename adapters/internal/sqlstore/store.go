// Package sqlstore is the bun code shared by the SQLite and Postgres
// adapters: one [Store] implementing every port, parameterised by a
// [Dialect] that names each difference between the engines.
//
// Every page is computed by the database in one statement: the exact total
// (a count over the same filter) and the page (ORDER BY the documented keys,
// ending with the unique id, LIMIT n OFFSET m) are read together, so they
// come from one snapshot on every engine and in every isolation level, and
// the total is there even for an offset past the end. Inputs are validated
// with the helpers of package ports and bounded before any SQL runs; every
// value reaches SQL as a bun argument (bun quotes it for the dialect), never
// spliced into the query text by this package.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
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
func New(ctx context.Context, db bun.IDB, d Dialect) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("%s: nil database", d.Name)
	}
	if err := createSchema(ctx, db, d); err != nil {
		return nil, err
	}
	return &Store{db: db, d: d}, nil
}

// DB returns the database the store uses.
func (s *Store) DB() bun.IDB { return s.db }

// request validates p against l and rejects cursors, which are not
// supported yet.
func request(l bounded.Limits, p bounded.Page) (bounded.Request, error) {
	req, err := l.Normalize(p)
	if err != nil {
		return bounded.Request{}, err
	}
	if p.Cursor != "" {
		return bounded.Request{}, fmt.Errorf("sqlstore: %w: cursors are not supported yet", bounded.ErrInvalidCursor)
	}
	return req, nil
}

// paged is one paged statement: a count of the matching rows and a page of
// them, read together.
type paged struct {
	// with is an optional WITH clause (without the final SELECT), shared by
	// count and page.
	with     string
	withArgs []any
	// count is a SELECT whose first column is the total, named total; it
	// may add more columns (e.g. whether the named note exists).
	count     string
	countArgs []any
	// page is the SELECT of the page's rows with its ORDER BY, without
	// LIMIT and OFFSET, which run appends. Its columns must have distinct
	// names.
	page     string
	pageArgs []any
	// limited means that page has its own LIMIT ? OFFSET ? (with their
	// values in pageArgs), typically in a subquery selecting the page's
	// keys from a covering index ("deferred join"): rows skipped by the
	// OFFSET are then never fetched or joined, only their index entries
	// counted.
	limited bool
	// order repeats page's ORDER BY over the columns of p, so that the
	// outer query keeps the page's order (it sorts at most one page).
	order string
}

// run executes the statement
//
//	WITH ... SELECT c.*, p.* FROM (count) AS c
//	LEFT JOIN (page LIMIT ? OFFSET ?) AS p ON TRUE ORDER BY order
//
// The count and the page are read by one statement, so from one snapshot,
// and the total comes back even when the page is empty. The outer ORDER BY
// sorts only the page's rows: without it the order of a joined subquery
// would be unspecified.
//
// and calls scan for every row, with the count's columns first. When the
// page is empty there is one row whose page columns are NULL: scan must
// accept NULLs (see the n* scanners) and the caller drops that row.
func (s *Store) run(ctx context.Context, q paged, req bounded.Request, scan func(rows *sql.Rows) error) error {
	var b strings.Builder
	args := make([]any, 0, len(q.withArgs)+len(q.countArgs)+len(q.pageArgs)+2)
	if q.with != "" {
		b.WriteString(q.with)
		b.WriteString("\n")
		args = append(args, q.withArgs...)
	}
	b.WriteString("SELECT c.*, p.* FROM (")
	b.WriteString(q.count)
	b.WriteString(") AS c LEFT JOIN (")
	b.WriteString(q.page)
	if !q.limited {
		b.WriteString(" LIMIT ? OFFSET ?")
	}
	b.WriteString(") AS p ON TRUE ORDER BY ")
	b.WriteString(q.order)
	args = append(args, q.countArgs...)
	args = append(args, q.pageArgs...)
	if !q.limited {
		args = append(args, req.Limit, req.Offset)
	}
	return s.query(ctx, b.String(), args, scan)
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

// query runs a statement and calls scan for each row.
func (s *Store) query(ctx context.Context, query string, args []any, scan func(rows *sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return s.wrap(err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.wrap(err)
	}
	return s.wrap(rows.Close())
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
// connection, a savepoint inside the caller's transaction.
func (s *Store) tx(ctx context.Context, f func(ctx context.Context, tx bun.IDB) error) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return f(ctx, tx)
	})
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
