package memrepo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// cursorPresence compares cursors by presence only: their bytes are the
// store's own, but a page has one exactly when it should.
var cursorPresence = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && (sf.Name() == "NextCursor" || sf.Name() == "PrevCursor")
}, cmp.Comparer(func(a, b string) bool { return (a == "") == (b == "") }))

// putNotes stores n notes whose UpdatedAt ties in groups of three.
func putNotes(t *testing.T, s *memrepo.Store, n int) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		note := ports.Note{ID: fmt.Sprintf("n/%03d", i), Title: fmt.Sprintf("T%d", i%4), UpdatedAt: base.Add(time.Duration(i/3) * time.Hour), Tags: []string{"all"}}
		if err := s.PutNote(context.Background(), note); err != nil {
			t.Fatal(err)
		}
	}
}

func ids(refs []ports.NoteRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.ID)
	}
	return out
}

func TestCursorWalkEqualsOffsetWalk(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 23)
	full, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2, 3, 7, 50} {
		var byCursor, byOffset []ports.NoteRef
		var cursorPages []bounded.PageInfo
		p := bounded.Page{Limit: size}
		for {
			pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
			if err != nil {
				t.Fatalf("size %d, page %+v: %v", size, p, err)
			}
			byCursor = append(byCursor, pg.Items...)
			cursorPages = append(cursorPages, pg.Page)
			if !pg.Page.HasMore {
				if pg.Page.NextCursor != "" {
					t.Errorf("size %d: last page has a NextCursor", size)
				}
				break
			}
			if pg.Page.NextCursor == "" {
				t.Fatalf("size %d: HasMore without NextCursor: %+v", size, pg.Page)
			}
			p = bounded.Page{Limit: size, Cursor: pg.Page.NextCursor}
		}
		for i := 0; ; i++ {
			pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: size, Offset: i * size})
			if err != nil {
				t.Fatal(err)
			}
			byOffset = append(byOffset, pg.Items...)
			want := pg.Page
			want.AfterCursor = i > 0 // every page but the first came by cursor
			if diff := cmp.Diff(want, cursorPages[i], cursorPresence); diff != "" {
				t.Errorf("size %d page %d: cursor page info differs from offset page info (-offset +cursor):\n%s", size, i, diff)
			}
			if !pg.Page.HasMore {
				break
			}
		}
		if diff := cmp.Diff(full.Items, byCursor); diff != "" {
			t.Errorf("size %d: cursor walk differs from one full read (-full +walk):\n%s", size, diff)
		}
		if diff := cmp.Diff(full.Items, byOffset); diff != "" {
			t.Errorf("size %d: offset walk differs from one full read (-full +walk):\n%s", size, diff)
		}
	}
}

func TestCursorBackward(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 20)
	full, _ := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 200})
	// Walk forward to the end by cursor, then back to the start by
	// PrevCursor: the backward pages are the forward pages, in reverse.
	var forward [][]string
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 6})
	for err == nil {
		forward = append(forward, ids(pg.Items))
		if pg.Page.PrevCursor != "" && len(forward) == 1 {
			t.Errorf("first page has a PrevCursor")
		}
		if !pg.Page.HasMore {
			break
		}
		pg, err = s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 6, Cursor: pg.Page.NextCursor})
	}
	if err != nil {
		t.Fatal(err)
	}
	var back [][]string
	for pg.Page.PrevCursor != "" {
		pg, err = s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 6, Cursor: pg.Page.PrevCursor})
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, ids(pg.Items))
		if !pg.Page.HasMore || pg.Page.NextOffset != pg.Page.Offset+pg.Page.Returned {
			t.Errorf("backward page %+v: want HasMore and NextOffset = Offset+Returned", pg.Page)
		}
	}
	slices.Reverse(back)
	if diff := cmp.Diff(forward[:len(forward)-1], back); diff != "" {
		t.Errorf("backward walk (-forward +backward):\n%s", diff)
	}
	if pg.Page.Offset != 0 || pg.Items[0].ID != full.Items[0].ID {
		t.Errorf("backward walk ended at offset %d, item %s; want 0, %s", pg.Page.Offset, pg.Items[0].ID, full.Items[0].ID)
	}
}

