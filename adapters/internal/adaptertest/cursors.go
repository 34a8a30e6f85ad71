package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
)

// SignedCursors checks the CursorKey option of an adapter. open returns
// two stores on one database: signed with key (CursorKey(key)) and
// unsigned. Over the same notes, a walk by the signed store's cursors
// returns every note once; the signed store rejects the unsigned store's
// cursors and a cursor signed with another key ([driver.ErrCursorTampered]),
// and the unsigned store rejects the signed store's.
func SignedCursors(t *testing.T, open func(t *testing.T, key []byte) (signed, unsigned ports.Notes, otherKey ports.Notes)) {
	ctx := context.Background()
	signed, unsigned, other := open(t, []byte("a key the application keeps secret"))
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 17
	for i := range n {
		if err := signed.PutNote(ctx, ports.Note{ID: fmt.Sprintf("s/%02d", i), Title: "t", UpdatedAt: base.Add(time.Duration(i%5) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	p := bounded.Page{Limit: 4}
	var first bounded.PageInfo
	for step := 0; step < n; step++ {
		pg, err := signed.ListNotes(ctx, ports.ListFilter{}, p)
		if err != nil {
			t.Fatalf("signed walk, page %+v: %v", p, err)
		}
		if step == 0 {
			first = pg.Page
		}
		for _, it := range pg.Items {
			seen[it.ID]++
		}
		if !pg.Page.HasMore {
			break
		}
		p = bounded.Page{Limit: 4, Cursor: pg.Page.NextCursor}
	}
	if len(seen) != n {
		t.Errorf("signed walk returned %d distinct notes, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("signed walk returned %s %d times", id, c)
		}
	}
	plain, err := unsigned.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		store  ports.Notes
		cursor string
	}{
		{"unsigned cursor on the signed store", signed, plain.Page.NextCursor},
		{"signed cursor on the unsigned store", unsigned, first.NextCursor},
		{"signed cursor on a store with another key", other, first.NextCursor},
	} {
		pg, err := c.store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 4, Cursor: c.cursor})
		if !errors.Is(err, driver.ErrCursorTampered) || !errors.Is(err, bounded.ErrInvalidCursor) {
			t.Errorf("%s: %d items, error %v; want one wrapping ErrCursorTampered and ErrInvalidCursor", c.name, len(pg.Items), err)
		}
	}
}
