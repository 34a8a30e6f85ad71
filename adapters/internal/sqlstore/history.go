package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// RecordRun stores r.Normalize(), replacing any run with the same ID. The
// body's length in runes is computed once here and stored, so that pages
// report it without reading the body. See [ports.History].
func (s *Store) RecordRun(ctx context.Context, r ports.Run) error {
	r, err := r.Normalize()
	if err != nil {
		return err
	}
	if err := errors.Join(ports.ValidateTime("startedAt", r.StartedAt), ports.ValidateTime("finishedAt", r.FinishedAt)); err != nil {
		return fmt.Errorf("run %q: %w", r.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.wrap(s.tx(ctx, func(ctx context.Context, tx bun.IDB) error {
		return s.upsert(ctx, tx, "bounded_runs",
			[]string{"id", "endpoint_id", "started_at", "finished_at", "status", "status_code", "body", "body_chars"},
			[]any{r.ID, r.EndpointID, micros(r.StartedAt), micros(r.FinishedAt), r.Status, r.StatusCode, r.Body, utf8.RuneCountInString(r.Body)},
		)
	}))
}

// ResponseHistory pages the runs of endpointID, newest first (StartedAt
// descending, then ID descending): the page's IDs are read from the
// history index in page order (skipped runs are never fetched), then their
// rows. Only the first [ports.HistoryBodyChars] characters of each body
// leave the database (substr counts characters on both engines); they are
// clipped with [bounded.ClipPrefix] and the stored full length. See
// [ports.History].
func (s *Store) ResponseHistory(ctx context.Context, endpointID string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	scope := ports.Scope("ResponseHistory", endpointID)
	return fetch(ctx, s, p, ports.ResponseHistoryLimits, scope, func(ctx context.Context, req driver.Request) (driver.Rows[ports.RunView], error) {
		if err := ports.ValidateQuery("endpointID", endpointID); err != nil {
			return driver.Rows[ports.RunView]{}, err
		}
		if err := ctx.Err(); err != nil {
			return driver.Rows[ports.RunView]{}, err
		}
		const cols = "r.id AS id, r.endpoint_id AS endpoint_id, r.started_at AS started_at, r.finished_at AS finished_at, r.status AS status," +
			" r.status_code AS status_code, substr(r.body, 1, ?) AS body, r.body_chars AS body_chars"
		q := paged{
			count: s.from("bounded_runs AS r", "r.endpoint_id = ?", endpointID),
			deferred: func(c clauses) *bun.SelectQuery {
				ids := c.apply(s.from("bounded_runs AS r"+s.d.index("bounded_runs_history"), "r.endpoint_id = ?", endpointID).ColumnExpr("r.id AS id"))
				return s.deferredJoin(ids, "bounded_runs", "r", "id", cols, ports.HistoryBodyChars)
			},
			page: func(c clauses) *bun.SelectQuery {
				return c.apply(s.from("bounded_runs AS r"+s.d.index("bounded_runs_history"), "r.endpoint_id = ?", endpointID).ColumnExpr(cols, ports.HistoryBodyChars))
			},
			keys: []key{{inner: "r.started_at", outer: "p.started_at", desc: true, num: true}, {inner: "r.id", outer: "p.id", desc: true}},
		}
		rows, _, err := collect(ctx, s, q, req, ports.ByStartedDesc, func(counts []any, rows *sql.Rows) (ports.RunView, bool, error) {
			var id, endpoint, status, body string
			var started, finished, code, chars int64
			if err := rows.Scan(append(counts, nstr{&id}, nstr{&endpoint}, nint{&started}, nint{&finished}, nstr{&status},
				nint{&code}, nstr{&body}, nint{&chars})...); err != nil {
				return ports.RunView{}, false, err
			}
			if id == "" {
				return ports.RunView{}, false, nil
			}
			clipped, info := bounded.ClipPrefix(body, ports.HistoryBodyChars, int(chars))
			return ports.RunView{
				ID: id, EndpointID: endpoint, StartedAt: fromMicros(started), FinishedAt: fromMicros(finished),
				Status: status, StatusCode: int(code),
				Body: clipped, BodyChars: info.OriginalChars, BodyTruncated: info.Clipped,
			}, true, nil
		})
		return rows, err
	})
}