// TestCursorAt checks every page's CursorAt, on pages read by offset, by
// cursor and backward: CursorAt(n) continues right after item n-1, at
// Offset+n, and CursorAt(len(Items)) where NextCursor does.
func TestCursorAt(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 20)
	list := func(p bounded.Page) bounded.Paged[ports.NoteRef] {
		t.Helper()
		pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		return pg
	}
	full := list(bounded.Page{Limit: 200}).Items
	last := list(bounded.Page{Limit: 6, Offset: 18})
	pages := map[string]bounded.Paged[ports.NoteRef]{
		"first":     list(bounded.Page{Limit: 6}),
		"by offset": list(bounded.Page{Limit: 6, Offset: 7}),
		"by cursor": list(bounded.Page{Limit: 6, Cursor: list(bounded.Page{Limit: 5}).Page.NextCursor}),
		"backward":  list(bounded.Page{Limit: 6, Cursor: last.Page.PrevCursor}),
		"last":      last,
	}
	for name, pg := range pages {
		if pg.CursorAt == nil {
			t.Errorf("%s: no CursorAt", name)
			continue
		}
		for n := 1; n <= len(pg.Items); n++ {
			c, err := pg.CursorAt(n)
			if err != nil {
				t.Fatalf("%s: CursorAt(%d): %v", name, n, err)
			}
			next := list(bounded.Page{Limit: 3, Cursor: c})
			off := pg.Page.Offset + n
			want := full[off:min(off+3, len(full))]
			if diff := cmp.Diff(ids(want), ids(next.Items)); diff != "" || next.Page.Offset != off {
				t.Errorf("%s (offset %d): CursorAt(%d) continues at offset %d (-want +got):\n%s", name, pg.Page.Offset, n, next.Page.Offset, diff)
			}
			if n == len(pg.Items) && pg.Page.HasMore {
				byNext := list(bounded.Page{Limit: 3, Cursor: pg.Page.NextCursor})
				if diff := cmp.Diff(byNext, next, cursorPresence, ignoreCursors[1]); diff != "" {
					t.Errorf("%s: CursorAt(%d) and NextCursor continue differently (-NextCursor +CursorAt):\n%s", name, n, diff)
				}
			}
		}
		// A page read forward by cursor has the position before its
		// first item too: the cursor it was read by.
		if c, err := pg.CursorAt(0); name == "by cursor" && (err != nil || c != list(bounded.Page{Limit: 5}).Page.NextCursor) {
			t.Errorf("%s: CursorAt(0) = %q, %v; want the page's own cursor", name, c, err)
		} else if name != "by cursor" && !errors.Is(err, bounded.ErrInvalidPage) {
			t.Errorf("%s: CursorAt(0) of %d items: %v; want ErrInvalidPage", name, len(pg.Items), err)
		}
		for _, n := range []int{-1, len(pg.Items) + 1} {
			if _, err := pg.CursorAt(n); !errors.Is(err, bounded.ErrInvalidPage) {
				t.Errorf("%s: CursorAt(%d) of %d items: %v; want ErrInvalidPage", name, n, len(pg.Items), err)
			}
		}
	}
	if pg := list(bounded.Page{Offset: 20}); pg.CursorAt != nil {
		t.Errorf("a page past the end has a CursorAt")
	}
}

func TestCursorRejected(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 10)
	pg, err := s.ListNotes(ctx, ports.ListFilter{Tag: "all"}, bounded.Page{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := pg.Page.NextCursor
	tampered := []byte(c)
	tampered[len(tampered)/2] ^= 1
	if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
		tampered[len(tampered)/2] = 'A'
	}
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"other filter", func() error {
			_, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Cursor: c})
			return err
		}, driver.ErrCursorForeign},
		{"other method", func() error {
			_, err := s.Backlinks(ctx, "n/001", bounded.Page{Cursor: c})
			return err
		}, driver.ErrCursorForeign},
		{"tampered", func() error {
			_, err := s.ListNotes(ctx, ports.ListFilter{Tag: "all"}, bounded.Page{Cursor: string(tampered)})
			return err
		}, bounded.ErrInvalidCursor},
		{"with offset", func() error {
			_, err := s.ListNotes(ctx, ports.ListFilter{Tag: "all"}, bounded.Page{Cursor: c, Offset: 2})
			return err
		}, bounded.ErrInvalidCursor},
		{"signed store", func() error {
			_, err := memrepo.New(memrepo.WithCursorKey([]byte("k"))).ListNotes(ctx, ports.ListFilter{Tag: "all"}, bounded.Page{Cursor: c})
			return err
		}, driver.ErrCursorTampered},
		{"wrong key types", func() error {
			// A cursor of the right scope whose keys are not ListNotes'
			// (a checksummed cursor can be forged; its keys are checked).
			forged, err := driver.Codec{}.Encode(ports.Scope("ListNotes", "all", ""), driver.Cursor{Offset: 2, Keys: []any{"x", int64(1)}})
			if err != nil {
				return err
			}
			_, err = s.ListNotes(ctx, ports.ListFilter{Tag: "all"}, bounded.Page{Cursor: forged})
			return err
		}, bounded.ErrInvalidCursor},
	} {
		err := tc.call()
		if !errors.Is(err, tc.want) || !errors.Is(err, bounded.ErrInvalidCursor) {
			t.Errorf("%s: error %v, want one wrapping %v and %v", tc.name, err, tc.want, bounded.ErrInvalidCursor)
		}
	}
	signed := memrepo.New(memrepo.WithCursorKey([]byte("k")))
	putNotes(t, signed, 10)
	sp, err := signed.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	next, err := signed.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 3, Cursor: sp.Page.NextCursor})
	if err != nil || next.Page.Offset != 3 || len(next.Items) != 3 {
		t.Errorf("signed cursor: %+v, %v; want the page at offset 3", next.Page, err)
	}
}

