package boundedtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// A budgetKind is how tight the budget of a walk by [bounded.Respond] is.
type budgetKind int

const (
	// budgetDefault is the zero Budget.
	budgetDefault budgetKind = iota
	// budgetHalf leaves room for about half of the first page.
	budgetHalf
	// budgetOne leaves room for about one item of the first page, or
	// half of it when the page holds one item (so that Fit clips it).
	budgetOne
)

var budgetNames = [...]string{"default", "half-page", "one-item"}

func (k budgetKind) String() string { return budgetNames[k] }

// wide is a budget no page reaches, with one character a token.
var wide = bounded.Budget{MaxChars: 1 << 30, Margin: 1, CharsPerToken: 1}

// respondChecks are walks by the next calls of [bounded.Respond], for
// every paging style, page size and budget, counting exactly and not at
// all.
func (c *checker[T]) respondChecks() *node {
	type paging struct {
		name   string
		paging bounded.Paging
	}
	pagings := []paging{{"by=offset", bounded.ByOffset}, {"by=page", bounded.ByPage}}
	if c.cursors {
		pagings = append(pagings, paging{"by=cursor", bounded.ByCursor})
	}
	modes := []countMode{{mode: bounded.CountExact}, {mode: bounded.CountNone}}
	var byPaging []*node
	for _, pg := range pagings {
		var bySize []*node
		for _, s := range c.sizes() {
			var byBudget []*node
			for _, k := range []budgetKind{budgetDefault, budgetHalf, budgetOne} {
				var byMode []*node
				for _, m := range modes {
					byMode = append(byMode, leaf("count="+m.String(), func(ctx context.Context) error {
						return c.walkRespond(ctx, pg.paging, s, m, k)
					}))
				}
				byBudget = append(byBudget, group("budget="+k.String(), byMode...))
			}
			bySize = append(bySize, group(s.name, byBudget...))
		}
		byPaging = append(byPaging, group(pg.name, bySize...))
	}
	return group("respond", byPaging...)
}

// recorder is a Source that keeps the items of the last page it read.
type recorder[T any] struct {
	src  bounded.Source[T]
	last []T
}

func (r *recorder[T]) Fetch(ctx context.Context, q driver.Request) (driver.Rows[T], error) {
	rows, err := r.src.Fetch(ctx, q)
	r.last = rows.Items
	return rows, err
}

// respond answers p for call within b, and returns the items it kept and
// the page they were kept from. A budget too small for the envelope with
// one item is raised by half until one fits: the kit chose it, not the
// source.
func (c *checker[T]) respond(ctx context.Context, call bounded.Call, p bounded.Page, b bounded.Budget) (bounded.Fitted, []T, []T, error) {
	rec := &recorder[T]{src: c.src}
	for {
		out, err := bounded.Respond(ctx, rec, call, p, bounded.Options[T]{Limits: c.limits, Budget: b})
		tooSmall := errors.Is(err, bounded.ErrInvalidBudget) || err == nil && out.Kept == 0 && len(rec.last) > 0
		if tooSmall && b.MaxChars > 0 && b.MaxChars < wide.MaxChars {
			b.MaxChars = min(wide.MaxChars, b.MaxChars+b.MaxChars/2+1)
			continue
		}
		if err != nil {
			return out, nil, nil, err
		}
		if out.Kept > len(rec.last) {
			return out, nil, nil, fmt.Errorf("Fitted.Kept is %d for a page of %d items", out.Kept, len(rec.last))
		}
		return out, rec.last[:out.Kept], rec.last, nil
	}
}

// budget returns the budget of kind k for a walk from start: tight ones
// are measured on the first page, one character a token.
func (c *checker[T]) budget(ctx context.Context, call bounded.Call, start bounded.Page, k budgetKind) (bounded.Budget, error) {
	if k == budgetDefault {
		return bounded.Budget{}, nil
	}
	out, items, _, err := c.respond(ctx, call, start, wide)
	if err != nil {
		return bounded.Budget{}, fmt.Errorf("%s: %w", respondLabel(start, "", wide), err)
	}
	if len(items) == 0 {
		return bounded.Budget{}, nil
	}
	keep := 1
	if k == budgetHalf {
		keep = (len(items) + 1) / 2
	}
	cut := 0
	for i, it := range items {
		n, err := encodedLen(it)
		if err != nil {
			return bounded.Budget{}, err
		}
		switch {
		case i >= keep:
			cut += n + 1 // and its comma
		case len(items) == 1 && k == budgetOne:
			cut = n / 2
		}
	}
	b := wide
	b.MaxChars = max(1, utf8.RuneCount(out.JSON)-cut)
	return b, nil
}

