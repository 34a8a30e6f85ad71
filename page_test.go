package bounded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/driver"
)

func TestNormalize(t *testing.T) {
	l := Limits{Default: 50, Max: 200}
	tests := []struct {
		name    string
		p       Page
		want    driver.Request
		wantErr string
	}{
		{"zero is the default", Page{}, driver.Request{Limit: 50, CountCap: 500}, ""},
		{"within max", Page{Limit: 7, Offset: 3}, driver.Request{Limit: 7, Offset: 3, Requested: 7, CountCap: 100}, ""},
		{"exactly max", Page{Limit: 200}, driver.Request{Limit: 200, Requested: 200, CountCap: 2000}, ""},
		{"over max is clamped", Page{Limit: 201, Offset: 10}, driver.Request{Limit: 200, Offset: 10, Requested: 201, Clamped: true, CountCap: 2000}, ""},
		{"cursor kept", Page{Cursor: "abc"}, driver.Request{Limit: 50, Cursor: "abc", CountCap: 500}, ""},
		{"exact", Page{Count: CountExact}, driver.Request{Limit: 50, Count: CountExact}, ""},
		{"negative limit", Page{Limit: -1}, driver.Request{}, "limit -1 is negative"},
		{"negative offset", Page{Offset: -5}, driver.Request{}, "offset -5 is negative"},
		{"offset over max", Page{Offset: MaxOffset + 1}, driver.Request{}, "offset 9007199254740992 is over the maximum"},
		{"offset plus limit overflows", Page{Offset: MaxOffset - 10}, driver.Request{}, "plus limit 50 is over the maximum"},
		{"max offset with room", Page{Offset: MaxOffset - 50}, driver.Request{Limit: 50, Offset: MaxOffset - 50, CountCap: 500}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Normalize(tt.p)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidPage) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Normalize(%+v) error = %v, want ErrInvalidPage containing %q", tt.p, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Normalize(%+v) = %+v, %v; want %+v", tt.p, got, err, tt.want)
			}
		})
	}
	for _, bad := range []Limits{{}, {Default: 0, Max: 10}, {Default: 11, Max: 10}, {Default: -1, Max: 5}} {
		if _, err := bad.Normalize(Page{}); !errors.Is(err, ErrInvalidPage) {
			t.Errorf("Limits%+v.Normalize error = %v, want ErrInvalidPage", bad, err)
		}
	}
}

func TestFromPageNumber(t *testing.T) {
	l := Limits{Default: 100, Max: 1000}
	tests := []struct {
		page, size int
		want       Page
		wantReq    driver.Request
		wantErr    bool
	}{
		{0, 0, Page{Offset: 0}, driver.Request{Limit: 100, CountCap: 1000}, false},
		{3, 0, Page{Offset: 300}, driver.Request{Limit: 100, Offset: 300, CountCap: 1000}, false},
		{2, 25, Page{Limit: 25, Offset: 50}, driver.Request{Limit: 25, Offset: 50, Requested: 25, CountCap: 250}, false},
		{2, 5000, Page{Limit: 5000, Offset: 2000}, driver.Request{Limit: 1000, Offset: 2000, Requested: 5000, Clamped: true, CountCap: 10000}, false},
		{-1, 0, Page{}, driver.Request{}, true},
		{0, -1, Page{}, driver.Request{}, true},
		{MaxOffset, 100, Page{}, driver.Request{}, true},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("page=%d,size=%d", tt.page, tt.size)
		got, err := l.FromPageNumber(tt.page, tt.size)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidPage) {
				t.Errorf("%s: error = %v, want ErrInvalidPage", name, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, tt.want)
			continue
		}
		req, err := l.Normalize(got)
		if err != nil || req != tt.wantReq {
			t.Errorf("%s: Normalize = %+v, %v; want %+v", name, req, err, tt.wantReq)
		}
	}
}

