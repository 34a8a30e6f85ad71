package bounded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tokenizer"
)

// o200kItem is a result with a cursor key (ID) and a text.
type o200kItem struct {
	N    int    `json:"n"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

var o200k = sync.OnceValues(func() (*tokenizer.Counter, error) { return tokenizer.New(tokenizer.O200K) })

func o200kCounter(t testing.TB) *tokenizer.Counter {
	c, err := o200k()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pageOf reads the arguments of a next call into a Page.
func pageOf(t testing.TB, args bounded.Args) bounded.Page {
	var p bounded.Page
	for _, a := range args {
		switch a.Name {
		case "offset":
			p.Offset = a.Value.(int)
		case "limit":
			p.Limit = a.Value.(int)
		case "cursor":
			p.Cursor = a.Value.(string)
		case "query":
		default:
			t.Fatalf("unexpected argument %s in %v", a.Name, args)
		}
	}
	return p
}

// walkO200K walks items by Respond and Fitted.Next alone, under the exact
// o200k tokenizer: every response is valid JSON within both limits, and
// every item comes back once, in order, until the walk ends or a
// response says the budget is too small for the next item. It returns
// the number of items walked.
func walkO200K(t *testing.T, items []o200kItem, b bounded.Budget, paging bounded.Paging, start bounded.Page, limits bounded.Limits) int {
	t.Helper()
	ctx := context.Background()
	tok := o200kCounter(t)
	b.Tokenizer = tok
	src := bounded.FromSlice(items).WithKeys(func(it o200kItem) []any { return []any{it.ID} })
	call := bounded.Call{Tool: "search", Args: bounded.Args{{Name: "query", Value: "ab"}}, Paging: paging}
	p, next := start, start.Offset
	for calls := 0; ; calls++ {
		if calls > len(items)+2 {
			t.Fatalf("%d calls for %d items: not advancing", calls, len(items))
		}
		fd, err := bounded.Respond(ctx, src, call, p, bounded.Options[o200kItem]{Limits: limits, Budget: b})
		if errors.Is(err, bounded.ErrInvalidBudget) {
			return next - start.Offset
		}
		if err != nil {
			t.Fatalf("page %+v, budget %d chars %d tokens: %v", p, b.MaxChars, b.MaxTokens, err)
		}
		if !json.Valid(fd.JSON) {
			t.Fatalf("page %+v, budget %d chars %d tokens: invalid JSON: %s", p, b.MaxChars, b.MaxTokens, fd.JSON)
		}
		if n := utf8.RuneCount(fd.JSON); n > b.LimitChars() {
			t.Fatalf("%d characters, over %d", n, b.LimitChars())
		}
		if n, err := tok.Count(ctx, string(fd.JSON)); err != nil || n > b.LimitTokens() {
			t.Fatalf("%d tokens (%v), over %d: %s", n, err, b.LimitTokens(), fd.JSON)
		}
		var env struct {
			Results    []o200kItem
			Pagination struct{ Returned int }
		}
		if err := json.Unmarshal(fd.JSON, &env); err != nil {
			t.Fatal(err)
		}
		if len(env.Results) != fd.Kept || env.Pagination.Returned != fd.Kept {
			t.Fatalf("%d results, pagination.returned %d, kept %d: %s", len(env.Results), env.Pagination.Returned, fd.Kept, fd.JSON)
		}
		for _, r := range env.Results {
			if r.N != next {
				t.Fatalf("result %d, want %d: %s", r.N, next, fd.JSON)
			}
			next++
		}
		if fd.Truncation.Reason == bounded.ReasonBudgetTooSmall {
			if fd.Next != nil {
				t.Fatalf("%s names a next call, %v, that answers the same", fd.Truncation.Reason, fd.Next)
			}
			return next - start.Offset
		}
		if fd.Next == nil {
			if next != len(items) {
				t.Fatalf("walk ended after %d of %d items", next, len(items))
			}
			return next - start.Offset
		}
		p = pageOf(t, fd.Next)
	}
}

// TestFitO200KCursorPage is a page with cursors fitted under token limits
// the exact tokenizer binds at: each response is valid JSON, its
// pagination written once.
func TestFitO200KCursorPage(t *testing.T) {
	items := []o200kItem{{0, "a", "ab ab ab "}, {1, "b", "ab ab ab "}, {2, "c", "ab ab ab "}}
	for tokens := 100; tokens < 180; tokens++ {
		for _, paging := range []bounded.Paging{bounded.ByOffset, bounded.ByCursor} {
			b := bounded.Budget{MaxChars: 20_000, MaxTokens: tokens, Margin: 1}
			walkO200K(t, items, b, paging, bounded.Page{Offset: 1, Limit: 20}, bounded.Limits{Default: 20, Max: 20})
		}
	}
}

// FuzzFitO200K fits fuzzed items into fuzzed budgets under the exact o200k
// tokenizer, by offset and by cursor, and walks them by Fitted.Next:
// every response is valid JSON within its limits, and no item is skipped
// or repeated.
func FuzzFitO200K(f *testing.F) {
	f.Add("ab ab ab |ab ab ab |ab ab ab ", uint16(133), uint16(20_000), uint8(1), uint8(20), uint8(1))
	f.Add("日本語のテキスト|👩‍👩‍👧‍👦🇫🇷|\xff\xfe|<&>|\"\\\n\x01", uint16(300), uint16(1200), uint8(0), uint8(3), uint8(0))
	f.Add(strings.Repeat("word |", 30), uint16(150), uint16(700), uint8(5), uint8(7), uint8(1))
	f.Fuzz(func(t *testing.T, texts string, maxTokens, maxChars uint16, offset, limit, mode uint8) {
		parts := strings.Split(texts, "|")
		if len(parts) > 40 {
			parts = parts[:40]
		}
		items := make([]o200kItem, len(parts))
		for i, p := range parts {
			if len(p) > 300 {
				p = p[:300]
			}
			items[i] = o200kItem{N: i, ID: fmt.Sprintf("%03d", i), Text: p}
		}
		b := bounded.Budget{MaxChars: 200 + int(maxChars)%20_000, MaxTokens: 60 + int(maxTokens)%3000, Margin: 1}
		l := bounded.Limits{Default: 10, Max: 20}
		start := bounded.Page{Offset: int(offset) % (len(items) + 1), Limit: 1 + int(limit)%20}
		walkO200K(t, items, b, []bounded.Paging{bounded.ByOffset, bounded.ByCursor}[mode%2], start, l)
	})
}
