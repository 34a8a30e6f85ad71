package bounded

import (
	"context"
	"fmt"

	"github.com/boundedkit/bounded/driver"
)

// Options are what [Respond] needs besides the source, the call and the
// page. Limits is required; the zero value of every other field is a
// default.
type Options[T any] struct {
	// Limits is the tool's page policy: the default page size and the
	// most a call may ask for.
	Limits Limits
	// Budget is the ceiling of the response (the zero Budget: 45,000
	// characters).
	Budget Budget
	// Hints sets how much the hint says.
	Hints HintStyle
	// Cursors encodes and checks the cursors Respond issues. The zero
	// Codec writes unsigned ones; set Key to sign them (every process that
	// must accept them needs it), Previous to accept those of earlier keys,
	// TTL to let them expire (see [driver.Codec]).
	Cursors driver.Codec
	// Relevance, when set, scores an item; the source must return items in
	// non-increasing order of it (see [FitInput]).
	Relevance func(T) float64
	// Clip, when set, shortens an item's long content to at most maxChars
	// runes (with [Clip], say) and returns the shortened copy; Content
	// chooses maxChars from the number of results. Without Clip, Content
	// is ignored.
	Clip    func(item T, maxChars int) T
	Content ContentPolicy
}

// Respond answers one tool call with the page p of src, validated against
// o.Limits, counted as p.Count asks, its items clipped by o.Content, fitted
// into o.Budget by [Fit]. A cursor in p must have been issued for the same
// call (tool and arguments). A zero call.DefaultLimit is o.Limits.Default.
//
// Bad input is an error wrapping [ErrInvalidPage] or [ErrInvalidCursor],
// before src is called; src's and Fit's errors are returned as they are.
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

// FetchPage is [Respond] without the fit, and the whole of a store's paged
// method: the page of src that p asks for, validated against l, with its
// PageInfo, its cursors (encoded by codec for scope, which names the query:
// [Call.Scope] for a tool call; a cursor issued for another scope is
// [driver.ErrCursorForeign]; a [ScopedSource] adds its own scope) and its
// [Paged.CursorAt]. A page past the end
// calls src twice, the second time counting exactly, so that the page names
// the real last page.
func FetchPage[T any](ctx context.Context, src Source[T], scope string, p Page, l Limits, codec driver.Codec) (Paged[T], error) {
	if s, ok := src.(ScopedSource[T]); ok {
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
	if len(rows.Items) > req.Limit {
		return Paged[T]{}, fmt.Errorf("bounded: source returned %d items for a limit of %d", len(rows.Items), req.Limit)
	}
	if req.needsExactTotal(len(rows.Items)) {
		req = req.exact()
		if rows, err = src.Fetch(ctx, req); err != nil {
			return Paged[T]{}, err
		}
	}
	if rows.Count < 0 && req.Count != CountNone {
		req.Count = CountNone
	}
	info := req.finish(len(rows.Items), rows.More, rows.Count)
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

// Scope is the cursor scope of c: its tool and its arguments, so that a
// cursor issued for one call is refused by every other. An argument of a
// type [Fit] cannot encode is an error.
func (c Call) Scope() (string, error) {
	b := append([]byte("bounded.Respond\x00"), c.Tool...)
	b = append(b, 0)
	b, err := appendArgs(b, c.Args)
	if err != nil {
		return "", fmt.Errorf("bounded: call arguments: %w", err)
	}
	return string(b), nil
}
