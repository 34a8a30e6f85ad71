package boundedtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// maxPages bounds a walk in pages of size over want, so that a source that
// never stops fails instead of looping.
func (c *checker[T]) maxPages(size int) int { return len(c.want)/size + 3 }

// read fetches p, whose cursor came from from, and checks that the page of
// limit items stands for sp.
func (c *checker[T]) read(ctx context.Context, p bounded.Page, from string, limit int, sp span) (bounded.Paged[T], error) {
	pg, err := c.fetch(ctx, c.call, p)
	if err == nil {
		err = c.checkPage(countMode{p.Count, p.CountCap}, limit, sp, pg)
	}
	if err != nil {
		return pg, fmt.Errorf("%s: %w", label(p, from), err)
	}
	return pg, nil
}

// walkOffset reads want from offset 0 by NextOffset, checking every page.
func (c *checker[T]) walkOffset(ctx context.Context, s size, m countMode) error {
	p := s.page(m)
	for range c.maxPages(s.eff) {
		pg, err := c.read(ctx, p, "", s.eff, span{start: p.Offset, end: min(len(c.want), p.Offset+s.eff)})
		if err != nil {
			return err
		}
		if !pg.Page.HasMore {
			return nil
		}
		p.Offset = pg.Page.NextOffset
	}
	return fmt.Errorf("the walk by offset did not end after %d pages", c.maxPages(s.eff))
}

// walkPageNumber reads want page by page from page 0, with
// [bounded.Limits.FromPageNumber].
func (c *checker[T]) walkPageNumber(ctx context.Context, s size, m countMode) error {
	for page := range c.maxPages(s.eff) {
		p, err := c.limits.FromPageNumber(page, s.limit)
		if err != nil {
			return fmt.Errorf("FromPageNumber(%d, %d): %w", page, s.limit, err)
		}
		p.Count, p.CountCap = m.mode, m.cap
		pg, err := c.read(ctx, p, "", s.eff, span{start: page * s.eff, end: min(len(c.want), (page+1)*s.eff)})
		if err != nil {
			return fmt.Errorf("page %d: %w", page, err)
		}
		if !pg.Page.HasMore {
			return nil
		}
	}
	return fmt.Errorf("the walk by page number did not end after %d pages", c.maxPages(s.eff))
}

// walkCursor reads want from offset 0 to the end by NextCursor, then back
// to the start by PrevCursor.
func (c *checker[T]) walkCursor(ctx context.Context, s size, m countMode) error {
	n := len(c.want)
	p := s.page(m)
	sp := span{start: 0, end: min(n, s.eff)}
	from := ""
	var pg bounded.Paged[T]
	for step := 0; ; step++ {
		if step >= c.maxPages(s.eff) {
			return fmt.Errorf("the walk by NextCursor did not end after %d pages", step)
		}
		var err error
		if pg, err = c.read(ctx, p, from, s.eff, sp); err != nil {
			return err
		}
		if !pg.Page.HasMore {
			break
		}
		p.Offset, p.Cursor = 0, pg.Page.NextCursor
		from = "NextCursor of " + sp.String()
		sp = span{start: sp.end, end: min(n, sp.end+s.eff)}
	}
	for step := 0; sp.start > 0; step++ {
		if step >= c.maxPages(s.eff) {
			return fmt.Errorf("the walk by PrevCursor did not end after %d pages", step)
		}
		p.Cursor = pg.Page.PrevCursor
		from = "PrevCursor of " + sp.String()
		sp = span{start: max(0, sp.start-s.eff), end: sp.start, back: true}
		var err error
		if pg, err = c.read(ctx, p, from, s.eff, sp); err != nil {
			return err
		}
	}
	return nil
}

// pastEnd reads offsets at and past the end of want with every page size:
// each page is empty, with the exact total and no next page.
func (c *checker[T]) pastEnd(ctx context.Context, m countMode) error {
	n := len(c.want)
	for _, s := range c.sizes() {
		for _, off := range []int{n, n + 1, n + s.eff, bounded.MaxOffset - s.eff} {
			p := s.page(m)
			p.Offset = off
			if _, err := c.read(ctx, p, "", s.eff, span{start: off, end: off}); err != nil {
				return err
			}
		}
	}
	return nil
}

// badCursors are the checks of cursors the source did not issue.
func (c *checker[T]) badCursors() *node {
	kids := []*node{leaf("garbage", c.garbageCursors)}
	switch {
	case c.cursors:
		kids = append(kids,
			leaf("tampered", c.tamperedCursor),
			leaf("foreign", c.foreignCursor),
			leaf("key-count", c.keyCount))
	case len(c.want) > 0:
		kids = append(kids, leaf("offset-only", c.offsetOnly))
	}
	return group("bad-cursor", kids...)
}