func TestInfo(t *testing.T) {
	tests := []struct {
		name            string
		req             driver.Request
		total, returned int
		want            PageInfo
	}{
		{"first of several", driver.Request{Limit: 100}, 350, 100, PageInfo{Total: 350, Limit: 100, Returned: 100, HasMore: true, NextOffset: 100}},
		{"last partial", driver.Request{Limit: 100, Offset: 300}, 350, 50, PageInfo{Total: 350, Limit: 100, Offset: 300, Returned: 50}},
		{"exactly one page", driver.Request{Limit: 10}, 10, 10, PageInfo{Total: 10, Limit: 10, Returned: 10}},
		{"empty", driver.Request{Limit: 10}, 0, 0, PageInfo{Limit: 10}},
		{"past the end", driver.Request{Limit: 10, Offset: 500}, 35, 0, PageInfo{Total: 35, Limit: 10, Offset: 500}},
		{"clamped", driver.Request{Limit: 500, Requested: 900, Clamped: true}, 3, 3, PageInfo{Total: 3, Limit: 500, Returned: 3, Clamped: true, RequestedLimit: 900}},
	}
	for _, tt := range tests {
		if got := pageInfo(tt.req, tt.total, tt.returned); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	past := pageInfo(driver.Request{Limit: 10, Offset: 500}, 35, 0)
	if !past.PastEnd() || past.LastPageOffset() != 30 {
		t.Errorf("past the end: PastEnd=%v LastPageOffset=%d, want true 30", past.PastEnd(), past.LastPageOffset())
	}
}

func TestInfoMore(t *testing.T) {
	r := driver.Request{Limit: 10, Offset: 20}
	if got, want := pageInfoMore(r, 10, true, 10000), (PageInfo{Total: 10000, TotalKind: TotalAtLeast, Limit: 10, Offset: 20, Returned: 10, HasMore: true, NextOffset: 30}); got != want {
		t.Errorf("capped: got %+v, want %+v", got, want)
	}
	if got, want := pageInfoMore(r, 10, true, -1), (PageInfo{Total: 30, TotalKind: TotalUnknown, Limit: 10, Offset: 20, Returned: 10, HasMore: true, NextOffset: 30}); got != want {
		t.Errorf("uncounted: got %+v, want %+v", got, want)
	}
	if got, want := pageInfoMore(r, 4, false, 10000), (PageInfo{Total: 24, TotalKind: TotalExact, Limit: 10, Offset: 20, Returned: 4}); got != want {
		t.Errorf("stale lower bound: got %+v, want %+v", got, want)
	}
	if got, want := pageInfoMore(r, 0, false, 10000), (PageInfo{Total: 10000, TotalKind: TotalAtLeast, Limit: 10, Offset: 20}); got != want {
		t.Errorf("empty page under a lower bound: got %+v, want %+v", got, want)
	}
	if got, want := pageInfoMore(r, 4, false, 24), (PageInfo{Total: 24, TotalKind: TotalExact, Limit: 10, Offset: 20, Returned: 4}); got != want {
		t.Errorf("last page under the cap: got %+v, want %+v", got, want)
	}
}

func TestPageNumbers(t *testing.T) {
	tests := []struct {
		info                      PageInfo
		number, pages, remaining  int
		hasNext, hasPrev, aligned bool
	}{
		{pageInfo(driver.Request{Limit: 100}, 350, 100), 0, 4, 3, true, false, true},
		{pageInfo(driver.Request{Limit: 100, Offset: 100}, 350, 100), 1, 4, 2, true, true, true},
		{pageInfo(driver.Request{Limit: 100, Offset: 300}, 350, 50), 3, 4, 0, false, true, true},
		{pageInfo(driver.Request{Limit: 100}, 0, 0), 0, 0, 0, false, false, true},
		{pageInfo(driver.Request{Limit: 100}, 350, 100).Cut(57), 0, 4, 3, true, false, false},
		{pageInfo(driver.Request{Limit: 100}, 100, 100), 0, 1, 0, false, false, true},
	}
	for i, tt := range tests {
		in := tt.info
		got := []any{in.PageNumber(), in.TotalPages(), in.PagesRemaining(), in.HasNext(), in.HasPrevious(), in.Aligned()}
		want := []any{tt.number, tt.pages, tt.remaining, tt.hasNext, tt.hasPrev, tt.aligned}
		if !slices.Equal(got, want) {
			t.Errorf("case %d %+v: got number, pages, remaining, next, prev, aligned = %v, want %v", i, in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	in := PageInfo{Total: 350, Limit: 100, Offset: 200, Returned: 100, HasMore: true, NextOffset: 300, NextCursor: "c"}
	got := in.Cut(40)
	want := PageInfo{Total: 350, Limit: 100, Offset: 200, Returned: 40, HasMore: true, NextOffset: 240}
	if got != want {
		t.Errorf("Cut(40) = %+v, want %+v", got, want)
	}
	last := PageInfo{Total: 250, Limit: 100, Offset: 200, Returned: 50}
	if got, want := last.Cut(10), (PageInfo{Total: 250, Limit: 100, Offset: 200, Returned: 10, HasMore: true, NextOffset: 210}); got != want {
		t.Errorf("Cut of the last page = %+v, want %+v", got, want)
	}
	if got := last.Cut(50); got != last {
		t.Errorf("Cut keeping everything changed the info: %+v", got)
	}
}

// sliceFetcher pages a slice the way an adapter must.
func sliceFetcher(items []int, l Limits) Fetcher[int] {
	return func(_ context.Context, p Page) (Paged[int], error) {
		r, err := l.Normalize(p)
		if err != nil {
			return Paged[int]{}, err
		}
		lo := min(r.Offset, len(items))
		hi := min(lo+r.Limit, len(items))
		return Paged[int]{Items: items[lo:hi], Page: pageInfo(r, len(items), hi-lo)}, nil
	}
}

func TestAll(t *testing.T) {
	items := make([]int, 23)
	for i := range items {
		items[i] = i
	}
	for _, limit := range []int{0, 1, 2, 3, 7, 23, 50} {
		var got []int
		for v, err := range All(context.Background(), Page{Limit: limit}, sliceFetcher(items, Limits{Default: 5, Max: 10})) {
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			got = append(got, v)
		}
		if !slices.Equal(got, items) {
			t.Errorf("limit %d: got %v, want %v", limit, got, items)
		}
	}
}

// TestAllKeepsCountStrategy: every page of a walk, not the first alone,
// is asked for with the caller's count strategy and cap.
func TestAllKeepsCountStrategy(t *testing.T) {
	items := make([]int, 23)
	for i := range items {
		items[i] = i
	}
	inner := sliceFetcher(items, Limits{Default: 5, Max: 10})
	for _, start := range []Page{{Limit: 4, Count: CountNone}, {Limit: 3, Count: CountCapped, CountCap: 7}} {
		var pages []Page
		f := func(ctx context.Context, p Page) (Paged[int], error) {
			pages = append(pages, p)
			pg, err := inner(ctx, p)
			pg.Page.NextCursor = ""
			return pg, err
		}
		n := 0
		for _, err := range All(context.Background(), start, f) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != len(items) {
			t.Errorf("%+v: walked %d items, want %d", start, n, len(items))
		}
		if len(pages) < 2 {
			t.Fatalf("%+v: %d pages", start, len(pages))
		}
		for i, p := range pages {
			if p.Count != start.Count || p.CountCap != start.CountCap || p.Limit != start.Limit {
				t.Errorf("%+v: page %d asked %+v, want the start's limit and count", start, i, p)
			}
		}
	}
}

func TestAllStopsWithoutProgress(t *testing.T) {
	stuck := func(_ context.Context, p Page) (Paged[int], error) {
		return Paged[int]{Items: []int{1}, Page: PageInfo{Limit: 1, Offset: p.Offset, Returned: 1, Total: 5, HasMore: true, NextOffset: p.Offset}}, nil
	}
	empty := func(_ context.Context, p Page) (Paged[int], error) {
		return Paged[int]{Page: PageInfo{Limit: 1, Total: 5, HasMore: true, NextOffset: 1}}, nil
	}
	for name, f := range map[string]Fetcher[int]{"stuck": stuck, "empty": empty} {
		var errs []error
		n := 0
		for _, err := range All(context.Background(), Page{}, f) {
			n++
			if err != nil {
				errs = append(errs, err)
			}
			if n > 10 {
				t.Fatalf("%s: All did not stop", name)
			}
		}
		if len(errs) != 1 || !errors.Is(errs[0], ErrNoProgress) {
			t.Errorf("%s: errors %v, want one ErrNoProgress", name, errs)
		}
	}
}

func TestAllPropagatesErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := sliceFetcher([]int{1, 2, 3, 4}, Limits{Default: 1, Max: 1})
	var got []int
	var gotErr error
	for v, err := range All(ctx, Page{}, f) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, v)
		cancel()
	}
	if !errors.Is(gotErr, context.Canceled) || !slices.Equal(got, []int{1}) {
		t.Errorf("after cancel: items %v, error %v; want [1], context.Canceled", got, gotErr)
	}
	bad := func(context.Context, Page) (Paged[int], error) { return Paged[int]{}, ErrInvalidPage }
	for _, err := range All(context.Background(), Page{}, bad) {
		if !errors.Is(err, ErrInvalidPage) {
			t.Errorf("fetch error: got %v, want ErrInvalidPage", err)
		}
	}
}

func TestTotalKindJSON(t *testing.T) {
	for k := TotalExact; k <= TotalUnknown; k++ {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back TotalKind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("round trip of %v: got %v, %v", k, back, err)
		}
	}
	var k TotalKind
	if err := k.UnmarshalText([]byte("some")); err == nil {
		t.Error("UnmarshalText accepted an unknown kind")
	}
}

