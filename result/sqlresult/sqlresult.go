// Package sqlresult keeps result snapshots in SQLite, the embedded
// default, or in Postgres, which several instances of a server share:
// any instance reads any handle.
//
// A snapshot is a header row and its segments, one row each, keyed by
// (snapshot, node, position): a read of page k of a large array seeks its
// segment by the primary key, as a read of page 0 does, and parses no
// more than that segment.
//
//	store, err := sqlresult.OpenSQLite(ctx, filepath.Join(dir, "results.db"), result.Quota{})
//	b := result.New(store, result.Options{Key: key})
package sqlresult

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/boundedkit/bounded/result"
)

// Dialect is the SQL a Store writes.
type Dialect int

const (
	// SQLite is SQLite 3.15 or later (row values).
	SQLite Dialect = iota
	// Postgres is PostgreSQL 12 or later.
	Postgres
)

// Store is a result.Store in a SQL database. It is safe for concurrent
// use, and several Stores, in one process or many, may share a database.
type Store struct {
	db    *sql.DB
	d     Dialect
	q     result.Quota
	close bool
}

// OpenSQLite opens, creating them if needed, the SQLite database file at
// path and its tables, with the driver bun's sqliteshim selects (pure-Go
// modernc.org/sqlite on the common platforms), in WAL mode with a busy
// timeout of 5 s. Close closes the database.
func OpenSQLite(ctx context.Context, path string, q result.Quota) (*Store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath()
	if sqliteshim.DriverName() == "sqlite3" { // mattn/go-sqlite3
		dsn += "?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate"
	} else {
		dsn += "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_txlock=immediate"
	}
	db, err := sql.Open(sqliteshim.ShimName, dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlresult: open %s: %w", path, err)
	}
	// One writer at a time: this process's writes wait for each other
	// here, other processes' for the busy timeout.
	db.SetMaxOpenConns(1)
	return owned(ctx, db, SQLite, q)
}

// owned returns the store New returns on db, which Close closes; on an
// error, db is closed.
func owned(ctx context.Context, db *sql.DB, d Dialect, q result.Quota) (*Store, error) {
	s, err := New(ctx, db, d, q)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.close = true
	return s, nil
}

// OpenPostgres connects to the Postgres database at dsn with pgx's
// database/sql driver and creates its tables if needed. Close closes the
// connections.
func OpenPostgres(ctx context.Context, dsn string, q result.Quota) (*Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlresult: open: %w", err)
	}
	return owned(ctx, db, Postgres, q)
}

// New returns a Store over db, an open database of dialect d, creating
// its tables (bounded_result_snapshots, bounded_result_segments) if
// needed. Close leaves db open.
func New(ctx context.Context, db *sql.DB, d Dialect, q result.Quota) (*Store, error) {
	s := &Store{db: db, d: d, q: q.WithDefaults()}
	blob, big := "BLOB", "INTEGER"
	if d == Postgres {
		blob, big = "BYTEA", "BIGINT"
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS bounded_result_snapshots (
			id TEXT PRIMARY KEY,
			principal TEXT NOT NULL,
			tool TEXT NOT NULL,
			args TEXT NOT NULL,
			created ` + big + ` NOT NULL,
			expires ` + big + ` NOT NULL,
			bytes ` + big + ` NOT NULL,
			meta ` + blob + ` NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS bounded_result_snapshots_age ON bounded_result_snapshots (created, id)`,
		`CREATE INDEX IF NOT EXISTS bounded_result_snapshots_principal ON bounded_result_snapshots (principal, created, id)`,
		`CREATE INDEX IF NOT EXISTS bounded_result_snapshots_expires ON bounded_result_snapshots (expires)`,
		`CREATE TABLE IF NOT EXISTS bounded_result_segments (
			id TEXT NOT NULL,
			node TEXT NOT NULL,
			a ` + big + ` NOT NULL,
			b ` + big + ` NOT NULL,
			data ` + blob + ` NOT NULL,
			PRIMARY KEY (id, node, a, b))`,
	} {
		if err := s.create(ctx, stmt); err != nil {
			return nil, fmt.Errorf("sqlresult: create tables: %w", err)
		}
	}
	return s, nil
}

// create runs a CREATE ... IF NOT EXISTS; on Postgres, under a lock, as
// two instances creating the same table at once can both fail otherwise.
func (s *Store) create(ctx context.Context, stmt string) error {
	if s.d != Postgres {
		_, err := s.db.ExecContext(ctx, stmt)
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7461203)`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, stmt)
		return err
	})
}

// Close closes the database if Open opened it.
func (s *Store) Close() error {
	if s.close {
		return s.db.Close()
	}
	return nil
}

// Quota implements result.Store.
func (s *Store) Quota() result.Quota { return s.q }

// sql returns query with its ? placeholders in the dialect's form.
func (s *Store) sql(query string) string {
	if s.d != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *Store) tx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Put implements result.Store: in one transaction, which on Postgres
