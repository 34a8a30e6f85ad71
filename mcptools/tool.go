package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/toolargs"
)

// Options are a bounded tool's policies. Limits is required; the zero
// value of every other field is a default.
type Options[T any] struct {
	// Limits is the page policy: the default page size, and the most a
	// call may ask for (a larger limit is clamped, and the response says
	// so).
	Limits bounded.Limits
	// Paging is the form of the paging arguments and of next:
	// bounded.ByCursor (the zero value) takes limit, offset and cursor and
	// continues by cursor, which stays exact while the data changes, or by
	// offset where the source has no cursor; bounded.ByOffset takes the
	// same and continues by offset; bounded.ByPage takes page, pageSize,
	// offset and cursor and continues by page number. A call made with a
	// cursor always continues by cursor.
	Paging bounded.Paging
	// Budget is the ceiling of every response (the zero Budget: 45,000
	// characters), lowered by MAX_MCP_OUTPUT_TOKENS (see [ClientBudget]);
	// a call's budget and budgetTokens arguments lower it further, never
	// raise it. Its LimitChars must be at least toolargs.MinBudget.
	Budget bounded.Budget
	// Count is how a page's total is counted: up to a cap (the zero
	// value: exact below it), exactly, or not at all.
	Count bounded.CountMode
	// Hints sets how much the hint says.
	Hints bounded.HintStyle
	// Cursors encodes and checks the cursors issued (see
	// bounded.Options). AddPagedTool does not use it: its store issues
	// the cursors.
	Cursors driver.Codec
	// Relevance, Clip and Content are bounded.Options' fields of the same
	// names: most relevant first, and content clipped by the number of
	// results.
	Relevance func(T) float64
	Clip      func(item T, maxChars int) T
	Content   bounded.ContentPolicy
	// Fields adds the fields argument: the results keep only the fields
	// named (and id), which must be fields of T.
	Fields bool
	// Concise, when set, adds the detail argument: "concise" keeps
	// these fields of each result (and id), "detailed" (the default) all.
	// fields, when given, wins.
	Concise []string
	// Keep, when set, keeps the results whole when Clip, or the budget,
	// clips a string of one: the response names the call that reads it
	// whole. Keep's errors are logged to Budget.Logger (slog.Default when
	// nil) and the response goes without the call.
	Keep Keeper
	// Progress is how often a call that asked for progress is notified
	// of it while the handler runs: every second when 0, never when
	// negative.
	Progress time.Duration
}