func FuzzNormalize(f *testing.F) {
	f.Add(0, 0, 100, 1000)
	f.Add(-1, 5, 2, 10)
	f.Add(1001, MaxOffset, 100, 1000)
	f.Fuzz(func(t *testing.T, limit, offset, def, maxLimit int) {
		l := Limits{Default: def, Max: maxLimit}
		r, err := l.Normalize(Page{Limit: limit, Offset: offset})
		if err != nil {
			if !errors.Is(err, ErrInvalidPage) {
				t.Fatalf("error %v does not wrap ErrInvalidPage", err)
			}
			return
		}
		if r.Limit < 1 || r.Limit > l.Max || r.Offset < 0 || r.Offset > MaxOffset-r.Limit {
			t.Fatalf("Normalize(%d, %d) with %+v = %+v: out of range", limit, offset, l, r)
		}
		if r.Clamped != (limit > l.Max) {
			t.Fatalf("Clamped = %v for limit %d, max %d", r.Clamped, limit, l.Max)
		}
	})
}

func FuzzPageNumber(f *testing.F) {
	f.Add(0, 0, 100, 1000, 350)
	f.Add(3, 7, 5, 10, 22)
	f.Add(MaxOffset, 2, 5, 10, 1)
	f.Fuzz(func(t *testing.T, page, size, def, maxLimit, total int) {
		l := Limits{Default: def, Max: maxLimit}
		if total < 0 || total > 5000 {
			total %= 5000
			if total < 0 {
				total = -total
			}
		}
		p, err := l.FromPageNumber(page, size)
		if err != nil {
			if !errors.Is(err, ErrInvalidPage) {
				t.Fatalf("error %v does not wrap ErrInvalidPage", err)
			}
			return
		}
		r, err := l.Normalize(p)
		if err != nil {
			if !errors.Is(err, ErrInvalidPage) {
				t.Fatalf("error %v does not wrap ErrInvalidPage", err)
			}
			return
		}
		if r.Offset != page*r.Limit {
			t.Fatalf("page %d size %d: offset %d, want %d", page, size, r.Offset, page*r.Limit)
		}
		// Walking page numbers 0.. covers [0, total) once.
		if r.Limit >= 1 && total/r.Limit < 1000 {
			seen := 0
			for n := 0; ; n++ {
				p, err := l.FromPageNumber(n, size)
				if err != nil {
					t.Fatal(err)
				}
				rr, _ := l.Normalize(p)
				if rr.Offset != seen {
					t.Fatalf("page %d starts at %d, want %d", n, rr.Offset, seen)
				}
				got := min(rr.Limit, max(total-rr.Offset, 0))
				info := pageInfo(rr, total, got)
				seen += got
				if !info.HasMore {
					break
				}
				if info.NextOffset != seen || !info.Aligned() {
					t.Fatalf("page %d: next offset %d, want %d on a boundary", n, info.NextOffset, seen)
				}
			}
			if seen != total {
				t.Fatalf("walk saw %d of %d", seen, total)
			}
		}
	})
}

