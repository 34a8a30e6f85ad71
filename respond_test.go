package bounded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/driver"
)

type row struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
}

func rows(n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{ID: int64(i), Body: strings.Repeat("é", i%17)}
	}
	return out
}

// walkRespond follows Fitted.Next from the first page to the last and
// returns the ids seen.
func walkRespond(t *testing.T, src Source[row], call Call, start Page, o Options[row]) []int64 {
	t.Helper()
	var seen []int64
	p := start
	for range 1000 {
		out, err := Respond(context.Background(), src, call, p, o)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		env := decodeEnvelope[row](t, out.JSON)
		for _, r := range env.Results {
			seen = append(seen, r.ID)
		}
		if out.Next == nil {
			return seen
		}
		p = nextPage(start, out.Next)
	}
	t.Fatal("walk did not end")
	return nil
}

// nextPage returns start at the offset, cursor and limit of next.
func nextPage(start Page, next Args) Page {
	p := start
	p.Offset, p.Cursor = 0, ""
	for _, a := range next {
		switch a.Name {
		case "offset":
			p.Offset = a.Value.(int)
		case "cursor":
			p.Cursor = a.Value.(string)
		case "limit":
			p.Limit = a.Value.(int)
		}
	}
	return p
}

func TestRespondWalks(t *testing.T) {
	all := rows(40)
	want := rowIDs(all)
	keyed := FromSlice(all).WithKeys(func(r row) []any { return []any{r.ID} })
	for _, tc := range []struct {
		name   string
		src    Source[row]
		paging Paging
	}{
		{"slice by offset", FromSlice(all), ByOffset},
		{"slice by cursor", keyed, ByCursor},
		{"func", FromFunc(func(_ context.Context, r driver.Request) ([]row, int, error) {
			return all[min(r.Offset, len(all)):min(r.Offset+r.Limit, len(all))], len(all), nil
		}), ByOffset},
	} {
		for _, limit := range []int{1, 3, 7, 0} {
			for _, budget := range []Budget{{}, {MaxChars: 800, Margin: 1}} {
				for _, count := range []CountMode{CountExact, CountCapped, CountNone} {
					name := fmt.Sprintf("%s/limit %d/budget %d/count %v", tc.name, limit, budget.MaxChars, count)
					got := walkRespond(t, tc.src, Call{Tool: "rows", Paging: tc.paging}, Page{Limit: limit, Count: count}, Options[row]{Limits: Limits{Default: 10, Max: 20}, Budget: budget})
					if !slices.Equal(got, want) {
						t.Errorf("%s: walked %v, want %v", name, got, want)
					}
				}
			}
		}
	}
}

// TestRespondDefaultPaging: a call whose Paging is zero continues by
// cursor when the source has keys, by offset when it has none; ByOffset
// and ByPage continue by their own argument. Every page's hint names the
// range it shows, by cursor too.
func TestRespondDefaultPaging(t *testing.T) {
	all := rows(25)
	keyed := FromSlice(all).WithKeys(func(r row) []any { return []any{r.ID} })
	offsetOnly := FromFunc(func(_ context.Context, r driver.Request) ([]row, int, error) {
		return all[min(r.Offset, len(all)):min(r.Offset+r.Limit, len(all))], len(all), nil
	})
	for _, tc := range []struct {
		name   string
		src    Source[row]
		paging Paging
		by     string // the argument every next call continues by
	}{
		{"keys, zero Paging", keyed, 0, "cursor"},
		{"keys, ByOffset", keyed, ByOffset, "offset"},
		{"keys, ByPage", keyed, ByPage, "page"},
		{"slice without keys, zero Paging", FromSlice(all), 0, "offset"},
		{"func, zero Paging", offsetOnly, 0, "offset"},
	} {
		call := Call{Tool: "rows", Paging: tc.paging, DefaultLimit: 10}
		o := Options[row]{Limits: Limits{Default: 10, Max: 20}}
		var seen []int64
		p := Page{}
		for i := 0; ; i++ {
			out, err := Respond(context.Background(), tc.src, call, p, o)
			if err != nil {
				t.Fatalf("%s: page %d: %v", tc.name, i, err)
			}
			for _, r := range decodeEnvelope[row](t, out.JSON).Results {
				seen = append(seen, r.ID)
			}
			if want := fmt.Sprintf("showing %d-%d", 10*i+1, min(10*i+10, len(all))); !strings.Contains(out.Hint, want) {
				t.Errorf("%s: page %d: hint %q, want it to say %q", tc.name, i, out.Hint, want)
			}
			if out.Next == nil {
				break
			}
			if _, ok := out.Next.Get(tc.by); !ok || len(out.Next) != 1 {
				t.Fatalf("%s: page %d: next %v, want %s alone", tc.name, i, out.Next, tc.by)
			}
			if !strings.Contains(out.Hint, "("+tc.by+"=") {
				t.Errorf("%s: page %d: hint %q, want the next call by %s", tc.name, i, out.Hint, tc.by)
			}
			if v, ok := out.Next.Get("page"); ok {
				p = Page{Offset: v.(int) * 10}
			} else {
				p = nextPage(Page{}, out.Next)
			}
		}
		if len(seen) != len(all) || slices.Compare(seen, rowIDs(all)) != 0 {
			t.Errorf("%s: walked %v, want every row once", tc.name, seen)
		}
	}
}

