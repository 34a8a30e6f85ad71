package bounded

import (
	"context"
	"fmt"

	"github.com/boundedkit/bounded/driver"
)

// Options configures [Respond]; only Limits is required.
type Options[T any] struct {
	// Limits is the tool's page size.
	Limits Limits
	// Budget caps the response.
	Budget Budget
	// Hints sets how much the hint says.
	Hints HintStyle
	// Cursors encodes and checks the cursors Respond issues; the zero
	// [driver.Codec] does not sign them.
	Cursors driver.Codec
	// Relevance is [FitInput.Relevance].
	Relevance func(T) float64
	// Clip, when set, returns a copy of an item with its content cut to
	// maxChars runes ([Clip]), maxChars chosen by Content; without Clip,
	// Content is ignored.
	Clip    func(item T, maxChars int) T
	Content ContentPolicy
}

// Respond answers a tool call with page p of src: [FetchPage], o.Clip, then
// [Fit]. A cursor in p must come from the same call; a zero
// call.DefaultLimit is o.Limits.Default. Its errors are those of
// [Call.Scope], FetchPage and Fit.
func Respond[T any](ctx context.Context, src Source[T], call Call, p Page, o Options[T]) (Fitted, error) {
	scope, err := call.Scope()
	if err != nil {
		return Fitted{}, err
	}
	pg, err := FetchPage(ctx, src, scope, p, o.Limits, o.Cursors)
	if err != nil {
		return Fitted{}, err
	}
	if o.Clip != nil {
		if limit := o.Content.Limit(len(pg.Items)); limit > 0 {
			items := make([]T, len(pg.Items))
			for i, it := range pg.Items {
				items[i] = o.Clip(it, limit)
			}
			pg.Items = items
		}
	}
	if call.DefaultLimit == 0 {
		call.DefaultLimit = o.Limits.Default
	}
	return FitContext(ctx, o.Budget, FitInput[T]{Page: pg, Call: call, Hints: o.Hints, Relevance: o.Relevance})
}

// FetchPage returns the page of src that p asks for under l, with its
// [PageInfo] and cursors, encoded by codec for scope ([Call.Scope] for a
// tool call). Invalid p is an error wrapping [ErrInvalidPage] or
// [ErrInvalidCursor], before src is called. A page past the end calls src
// again, counting exactly.
func FetchPage[T any](ctx context.Context, src Source[T], scope string, p Page, l Limits, codec driver.Codec) (Paged[T], error) {
	if s, ok := src.(driver.ScopedSource[T]); ok {
		scope += "\x00" + s.CursorScope()
	}
	req, err := l.normalizeCursor(p, codec, scope)
	if err != nil {
		return Paged[T]{}, err
	}
	rows, err := src.Fetch(ctx, req)
	if err != nil {
		return Paged[T]{}, err
	}
	if req.At != nil && rows.Keys == nil {
		return Paged[T]{}, fmt.Errorf("%w: this source pages by offset only", ErrInvalidCursor)
	}
	if err := checkRows(req, rows); err != nil {
		return Paged[T]{}, err
	}
	if needsExactTotal(req, len(rows.Items)) {
		req = countExactly(req)
		if rows, err = src.Fetch(ctx, req); err != nil {
			return Paged[T]{}, err
		}
		if err := checkRows(req, rows); err != nil {
			return Paged[T]{}, err
		}
	}
	if rows.Count < 0 && req.Count != CountNone {
		req.Count = CountNone
	}
	info := finishPage(req, len(rows.Items), rows.More, rows.Count)
	pg := Paged[T]{Items: rows.Items, Page: info}
	if rows.Keys != nil && len(rows.Items) > 0 {
		first, last := rows.Keys(rows.Items[0]), rows.Keys(rows.Items[len(rows.Items)-1])
		if err := pg.Page.setCursors(codec, scope, first, last, req.Backward() && rows.More); err != nil {
			return Paged[T]{}, err
		}
		at := cursorsAt(codec, scope, pg.Page.Offset, rows.Items, rows.Keys)
		if req.At != nil && !req.Backward() {
			// The position before the first item is the caller's cursor.
			after := at
			at = func(n int) (string, error) {
				if n == 0 {
					return p.Cursor, nil
				}
				return after(n)
			}
		}
		pg.CursorAt = at
	}
	return pg, nil
}

// Scope returns the cursor scope of c's tool and arguments; an argument
// that does not encode is an error.
func (c Call) Scope() (string, error) {
	b := append([]byte("bounded.Respond\x00"), c.Tool...)
	b = append(b, 0)
	b, err := appendArgs(b, c.Args)
	if err != nil {
		return "", fmt.Errorf("bounded: call arguments: %w", err)
	}
	return string(b), nil
}

// checkRows returns an error wrapping [ErrInvalidSource] for rows a source
// could not have returned for r: more items than r.Limit, or, for a page
// by offset whose total was counted exactly, items past the total, an
// empty page inside it, or More saying otherwise than the total.
func checkRows[T any](r driver.Request, rows driver.Rows[T]) error {
	n, c := len(rows.Items), rows.Count
	if n > r.Limit {
		return fmt.Errorf("%w: %d items for a limit of %d", ErrInvalidSource, n, r.Limit)
	}
	exact := c >= 0 && (r.Count == CountExact || r.Count == CountCapped && c <= r.CountCap)
	if r.At != nil || !exact {
		return nil
	}
	switch {
	case n > 0 && r.Offset+n > c:
		return fmt.Errorf("%w: %d items at offset %d, past its total of %d", ErrInvalidSource, n, r.Offset, c)
	case n == 0 && r.Offset < c:
		return fmt.Errorf("%w: no items at offset %d, inside its total of %d", ErrInvalidSource, r.Offset, c)
	case n > 0 && rows.More != (r.Offset+n < c):
		return fmt.Errorf("%w: %d items at offset %d and More %v, against its total of %d", ErrInvalidSource, n, r.Offset, rows.More, c)
	}
	return nil
}