// TestDefaultCountCap: a capped count without a cap counts ten pages' worth
// of the limit as applied (after the default and the clamp), at least
// minDefaultCountCap; a cap the caller gives is kept; other strategies have
// no cap.
func TestDefaultCountCap(t *testing.T) {
	l := Limits{Default: 50, Max: 200}
	tests := []struct {
		name string
		p    Page
		want int
	}{
		{"default limit", Page{Count: CountCapped}, 500},
		{"pages of 100", Page{Limit: 100, Count: CountCapped}, 1_000},
		{"pages of 10 floor at the minimum", Page{Limit: 10, Count: CountCapped}, minDefaultCountCap},
		{"pages of 1", Page{Limit: 1, Count: CountCapped}, minDefaultCountCap},
		{"a clamped limit counts the clamp", Page{Limit: 5_000, Count: CountCapped}, 2_000},
		{"a given cap is kept", Page{Limit: 10, Count: CountCapped, CountCap: 7}, 7},
		{"the default is capped", Page{Limit: 10}, minDefaultCountCap},
		{"exact has no cap", Page{Limit: 10, Count: CountExact, CountCap: 7}, 0},
		{"none has no cap", Page{Limit: 10, Count: CountNone}, 0},
	}
	for _, tc := range tests {
		r, err := l.Normalize(tc.p)
		if err != nil {
			t.Fatalf("%s: Normalize(%+v): %v", tc.name, tc.p, err)
		}
		if r.CountCap != tc.want {
			t.Errorf("%s: Normalize(%+v).CountCap = %d, want %d", tc.name, tc.p, r.CountCap, tc.want)
		}
	}
	if got := DefaultCountCap(MaxCountCap); got != MaxCountCap {
		t.Errorf("DefaultCountCap(%d) = %d, want the maximum %d", MaxCountCap, got, MaxCountCap)
	}
}