// rowIDs returns the ids of rs, in order.
func rowIDs(rs []row) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

func TestRespondCursorScope(t *testing.T) {
	src := FromSlice(rows(10)).WithKeys(func(r row) []any { return []any{r.ID} })
	o := Options[row]{Limits: Limits{Default: 3, Max: 5}}
	call := Call{Tool: "rows", Args: Args{{Name: "q", Value: "a"}}}
	out, err := Respond(context.Background(), src, call, Page{}, o)
	if err != nil {
		t.Fatal(err)
	}
	cur := out.Page.NextCursor
	if cur == "" {
		t.Fatal("no cursor")
	}
	for name, c := range map[string]Call{
		"other args": {Tool: "rows", Args: Args{{Name: "q", Value: "b"}}},
		"other tool": {Tool: "other", Args: call.Args},
	} {
		if _, err := Respond(context.Background(), src, c, Page{Cursor: cur}, o); !errors.Is(err, driver.ErrCursorForeign) {
			t.Errorf("%s: err %v, want driver.ErrCursorForeign", name, err)
		}
	}
	if _, err := Respond(context.Background(), FromSlice(rows(10)), call, Page{Cursor: cur}, o); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("keyless source: err %v, want ErrInvalidCursor", err)
	}
	signed := o
	signed.Cursors.Key = []byte("k")
	if _, err := Respond(context.Background(), src, call, Page{Cursor: cur}, signed); !errors.Is(err, driver.ErrCursorTampered) {
		t.Errorf("unsigned cursor to a signing source: err %v, want driver.ErrCursorTampered", err)
	}
	for _, p := range []Page{{Limit: -1}, {Offset: -1}, {Cursor: "!"}} {
		if _, err := Respond(context.Background(), src, call, p, o); !errors.Is(err, ErrInvalidPage) && !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("%+v: err %v, want a typed error", p, err)
		}
	}
}