// encodedLen is the length of v as Fit writes it.
func encodedLen(v any) (int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 0, err
	}
	return utf8.RuneCount(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// walkRespond follows Fitted.Next from the first page to the last and
// checks that the responses keep every item of want once, in order: a cut
// resumes at the first item cut, by cursor when the call pages by cursor.
func (c *checker[T]) walkRespond(ctx context.Context, paging bounded.Paging, s size, m countMode, k budgetKind) error {
	call := c.call
	call.Paging = paging
	p := s.page(m)
	b, err := c.budget(ctx, call, p, k)
	if err != nil {
		return err
	}
	n := len(c.want)
	pos, from := 0, ""
	for range n + 2 {
		out, kept, page, err := c.respond(ctx, call, p, b)
		at := respondLabel(p, from, b)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if len(kept) < len(page) {
			c.cuts++
		}
		end := pos + len(kept)
		sp := span{start: pos, end: end}
		var bad []string
		if want := c.items(sp); !c.sameItems(want, kept) {
			bad = append(bad, fmt.Sprintf("the %d items kept differ from %v (-want +got):\n%s", len(kept), sp, c.itemsDiff(want, kept)))
		}
		if out.Page.Offset != pos {
			bad = append(bad, fmt.Sprintf("Offset is %d, want %d", out.Page.Offset, pos))
		}
		if len(kept) == 0 && pos < n {
			bad = append(bad, fmt.Sprintf("no item kept at %d of %d items", pos, n))
		}
		switch {
		case out.Next == nil && end < n:
			bad = append(bad, fmt.Sprintf("no next call after %v of %d items", sp, n))
		case out.Next != nil && end >= n:
			bad = append(bad, fmt.Sprintf("a next call %s after the last item", call.Render(out.Next)))
		case out.Next == nil:
		case out.Page.NextOffset != end:
			bad = append(bad, fmt.Sprintf("NextOffset is %d, want %d", out.Page.NextOffset, end))
		case paging == bounded.ByCursor && !hasArg(out.Next, "cursor"):
			bad = append(bad, fmt.Sprintf("the next call %s continues by offset, not by cursor", call.Render(out.Next)))
		}
		if len(bad) > 0 {
			return fmt.Errorf("%s: %s\n  got %s", at, strings.Join(bad, "\n  "), describe(out.Page))
		}
		if out.Next == nil {
			return nil
		}
		if p, err = c.nextPage(out.Next, m); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		pos, from = end, fmt.Sprintf("Fitted.Next after %v", sp)
	}
	return fmt.Errorf("the walk by Fitted.Next did not end after %d responses", n+2)
}

func hasArg(args bounded.Args, name string) bool {
	_, ok := args.Get(name)
	return ok
}

// nextPage turns the arguments of a next call back into a page counted by
// m, as a tool handler reads them.
func (c *checker[T]) nextPage(args bounded.Args, m countMode) (bounded.Page, error) {
	var p bounded.Page
	var page int
	var hasPage, hasOffset bool
	for _, a := range args {
		if a.Name == "cursor" {
			cur, ok := a.Value.(string)
			if !ok || cur == "" {
				return p, fmt.Errorf("the next call's cursor is %T %v", a.Value, a.Value)
			}
			p.Cursor = cur
			continue
		}
		v, ok := a.Value.(int)
		if !ok {
			return p, fmt.Errorf("the next call's %s is %T %v, want an int", a.Name, a.Value, a.Value)
		}
		switch a.Name {
		case "limit", "pageSize":
			p.Limit = v
		case "offset":
			p.Offset, hasOffset = v, true
		case "page":
			page, hasPage = v, true
		default:
			return p, fmt.Errorf("the next call has an unknown argument %s", a.Name)
		}
	}
	switch {
	case p.Cursor != "" || hasOffset:
	case hasPage:
		var err error
		if p, err = c.limits.FromPageNumber(page, p.Limit); err != nil {
			return p, err
		}
	default:
		return p, fmt.Errorf("the next call %v has no cursor, offset or page", args)
	}
	p.Count, p.CountCap = m.mode, m.cap
	return p, nil
}

// respondLabel writes a Respond request for a failure message.
func respondLabel(p bounded.Page, from string, b bounded.Budget) string {
	var s strings.Builder
	s.WriteString("Respond(")
	writePage(&s, p, from)
	if b.MaxChars > 0 {
		fmt.Fprintf(&s, ", MaxChars=%d", b.MaxChars)
	}
	s.WriteString(")")
	return s.String()
}
