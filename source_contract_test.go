package bounded

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/driver"
)

// TestRespondUnusableKeys: where no cursor can be read at an item (a key
// the source reports nil for, or a cursor over driver.MaxCursorBytes),
// the page goes on by offset; a walk by Next, by cursor and under every
// budget, returns every item once. No cursor over the limit is issued.
func TestRespondUnusableKeys(t *testing.T) {
	type scored struct {
		ID    int64   `json:"id"`
		Score float64 `json:"-"`
		Body  string  `json:"body"`
	}
	all := make([]scored, 30)
	for i := range all {
		all[i] = scored{ID: int64(i), Score: float64(i), Body: strings.Repeat("b", i%5)}
	}
	nan := slices.Clone(all)
	for _, i := range []int{3, 4, 9, 29} {
		nan[i].Score = math.NaN()
	}
	huge := strings.Repeat("k", 70<<10)
	for _, tc := range []struct {
		name string
		src  Source[scored]
	}{
		{"NaN keys", FromSlice(nan).WithKeys(func(s scored) []any { return []any{s.Score, s.ID} })},
		{"70 KB keys", FromSlice(all).WithKeys(func(s scored) []any {
			k := fmt.Sprintf("%03d", s.ID)
			if s.ID%4 == 1 {
				k += huge
			}
			return []any{k, s.ID}
		})},
	} {
		for _, limit := range []int{1, 2, 3, 7} {
			for _, maxChars := range []int{0, 700} {
				call := Call{Tool: "scores", Paging: ByCursor}
				o := Options[scored]{Limits: Limits{Default: limit, Max: 10}, Budget: Budget{MaxChars: maxChars, Margin: 1, Logger: quiet}}
				if maxChars == 0 {
					o.Budget = Budget{MaxChars: 400_000, Logger: quiet}
				}
				var seen []int64
				p := Page{}
				for calls := 0; ; calls++ {
					if calls > 100 {
						t.Fatalf("%s, limit %d: no end", tc.name, limit)
					}
					out, err := Respond(context.Background(), tc.src, call, p, o)
					if err != nil {
						t.Fatalf("%s, limit %d, %+v: %v", tc.name, limit, p, err)
					}
					if len(out.Page.NextCursor) > driver.MaxCursorBytes || len(out.Page.PrevCursor) > driver.MaxCursorBytes {
						t.Fatalf("%s: a cursor of %d bytes, over the limit", tc.name, max(len(out.Page.NextCursor), len(out.Page.PrevCursor)))
					}
					env := decodeEnvelope[scored](t, out.JSON)
					for _, r := range env.Results {
						seen = append(seen, r.ID)
					}
					if out.Next == nil {
						break
					}
					p = nextPage(Page{Limit: limit}, out.Next)
				}
				want := make([]int64, len(all))
				for i := range want {
					want[i] = int64(i)
				}
				if !slices.Equal(seen, want) {
					t.Errorf("%s, limit %d, %d chars: walked %v", tc.name, limit, maxChars, seen)
				}
			}
		}
	}
}

// TestFetchPageKeyType: keys of a type no cursor holds are the source's
// error, naming the type, even for a page read by offset.
func TestFetchPageKeyType(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	src := FromSlice([]time.Time{at, at.Add(time.Hour)}).WithKeys(func(t time.Time) []any { return []any{t} })
	_, err := FetchPage(context.Background(), src, "s", Page{Limit: 1}, Limits{Default: 1, Max: 1}, driver.Codec{})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "time.Time") {
		t.Errorf("time keys: %v; want ErrInvalidSource naming time.Time", err)
	}
}

// TestFetchPageLyingSource: what a source returns against its own exact
// total is ErrInvalidSource, not a page marked exact.
func TestFetchPageLyingSource(t *testing.T) {
	items := rows(6)
	for _, tc := range []struct {
		name string
		f    func(context.Context, driver.Request) ([]row, int, error)
		p    Page
	}{
		{"6 items under a total of 5", func(_ context.Context, r driver.Request) ([]row, int, error) { return items, 5, nil }, Page{Limit: 10}},
		{"empty page inside a total of 1,000", func(_ context.Context, r driver.Request) ([]row, int, error) { return nil, 1000, nil }, Page{Limit: 10, Offset: 10}},
		{"capped count under its cap", func(_ context.Context, r driver.Request) ([]row, int, error) { return items, 3, nil }, Page{Limit: 10, Count: CountCapped, CountCap: 50}},
	} {
		_, err := FetchPage(context.Background(), FromFunc(tc.f), "s", tc.p, Limits{Default: 10, Max: 10}, driver.Codec{})
		if !errors.Is(err, ErrInvalidSource) {
			t.Errorf("%s: %v; want ErrInvalidSource", tc.name, err)
		}
	}
	lying := lyingMore{items: items}
	if _, err := FetchPage(context.Background(), lying, "s", Page{Limit: 3}, Limits{Default: 3, Max: 10}, driver.Codec{}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("More false with items left under an exact total: %v; want ErrInvalidSource", err)
	}
	if _, err := FetchPage(context.Background(), lyingMore{items: items, n: 100}, "s", Page{Limit: 3}, Limits{Default: 3, Max: 10}, driver.Codec{}); err != nil {
		t.Errorf("a source telling the truth: %v", err)
	}
}

// lyingMore returns the page asked for and its exact total, but More
// false unless n says the total is n.
type lyingMore struct {
	items []row
	n     int
}

func (s lyingMore) Fetch(_ context.Context, r driver.Request) (driver.Rows[row], error) {
	end := min(len(s.items), r.Offset+r.Limit)
	it := s.items[min(r.Offset, end):end]
	if s.n > 0 {
		return driver.Rows[row]{Items: it, Count: len(s.items), More: end < len(s.items)}, nil
	}
	return driver.Rows[row]{Items: it, Count: len(s.items)}, nil
}