// TestRespondBackward: a prevCursor reads the page before, in order.
func TestRespondBackward(t *testing.T) {
	src := FromSlice(rows(10)).WithKeys(func(r row) []any { return []any{r.ID} })
	o := Options[row]{Limits: Limits{Default: 3, Max: 5}}
	call := Call{Tool: "rows"}
	out, err := Respond(context.Background(), src, call, Page{Offset: 6}, o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Respond(context.Background(), src, call, Page{Cursor: out.Page.PrevCursor}, o)
	if err != nil {
		t.Fatal(err)
	}
	env := decodeEnvelope[row](t, back.JSON)
	var got []int64
	for _, r := range env.Results {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, []int64{3, 4, 5}) || back.Page.Offset != 3 {
		t.Errorf("backward page: %v at offset %d, want [3 4 5] at 3", got, back.Page.Offset)
	}
}

// TestRespondClipsContent: the content policy clips each item when the
// page has enough results.
func TestRespondClipsContent(t *testing.T) {
	all := make([]row, 12)
	for i := range all {
		all[i] = row{ID: int64(i), Body: strings.Repeat("a", 1000)}
	}
	o := Options[row]{Limits: Limits{Default: 12, Max: 12}, Content: DefaultContentPolicy,
		Clip: func(r row, n int) row { r.Body, _ = Clip(r.Body, n); return r }}
	out, err := Respond(context.Background(), FromSlice(all), Call{Tool: "rows"}, Page{}, o)
	if err != nil {
		t.Fatal(err)
	}
	env := decodeEnvelope[row](t, out.JSON)
	if len(env.Results) != 12 {
		t.Fatalf("%d results", len(env.Results))
	}
	for _, r := range env.Results {
		if n := len([]rune(r.Body)); n > 500 {
			t.Errorf("item %d: %d runes, want at most 500", r.ID, n)
		}
	}
	if all[0].Body != strings.Repeat("a", 1000) {
		t.Error("Respond changed the source's items")
	}
}

func decodeEnvelope[T any](t *testing.T, b []byte) Envelope[T] {
	t.Helper()
	var env Envelope[T]
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return env
}

// TestRespondTooSmallAfterCursor: a page read by cursor whose first item
// does not fit goes on by that same cursor, not by an offset the cursor
// carried, which writes since may have made stale; and it has no next
// call, which would repeat this one.
func TestRespondTooSmallAfterCursor(t *testing.T) {
	all := rows(10)
	all[4].Body = strings.Repeat("x", 5000)
	src := FromSlice(all).WithKeys(func(r row) []any { return []any{r.ID} })
	call := Call{Tool: "rows", Paging: ByOffset}
	o := Options[row]{Limits: Limits{Default: 4, Max: 4}}
	first, err := Respond(context.Background(), src, call, Page{}, o)
	if err != nil {
		t.Fatal(err)
	}
	// The next page starts with item 4, whose long body may not be clipped.
	scope, _ := call.Scope()
	pg, err := FetchPage(context.Background(), src, scope, Page{Cursor: first.Page.NextCursor}, o.Limits, driver.Codec{})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Fit(Budget{MaxChars: 600, Margin: 1}, FitInput[row]{Page: pg, Call: call, Unclipped: []string{"body"}})
	if err != nil {
		t.Fatal(err)
	}
	if fd.Truncation.Reason != ReasonBudgetTooSmall {
		t.Fatalf("reason %q, want %q", fd.Truncation.Reason, ReasonBudgetTooSmall)
	}
	if fd.Page.NextCursor != first.Page.NextCursor {
		t.Errorf("nextCursor %q, want the cursor the page was read from", fd.Page.NextCursor)
	}
	// The same call again would answer the same: no next call.
	if fd.Next != nil {
		t.Errorf("next %v, want none", fd.Next)
	}
}

// TestRespondLongArgumentTokenBudget: an argument too long to repeat in
// every response moves to nextKeeps under a token limit as under a
// character limit, so that a small token budget still answers.
func TestRespondLongArgumentTokenBudget(t *testing.T) {
	src := FromSlice(rows(30)).WithKeys(func(r row) []any { return []any{r.ID} })
	for _, v := range []string{strings.Repeat("tag-", 75), strings.Repeat("日本語", 100), strings.Repeat("x", 5000)} {
		for _, paging := range []Paging{ByOffset, ByCursor} {
			call := Call{Tool: "rows", Args: Args{{"tags", []string{v}}}, Paging: paging}
			for _, b := range []Budget{{MaxTokens: 350, Margin: 1}, {MaxChars: 1000, Margin: 1}} {
				b.Logger = quiet
				fd, err := Respond(context.Background(), src, call, Page{Offset: 1}, Options[row]{Limits: Limits{Default: 10, Max: 10}, Budget: b})
				if err != nil {
					t.Fatalf("%d-byte argument, %+v: %v", len(v), b, err)
				}
				if fd.Kept == 0 || !slices.Equal(fd.NextKeeps, []string{"tags"}) {
					t.Errorf("%d-byte argument, %+v: kept %d, nextKeeps %q; want results and tags kept", len(v), b, fd.Kept, fd.NextKeeps)
				}
			}
		}
	}
}