// holds a lock that orders the Puts of every instance.
func (s *Store) Put(ctx context.Context, sn *result.Snapshot) error {
	if sn.Bytes > s.q.PerPrincipal || sn.Bytes > s.q.Total {
		return fmt.Errorf("%w: %d bytes, the quota is %d for a principal and %d in all", result.ErrQuota, sn.Bytes, s.q.PerPrincipal, s.q.Total)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if s.d == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7461204)`); err != nil {
				return err
			}
		}
		now := sn.Created.UnixNano()
		var expired []string
		if err := s.ids(ctx, tx, &expired, `SELECT id FROM bounded_result_snapshots WHERE expires <= ?`, now); err != nil {
			return err
		}
		if err := s.delete(ctx, tx, expired...); err != nil {
			return err
		}
		if err := s.evict(ctx, tx, sn.Bytes, s.q.PerPrincipal, `WHERE principal = ?`, sn.Principal); err != nil {
			return err
		}
		if err := s.evict(ctx, tx, sn.Bytes, s.q.Total, ``); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql(`INSERT INTO bounded_result_snapshots (id, principal, tool, args, created, expires, bytes, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			sn.ID, sn.Principal, sn.Tool, string(sn.Args), now, sn.Expires.UnixNano(), sn.Bytes, sn.Meta); err != nil {
			return err
		}
		return s.insertSegments(ctx, tx, sn.ID, sn.Segments)
	})
}

// insertSegments inserts segs, several rows a statement.
func (s *Store) insertSegments(ctx context.Context, tx *sql.Tx, id string, segs []result.Segment) error {
	const rows = 64
	for len(segs) > 0 {
		batch := segs[:min(rows, len(segs))]
		segs = segs[len(batch):]
		var q strings.Builder
		q.WriteString(`INSERT INTO bounded_result_segments (id, node, a, b, data) VALUES `)
		args := make([]any, 0, 5*len(batch))
		for i, sg := range batch {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?, ?, ?, ?, ?)")
			data := sg.Data
			if data == nil {
				data = []byte{}
			}
			args = append(args, id, sg.Node, sg.Pos.A, sg.Pos.B, data)
		}
		if _, err := tx.ExecContext(ctx, s.sql(q.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

// evict deletes the oldest snapshots of those where selects until n more
// bytes fit under quota.
func (s *Store) evict(ctx context.Context, tx *sql.Tx, n, quota int64, where string, args ...any) error {
	var used int64
	if err := tx.QueryRowContext(ctx, s.sql(`SELECT COALESCE(SUM(bytes), 0) FROM bounded_result_snapshots `+where), args...).Scan(&used); err != nil {
		return err
	}
	if used+n <= quota {
		return nil
	}
	rows, err := tx.QueryContext(ctx, s.sql(`SELECT id, bytes FROM bounded_result_snapshots `+where+` ORDER BY created, id`), args...)
	if err != nil {
		return err
	}
	var drop []string
	for rows.Next() && used+n > quota {
		var id string
		var b int64
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return err
		}
		drop, used = append(drop, id), used-b
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return s.delete(ctx, tx, drop...)
}

func (s *Store) ids(ctx context.Context, tx *sql.Tx, out *[]string, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, s.sql(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		*out = append(*out, id)
	}
	return rows.Err()
}

func (s *Store) delete(ctx context.Context, tx *sql.Tx, ids ...string) error {
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, s.sql(`DELETE FROM bounded_result_segments WHERE id = ?`), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql(`DELETE FROM bounded_result_snapshots WHERE id = ?`), id); err != nil {
			return err
		}
	}
	return nil
}

// Header implements result.Store.
func (s *Store) Header(ctx context.Context, id string) (result.Header, error) {
	h := result.Header{ID: id}
	var args string
	var created, expires int64
	err := s.db.QueryRowContext(ctx, s.sql(`SELECT principal, tool, args, created, expires, bytes, meta FROM bounded_result_snapshots WHERE id = ?`), id).
		Scan(&h.Principal, &h.Tool, &args, &created, &expires, &h.Bytes, &h.Meta)
	if errors.Is(err, sql.ErrNoRows) {
		return result.Header{}, fmt.Errorf("%w: %s", result.ErrNotFound, id)
	}
	if err != nil {
		return result.Header{}, fmt.Errorf("sqlresult: %w", err)
	}
	h.Args = []byte(args)
	h.Created, h.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	return h, nil
}

// Segments implements result.Store, in one statement: the segment at or
// before from, and those after it, each found by the primary key.
func (s *Store) Segments(ctx context.Context, id, node string, from result.Pos, n int) ([]result.Segment, error) {
	rows, err := s.db.QueryContext(ctx, s.sql(`
		SELECT a, b, data FROM (SELECT a, b, data FROM bounded_result_segments
			WHERE id = ? AND node = ? AND (a, b) <= (?, ?) ORDER BY a DESC, b DESC LIMIT 1) f
		UNION ALL
		SELECT a, b, data FROM (SELECT a, b, data FROM bounded_result_segments
			WHERE id = ? AND node = ? AND (a, b) > (?, ?) ORDER BY a, b LIMIT ?) g`),
		id, node, from.A, from.B, id, node, from.A, from.B, n)
	if err != nil {
		return nil, fmt.Errorf("sqlresult: %w", err)
	}
	defer rows.Close()
	var out []result.Segment
	for rows.Next() {
		sg := result.Segment{Node: node}
		if err := rows.Scan(&sg.Pos.A, &sg.Pos.B, &sg.Data); err != nil {
			return nil, fmt.Errorf("sqlresult: %w", err)
		}
		out = append(out, sg)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlresult: %w", err)
	}
	// UNION ALL keeps no order.
	slices.SortFunc(out, func(x, y result.Segment) int {
		return cmp.Or(cmp.Compare(x.Pos.A, y.Pos.A), cmp.Compare(x.Pos.B, y.Pos.B))
	})
	return out[:min(n, len(out))], nil
}

// Delete implements result.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return s.delete(ctx, tx, id) })
}