// TestCursorWalkUnderWrites deletes and inserts notes between the pages of
// a cursor walk: every note that exists throughout comes back exactly once.
func TestCursorWalkUnderWrites(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 30)
	stable := map[string]int{}
	p := bounded.Page{Limit: 4}
	step := 0
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for {
		pg, err := s.ListNotes(ctx, ports.ListFilter{}, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range pg.Items {
			stable[it.ID]++
		}
		// Before the next page: delete one note behind the walk and one
		// ahead of it, insert one at each end.
		step++
		if pg.Page.HasMore {
			_ = s.DeleteNote(ctx, pg.Items[0].ID)
			_ = s.PutNote(ctx, ports.Note{ID: fmt.Sprintf("new/%d/a", step), UpdatedAt: base.Add(1000 * time.Hour)})
			_ = s.PutNote(ctx, ports.Note{ID: fmt.Sprintf("new/%d/z", step), UpdatedAt: base.Add(-1000 * time.Hour)})
		}
		if !pg.Page.HasMore {
			break
		}
		p = bounded.Page{Limit: 4, Cursor: pg.Page.NextCursor}
	}
	for i := range 30 {
		id := fmt.Sprintf("n/%03d", i)
		if _, err := s.GetNote(ctx, id, bounded.Window{}); err != nil {
			continue // deleted during the walk
		}
		if stable[id] != 1 {
			t.Errorf("note %s, present throughout, returned %d times", id, stable[id])
		}
	}
}

func TestCountStrategies(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	putNotes(t, s, 25)
	for _, tc := range []struct {
		page      bounded.Page
		total     int
		kind      bounded.TotalKind
		hasMore   bool
		returned  int
		wantError bool
	}{
		{page: bounded.Page{Limit: 10}, total: 25, kind: bounded.TotalExact, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Count: bounded.CountCapped, CountCap: 30}, total: 25, kind: bounded.TotalExact, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Count: bounded.CountCapped, CountCap: 25}, total: 25, kind: bounded.TotalExact, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Count: bounded.CountCapped, CountCap: 12}, total: 12, kind: bounded.TotalAtLeast, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Offset: 10, Count: bounded.CountCapped, CountCap: 12}, total: 20, kind: bounded.TotalAtLeast, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Offset: 20, Count: bounded.CountCapped, CountCap: 12}, total: 25, kind: bounded.TotalExact, hasMore: false, returned: 5},
		{page: bounded.Page{Limit: 10, Count: bounded.CountNone}, total: 10, kind: bounded.TotalUnknown, hasMore: true, returned: 10},
		{page: bounded.Page{Limit: 10, Offset: 20, Count: bounded.CountNone}, total: 25, kind: bounded.TotalUnknown, hasMore: false, returned: 5},
		// Past the end the total is exact whatever the strategy, so that
		// the hint names the real last page.
		{page: bounded.Page{Limit: 10, Offset: 40, Count: bounded.CountNone}, total: 25, kind: bounded.TotalExact, hasMore: false, returned: 0},
		{page: bounded.Page{Limit: 10, Offset: 1000, Count: bounded.CountCapped, CountCap: 12}, total: 25, kind: bounded.TotalExact, hasMore: false, returned: 0},
		{page: bounded.Page{Count: bounded.CountCapped, CountCap: -1}, wantError: true},
		{page: bounded.Page{Count: bounded.CountCapped, CountCap: bounded.MaxCountCap + 1}, wantError: true},
		{page: bounded.Page{Count: 7}, wantError: true},
	} {
		pg, err := s.ListNotes(ctx, ports.ListFilter{}, tc.page)
		if tc.wantError {
			if !errors.Is(err, bounded.ErrInvalidPage) {
				t.Errorf("%+v: error %v, want ErrInvalidPage", tc.page, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", tc.page, err)
		}
		got := pg.Page
		if got.Total != tc.total || got.TotalKind != tc.kind || got.HasMore != tc.hasMore || got.Returned != tc.returned {
			t.Errorf("%+v: total %d (%v), hasMore %v, returned %d; want %d (%v), %v, %d",
				tc.page, got.Total, got.TotalKind, got.HasMore, got.Returned, tc.total, tc.kind, tc.hasMore, tc.returned)
		}
	}
}

// ignoreCursors leaves cursors out of comparisons of pages whose cursors
// the test does not check: NextCursor, PrevCursor and Paged.CursorAt.
var ignoreCursors = cmp.Options{
	cmpopts.IgnoreFields(bounded.PageInfo{}, "NextCursor", "PrevCursor"),
	cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		return ok && sf.Name() == "CursorAt"
	}, cmp.Ignore()),
}