// Handler answers a call of a bounded tool with the source of its
// results: in holds the call's arguments other than the paging ones.
// Build the source from in alone, so that a cursor means the same rows on
// every call that accepts it.
type Handler[In, T any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (bounded.Source[T], error)

// PageHandler answers a call of a bounded tool with the page p asks for,
// e.g. from a store method that takes a bounded.Page. p.Limit is the
// call's limit, the default when it gave none and the maximum when it
// gave more (the response reports that); p.Cursor is one the store
// issued, or a forgery the store must refuse.
type PageHandler[In, T any] func(ctx context.Context, req *mcp.CallToolRequest, in In, p bounded.Page) (bounded.Paged[T], error)

// AddTool adds a bounded tool to s, or replaces the one of the same name.
//
// Its input schema is t.InputSchema, or when nil the schema inferred from
// In (a struct, as for mcp.AddTool), with the paging arguments of
// o.Paging added, and budget and budgetTokens, each with its minimum,
// maximum and default. Its output schema is that of the envelope of T
// items, each described as encoding/json writes it, unless
// t.OutputSchema is set. Its _meta holds
// [MetaMaxResultSizeChars]. AddTool panics when In's schema is not an
// object, names a paging argument, or o.Limits or o.Budget is invalid.
//
// A call's arguments are checked against the schema (a null argument is
// left out, a limit over the maximum clamped), decoded into In, and passed
// to h. The source h returns is paged and fitted as bounded.Respond does
// (bounded.FetchPage, then bounded.Fit), with its cursors bound to the
// tool and the arguments in In, in any order, not to the budget, which a
// walk may change between pages. The hint and next repeat the arguments
// as the call gave them, budgets included. Bad arguments, a cursor of
// another query and h's errors are results with isError set and a
// message that says what to change, never protocol errors. An error of
// the source while it reads (a query the database refused) says so
// without its cause, which goes to o.Budget.Logger (slog.Default when
// nil) and stays in the result's error.
func AddTool[In, T any](s *mcp.Server, t *mcp.Tool, o Options[T], h Handler[In, T]) {
	codec := o.Cursors
	add(s, t, o, func(ctx context.Context, req *mcp.CallToolRequest, in In, c *toolargs.Call) (bounded.Paged[T], error) {
		src, err := h(ctx, req, in)
		if err != nil {
			return bounded.Paged[T]{}, err
		}
		scope, err := c.Scope().Scope()
		if err != nil {
			return bounded.Paged[T]{}, err
		}
		pg, err := bounded.FetchPage(ctx, src, scope, c.Page, o.Limits, codec)
		return pg, fromSource(ctx, o.Budget.Logger, t.Name, err)
	})
}

// AddPagedTool is [AddTool] for a handler that pages itself: h gets the
// page the call asks for and returns it, and AddPagedTool clips it by
// o.Content and fits it into the budget with bounded.Fit. The cursors are
// the store's: o.Cursors is not used.
func AddPagedTool[In, T any](s *mcp.Server, t *mcp.Tool, o Options[T], h PageHandler[In, T]) {
	add(s, t, o, func(ctx context.Context, req *mcp.CallToolRequest, in In, c *toolargs.Call) (bounded.Paged[T], error) {
		p := c.Page
		asked := p.Limit
		switch {
		case p.Limit == 0:
			p.Limit = o.Limits.Default
		case p.Limit > o.Limits.Max:
			p.Limit = o.Limits.Max
		}
		pg, err := h(ctx, req, in, p)
		if err == nil && asked > o.Limits.Max {
			pg.Page.Clamped, pg.Page.RequestedLimit = true, asked
		}
		return pg, err
	})
}

// add adds the tool t, whose calls fetch their page with fetch.
func add[In, T any](s *mcp.Server, t *mcp.Tool, o Options[T], fetch func(context.Context, *mcp.CallToolRequest, In, *toolargs.Call) (bounded.Paged[T], error)) {
	tl := newTool[In, T](t, o)
	s.AddTool(tl.mcp, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, in, err := parse[In](ctx, tl, req.Params.Arguments)
		if err != nil {
			return reply.Error(t.Name, tl.budget, err), nil
		}
		stop := notifyProgress(ctx, req, t.Name, o.Progress)
		pg, err := fetch(ctx, req, in, c)
		stop()
		if err != nil {
			return reply.Error(t.Name, c.Budget, err), nil
		}
		fi := bounded.FitInput[T]{Page: pg, Call: c.Next, Hints: o.Hints, Relevance: o.Relevance, Notes: c.Notes}
		var k keeping
		if o.Clip != nil {
			limit := o.Content.Limit(len(pg.Items))
			fi.Page = clipPage(pg, o.Clip, limit)
			if o.Keep != nil && limit > 0 {
				k = keepClipped(ctx, req, o, pg.Items, fi.Page.Items, limit)
				fi.Notes = append(fi.Notes, k.notes...)
			}
		}
		out, err := fit(ctx, c, fi)
		if err == nil && o.Keep != nil && out.Truncation.Reason == bounded.ReasonSingleResultTooLarge {
			// Fit clipped the first result: the read of its values whole
			// is named, and the page fitted again with the note.
			if note, ok := fitClipped(ctx, req, o, k, pg.Items, out.Truncation.ClippedFields); ok {
				fi.Notes = append(fi.Notes, note)
				out, err = fit(ctx, c, fi)
			}
		}
		if err != nil {
			return reply.Error(t.Name, c.Budget, err), nil
		}
		return reply.Result(out.JSON), nil
	})
}

// clipPage returns p with each item clipped to limit characters, as
// bounded.Respond clips; limit 0 keeps p.
func clipPage[T any](p bounded.Paged[T], clip func(T, int) T, limit int) bounded.Paged[T] {
	if limit <= 0 {
		return p
	}
	items := make([]T, 0, len(p.Items))
	for _, it := range p.Items {
		items = append(items, clip(it, limit))
	}
	p.Items = items
	return p
}

// newTool builds the tool t with the paging arguments of o, for calls
// decoded into In; it panics as AddTool documents.
func newTool[In, T any](t *mcp.Tool, o Options[T]) *tool {
	if _, err := o.Limits.Normalize(bounded.Page{}); err != nil {
		panic(fmt.Sprintf("mcptools: tool %q: %v", t.Name, err))
	}
	var fields []string
	if o.Fields {
		fields = toolargs.Fields[T]()
	}
	if err := toolargs.CheckFields(t.Name, toolargs.Fields[T](), o.Concise); err != nil {
		panic(fmt.Sprintf("mcptools: tool %q: Concise: %v", t.Name, err))
	}
	tl, err := buildTool(t, reflect.TypeFor[In](), reflect.TypeFor[T](), o.Limits, o.Paging, o.Count, ClientBudget(o.Budget), fields, o.Concise)
	if err != nil {
		panic(fmt.Sprintf("mcptools: tool %q: %v", t.Name, err))
	}
	return tl
}

// parse checks a call's arguments and decodes those other than the paging
// ones into an In.
func parse[In any](ctx context.Context, tl *tool, raw json.RawMessage) (*toolargs.Call, In, error) {
	var in In
	c, err := tl.parser.Parse(ctx, raw)
	if err != nil {
		return c, in, err
	}
	b, err := c.In()
	if err != nil {
		return c, in, err
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return c, in, reply.ArgError(tl.mcp.Name, "", err.Error(), nil)
	}
	return c, in, nil
}
