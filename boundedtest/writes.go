package boundedtest

import (
	"context"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
)

// writeChecks are the walks by cursor under Options.Mutate. They run last:
// they leave the source changed.
func (c *checker[T]) writeChecks() *node {
	switch {
	case len(c.want) == 0:
		return &node{name: "writes", skip: "want is empty: no page issues a cursor"}
	case !c.cursors:
		return group("writes", leaf("cursor", func(context.Context) error {
			return fmt.Errorf("Options.Mutate is set, but the source issues no cursors (its Rows.Keys is nil): a walk by offset skips and repeats items under writes")
		}))
	}
	w := &world[T]{c: c, cur: c.want, byID: map[int]T{}}
	for i, it := range c.want {
		w.ids = append(w.ids, i)
		w.byID[i] = it
	}
	w.next = len(c.want)
	s := min(2, c.limits.Max)
	r := min(3, c.limits.Max)
	return group("writes",
		group("cursor", leaf(fmt.Sprintf("size=%d", s), func(ctx context.Context) error { return w.walkCursor(ctx, s) })),
		group("respond", leaf(fmt.Sprintf("size=%d", r), func(ctx context.Context) error { return w.walkRespond(ctx, r) })))
}

// world follows the items the source holds while Mutate changes them,
// giving each item an id that lasts as long as the item.
type world[T any] struct {
	c    *checker[T]
	cur  []T   // the items the source holds, in order
	ids  []int // their ids
	byID map[int]T
	next int // the next new id
	step int // Mutate's calls so far
}

// mutate calls Mutate, and r forgets the items it deleted.
func (w *world[T]) mutate(ctx context.Context, r *record[T]) error {
	w.step++
	now, err := w.c.o.Mutate(ctx, w.step)
	if err != nil {
		return fmt.Errorf("Mutate(step %d): %w", w.step, err)
	}
	ids, deleted := w.align(now)
	w.cur, w.ids = now, ids
	for _, id := range deleted {
		delete(r.held, id)
	}
	return nil
}

// align matches now against the items held before, in order: an item held
// before and now keeps its id, a new one gets a new id. It returns now's
// ids and the ids of the items no longer held. An item that moved counts
// as deleted and inserted.
func (w *world[T]) align(now []T) (ids, deleted []int) {
	ids = make([]int, len(now))
	i, j := 0, 0
	for i < len(w.cur) || j < len(now) {
		switch {
		case i < len(w.cur) && j < len(now) && w.c.eq(w.cur[i], now[j]):
			ids[j] = w.ids[i]
			i, j = i+1, j+1
		case i < len(w.cur):
			k := w.index(now[j:], w.cur[i])
			if k < 0 {
				deleted = append(deleted, w.ids[i])
				i++
				continue
			}
			for ; k > 0; k-- { // now[j:j+k] are new
				ids[j] = w.add(now[j])
				j++
			}
		default:
			ids[j] = w.add(now[j])
			j++
		}
	}
	return ids, deleted
}

func (w *world[T]) add(it T) int {
	id := w.next
	w.next++
	w.byID[id] = it
	return id
}

func (w *world[T]) index(s []T, it T) int {
	for i := range s {
		if w.c.eq(s[i], it) {
			return i
		}
	}
	return -1
}

// locate returns the positions in the items held now of a page's items,
// which must be held, each after the one before.
func (w *world[T]) locate(items []T) ([]int, error) {
	pos := make([]int, len(items))
	from := 0
	for i, it := range items {
		k := w.index(w.cur[from:], it)
		if k < 0 {
			if w.index(w.cur, it) >= 0 {
				return nil, fmt.Errorf("item %d of the page, %s, comes before the item it follows", i, show(it))
			}
			return nil, fmt.Errorf("item %d of the page, %s, is not in the source (after Mutate step %d)", i, show(it), w.step)
		}
		pos[i] = from + k
		from = pos[i] + 1
	}
	return pos, nil
}

// position is the position of id in the items held now, or -1.
func (w *world[T]) position(id int) int {
	for i, x := range w.ids {
		if x == id {
			return i
		}
	}
	return -1
}

// A record is what one walk under writes returned.
type record[T any] struct {
	w *world[T]
	// held are the ids held since the walk's first page.
	held map[int]bool
	seen map[int]bool
}

func (w *world[T]) record() *record[T] {
	r := &record[T]{w: w, held: map[int]bool{}, seen: map[int]bool{}}
	for _, id := range w.ids {
		r.held[id] = true
	}
	return r
}

