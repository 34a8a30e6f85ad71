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

// RotatedCursors checks that cursors are stateless and that signing keys
// rotate without breaking walks. open returns one store per codec, each
// with its own connection pool, all on one database, as separate
// processes behind a load balancer would be. A walk begun on a store
// signing with an old key is continued on a store that signs with a new
// key and keeps the old one in Previous, every note once; a store that no
// longer holds the old key refuses its cursor with [driver.ErrCursorExpired].
func RotatedCursors(t *testing.T, open func(t *testing.T, codecs ...driver.Codec) []ports.Notes) {
	ctx := context.Background()
	oldKey, newKey := []byte("last month's key"), []byte("this month's key")
	stores := open(t, driver.Codec{Key: oldKey}, driver.Codec{Key: newKey, Previous: [][]byte{oldKey}}, driver.Codec{Key: newKey})
	before, during, after := stores[0], stores[1], stores[2]
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 23
	for i := range n {
		if err := before.PutNote(ctx, ports.Note{ID: fmt.Sprintf("r/%02d", i), Title: "t", UpdatedAt: base.Add(time.Duration(i%4) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := before.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, it := range first.Items {
		seen[it.ID]++
	}
	// The walk goes on in another process, which signs with the new key:
	// its cursors are read by the store that has only the new key.
	walkers := []ports.Notes{during, after}
	p := bounded.Page{Limit: 5, Cursor: first.Page.NextCursor}
	for step := 0; p.Cursor != "" && step < n; step++ {
		pg, err := walkers[min(step, 1)].ListNotes(ctx, ports.ListFilter{}, p)
		if err != nil {
			t.Fatalf("walk step %d: %v", step, err)
		}
		for _, it := range pg.Items {
			seen[it.ID]++
		}
		p = bounded.Page{Limit: 5, Cursor: pg.Page.NextCursor}
	}
	if len(seen) != n {
		t.Errorf("the walk across processes and keys returned %d distinct notes, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("the walk returned %s %d times", id, c)
		}
	}
	pg, err := after.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 5, Cursor: first.Page.NextCursor})
	if !errors.Is(err, driver.ErrCursorExpired) || !errors.Is(err, bounded.ErrInvalidCursor) {
		t.Errorf("a cursor of a retired key: %d items, error %v; want one wrapping ErrCursorExpired and ErrInvalidCursor", len(pg.Items), err)
	}
}