// expectInvalid checks that err wraps [bounded.ErrInvalidCursor].
func expectInvalid(at string, err error) error {
	switch {
	case err == nil:
		return fmt.Errorf("%s: no error, want one wrapping bounded.ErrInvalidCursor", at)
	case !errors.Is(err, bounded.ErrInvalidCursor):
		return fmt.Errorf("%s: error %q does not wrap bounded.ErrInvalidCursor", at, err)
	}
	return nil
}

// garbageCursors are strings no codec issued.
func (c *checker[T]) garbageCursors(ctx context.Context) error {
	for _, cur := range []string{"garbage", "AQIDBAUGBwgJCgsMDQ4PEBESExQ"} {
		p := bounded.Page{Cursor: cur}
		_, err := c.fetch(ctx, c.call, p)
		if err := expectInvalid(label(p, ""), err); err != nil {
			return err
		}
	}
	return nil
}

// firstCursor is the cursor after the first item of want, issued for call.
func (c *checker[T]) firstCursor(ctx context.Context, call bounded.Call) (string, error) {
	p := bounded.Page{Limit: 1}
	pg, err := c.fetch(ctx, call, p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", label(p, ""), err)
	}
	if pg.CursorAt == nil {
		return "", fmt.Errorf("%s: the page has no CursorAt, but other pages of the source do", label(p, ""))
	}
	cur, err := pg.CursorAt(1)
	if err != nil {
		return "", fmt.Errorf("%s: CursorAt(1): %w", label(p, ""), err)
	}
	return cur, nil
}

// tamperedCursor changes one character of a cursor the source issued.
func (c *checker[T]) tamperedCursor(ctx context.Context) error {
	cur, err := c.firstCursor(ctx, c.call)
	if err != nil {
		return err
	}
	b := []byte(cur)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	p := bounded.Page{Cursor: string(b)}
	_, err = c.fetch(ctx, c.call, p)
	return expectInvalid(label(p, "CursorAt(1) of want[0:1] with a character changed"), err)
}

// foreignCursor replays a cursor issued for another call.
func (c *checker[T]) foreignCursor(ctx context.Context) error {
	other := bounded.Call{Tool: c.call.Tool + "_other"}
	cur, err := c.firstCursor(ctx, other)
	if err != nil {
		return err
	}
	p := bounded.Page{Cursor: cur}
	_, err = c.fetch(ctx, c.call, p)
	return expectInvalid(label(p, "CursorAt(1) of want[0:1] issued for another tool"), err)
}

// keyCount hands the source cursors with one key too many and one too
// few: a source must refuse keys it cannot use.
func (c *checker[T]) keyCount(ctx context.Context) error {
	r, err := c.limits.Normalize(bounded.Page{Limit: 1})
	if err != nil {
		return err
	}
	rows, err := c.src.Fetch(ctx, r)
	if err != nil {
		return fmt.Errorf("Fetch(limit=1, offset=0): %w", err)
	}
	if rows.Keys == nil || len(rows.Items) == 0 {
		return fmt.Errorf("Fetch(limit=1, offset=0): %d items, Rows.Keys nil %v, but the source issues cursors", len(rows.Items), rows.Keys == nil)
	}
	keys := rows.Keys(rows.Items[0])
	bad := [][]any{append(append([]any(nil), keys...), keys[len(keys)-1])}
	if len(keys) > 1 {
		bad = append(bad, keys[:len(keys)-1])
	}
	for _, k := range bad {
		for _, back := range []bool{false, true} {
			r.At = &driver.Cursor{Offset: 1, Backward: back, Keys: k}
			r.Offset = 1
			_, err := c.src.Fetch(ctx, r)
			at := fmt.Sprintf("Fetch(limit=1, At=%+v) of a source with %d sort keys", *r.At, len(keys))
			if err := expectInvalid(at, err); err != nil {
				return err
			}
		}
	}
	return nil
}

// offsetOnly hands a source without cursors a cursor: it must refuse it,
// or return rows without keys, which Respond refuses.
func (c *checker[T]) offsetOnly(ctx context.Context) error {
	r, err := c.limits.Normalize(bounded.Page{Limit: 1})
	if err != nil {
		return err
	}
	r.At = &driver.Cursor{Offset: 1, Keys: []any{int64(1)}}
	r.Offset = 1
	rows, err := c.src.Fetch(ctx, r)
	at := fmt.Sprintf("Fetch(limit=1, At=%+v) of a source without cursors", *r.At)
	if err == nil && rows.Keys == nil {
		return nil
	}
	if err == nil {
		return fmt.Errorf("%s: rows with keys", at)
	}
	return expectInvalid(at, err)
}