// page adds the items of a page read now; edge, when >= 0, is the id of
// the item next to it in the reading direction on the page read before
// (its last, forward; its first, backward), which must still lie beyond
// the page if the source holds it.
func (r *record[T]) page(items []T, edge int, back bool) ([]int, error) {
	pos, err := r.w.locate(items)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(pos))
	for i, p := range pos {
		ids[i] = r.w.ids[p]
		if r.seen[ids[i]] {
			return nil, fmt.Errorf("item %s returned twice", show(items[i]))
		}
		r.seen[ids[i]] = true
	}
	if e := r.w.position(edge); e >= 0 && len(pos) > 0 {
		if !back && e > pos[0] {
			return nil, fmt.Errorf("the page starts with %s, before %s, the last item of the page before", show(items[0]), show(r.w.byID[edge]))
		}
		if back && e < pos[len(pos)-1] {
			return nil, fmt.Errorf("the page ends with %s, after %s, the first item of the page read before it", show(items[len(items)-1]), show(r.w.byID[edge]))
		}
	}
	return ids, nil
}

// missing reports the items held throughout the walk that it did not
// return.
func (r *record[T]) missing() error {
	var lost []string
	for _, id := range r.w.ids {
		if r.held[id] && !r.seen[id] {
			lost = append(lost, show(r.w.byID[id]))
		}
	}
	if len(lost) == 0 {
		return nil
	}
	return fmt.Errorf("the walk returned %d items, but %d items held throughout it (after Mutate step %d) were never returned: %s",
		len(r.seen), len(lost), r.w.step, strings.Join(lost[:min(len(lost), 5)], ", "))
}

// maxPages bounds a walk under writes in pages of size.
func (w *world[T]) maxPages(size int) int { return 4*(len(w.cur)+len(w.c.want))/size + 10 }

// walkCursor reads the source from offset 0 to the end by NextCursor, then
// back to the start by PrevCursor, calling Mutate between pages.
func (w *world[T]) walkCursor(ctx context.Context, size int) error {
	c := w.c
	p := bounded.Page{Limit: size}
	fwd := w.record()
	edge, from := -1, ""
	var pg bounded.Paged[T]
	var ids []int
	for step := 0; ; step++ {
		if step > 0 {
			if err := w.mutate(ctx, fwd); err != nil {
				return err
			}
		}
		if step >= w.maxPages(size) {
			return fmt.Errorf("the walk by NextCursor under writes did not end after %d pages", step)
		}
		var err error
		if pg, err = c.fetch(ctx, c.call, p); err == nil {
			ids, err = fwd.page(pg.Items, edge, false)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label(p, from), err)
		}
		if !pg.Page.HasMore {
			break
		}
		if pg.Page.NextCursor == "" || len(ids) == 0 {
			return fmt.Errorf("%s: a page of %d items with HasMore has no NextCursor", label(p, from), len(ids))
		}
		p.Cursor, edge = pg.Page.NextCursor, ids[len(ids)-1]
		from = fmt.Sprintf("NextCursor of page %d", step)
	}
	if err := fwd.missing(); err != nil {
		return fmt.Errorf("by NextCursor: %w", err)
	}
	// Back from the last page, which begins the walk back.
	bwd := w.record()
	if _, err := bwd.page(pg.Items, -1, true); err != nil {
		return err
	}
	for step := 0; pg.Page.PrevCursor != ""; step++ {
		if step >= w.maxPages(size) {
			return fmt.Errorf("the walk by PrevCursor under writes did not end after %d pages", step)
		}
		if len(ids) > 0 {
			edge = ids[0]
		}
		p.Cursor, from = pg.Page.PrevCursor, fmt.Sprintf("PrevCursor of page %d from the end", step)
		err := w.mutate(ctx, bwd)
		if err != nil {
			return err
		}
		if pg, err = c.fetch(ctx, c.call, p); err == nil {
			ids, err = bwd.page(pg.Items, edge, true)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label(p, from), err)
		}
	}
	if err := bwd.missing(); err != nil {
		return fmt.Errorf("by PrevCursor: %w", err)
	}
	return nil
}

// walkRespond follows Fitted.Next of [bounded.Respond] by cursor, with a
// budget that cuts pages, calling Mutate between responses.
func (w *world[T]) walkRespond(ctx context.Context, size int) error {
	c := w.c
	call := c.call
	call.Paging = bounded.ByCursor
	p := bounded.Page{Limit: size}
	b, err := c.budget(ctx, call, p, budgetOne)
	if err != nil {
		return err
	}
	r := w.record()
	edge, from := -1, ""
	for step := 0; ; step++ {
		if step > 0 {
			if err := w.mutate(ctx, r); err != nil {
				return err
			}
		}
		if step >= w.maxPages(1) {
			return fmt.Errorf("the walk by Fitted.Next under writes did not end after %d responses", step)
		}
		at := respondLabel(p, from, b)
		out, kept, page, err := c.respond(ctx, call, p, b)
		var ids []int
		if err == nil {
			ids, err = r.page(kept, edge, false)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if len(kept) < len(page) {
			c.cuts++
		}
		if out.Next == nil {
			break
		}
		if !hasArg(out.Next, "cursor") || len(ids) == 0 {
			return fmt.Errorf("%s: the next call %s after %d items does not continue by cursor", at, call.Render(out.Next), len(ids))
		}
		if p, err = c.nextPage(out.Next, countMode{}); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		edge, from = ids[len(ids)-1], fmt.Sprintf("Fitted.Next of response %d", step)
	}
	return r.missing()
}
