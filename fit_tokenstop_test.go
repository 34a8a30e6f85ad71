package bounded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/probe"
)

// byteTokenizer counts a token every per bytes, rounded up: a coarse
// stand-in, whose count of ASCII text at 1 a byte is its character count.
type byteTokenizer struct{ per int }

func (b byteTokenizer) Count(_ context.Context, s string) (int, error) {
	return (len(s) + b.per - 1) / b.per, nil
}

// stopItem is a result of the compiled encoder's kind.
type stopItem struct {
	N    int    `json:"n"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

// stopInput is the first page of items, of more, with a CursorAt when
// cursors is set.
func stopInput[T any](items []T, cursors bool) bounded.FitInput[T] {
	n := len(items)
	in := bounded.FitInput[T]{
		Page: bounded.Paged[T]{Items: items, Page: bounded.PageInfo{Total: n + 50, Limit: n, Returned: n, HasMore: true, NextOffset: n}},
		Call: bounded.Call{Tool: "search", Args: bounded.Args{{Name: "query", Value: "ab"}}, DefaultLimit: 20},
	}
	if cursors {
		in.Page.Page.NextCursor = "c" + strings.Repeat("x", n)
		in.Page.CursorAt = func(k int) (string, error) { return "c" + strings.Repeat("x", k), nil }
	}
	return in
}

// cuts counts the pages a sweep cut by each limit, and by both.
type cuts struct{ tokens, chars, both int }

// fitBothWays fits in under b, stopping encoding at the token limit and
// encoding up to the ceiling: the responses must be the same. It reports
// which limit cut the page: a limit alone (the other lifted) that keeps as
// many items cuts it.
func fitBothWays[T any](t *testing.T, name string, b bounded.Budget, in bounded.FitInput[T], c *cuts) {
	t.Helper()
	got, err := bounded.Fit(b, in)
	restore := bounded.EncodeToCeiling()
	want, wantErr := bounded.Fit(b, in)
	restore()
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s, %d chars, %d tokens: stopping at the token limit gave (%v)\n%s\nkept %d, %+v, hint %q\nencoding to the ceiling (%v)\n%s\nkept %d, %+v, hint %q",
			name, b.MaxChars, b.MaxTokens, err, got.JSON, got.Kept, got.Truncation, got.Hint, wantErr, want.JSON, want.Kept, want.Truncation, want.Hint)
	}
	reason := got.Truncation.Reason
	if err != nil || reason != bounded.ReasonTokenLimit && reason != bounded.ReasonCharacterLimit {
		return
	}
	// Each limit alone: the other lifted to the largest number of as many
	// digits, which the envelope writes in as many characters.
	byTokens, byChars := b, b
	byTokens.MaxChars = lifted(b.MaxChars)
	byChars.MaxTokens = lifted(b.MaxTokens)
	tk, err1 := bounded.Fit(byTokens, in)
	ch, err2 := bounded.Fit(byChars, in)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s, %d chars, %d tokens, a limit lifted: %v, %v", name, b.MaxChars, b.MaxTokens, err1, err2)
	}
	tokensCut := tk.Kept == got.Kept && tk.Truncation.Reason == bounded.ReasonTokenLimit
	charsCut := ch.Kept == got.Kept && ch.Truncation.Reason == bounded.ReasonCharacterLimit
	switch {
	case tokensCut && charsCut:
		c.both++
	case tokensCut:
		c.tokens++
	case charsCut:
		c.chars++
	}
	// The character limit is named when it cuts the page there alone, and
	// only then (where lifting the token limit leaves it out).
	if ch.Truncation.Reason != bounded.ReasonTokenLimit && charsCut != (reason == bounded.ReasonCharacterLimit) {
		t.Errorf("%s, %d chars, %d tokens: %d kept for %s, but the character limit alone keeps %d (%q)", name, b.MaxChars, b.MaxTokens, got.Kept, reason, ch.Kept, ch.Truncation.Reason)
	}
}

// lifted is the largest number of as many digits as n.
func lifted(n int) int {
	m := 9
	for ; m < n; m = 10*m + 9 {
	}
	return m
}

// TestFitTokenizerStopsAtTokens: with a Tokenizer, encoding stops one item
// past the first that takes the items over the token limit, and the
// response is the one encoding up to the ceiling gives, byte for byte, on
// pages cut by tokens, by characters and by both at the same item: with
// items of the compiled encoder, of encoding/json, and of a byte kind
// (encoded one at a time), with and without CursorAt.
func TestFitTokenizerStopsAtTokens(t *testing.T) {
	texts := []string{"ab ab ab ", "日本語のテキスト", "word word word word word word", "<&>\"\\\n", "x", strings.Repeat("lorem ipsum dolor ", 7), "12345 678", ""}
	var structs []stopItem
	var raws []json.RawMessage
	var bytesItems []uint8
	for i := range 40 {
		it := stopItem{N: i, ID: fmt.Sprintf("%03d", i), Text: texts[(i*7)%len(texts)] + texts[i%3]}
		structs = append(structs, it)
		raw, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)
		bytesItems = append(bytesItems, uint8(i*37))
	}
	// ASCII items, counted a token a byte: their tokens are their
	// characters, so that under equal limits both cut at the same item.
	ascii := make([]stopItem, 40)
	for i := range ascii {
		ascii[i] = stopItem{N: i, ID: fmt.Sprintf("%03d", i), Text: strings.Repeat("ab ", i%7)}
	}
	short := 1
	if testing.Short() {
		short = 3
	}
	for _, tok := range []struct {
		name string
		tok  bounded.Tokenizer
		step int // of the limits swept, times 10
	}{{"o200k", o200kCounter(t), 40}, {"a token a byte", byteTokenizer{1}, 20}, {"a token per 4 bytes", byteTokenizer{4}, 20}} {
		var c cuts
		step := tok.step * short
		for tokens := 40; tokens < 1400; tokens += 3 * step {
			for chars := 200; chars < 4000; chars += 7 * step {
				for _, cursors := range []bool{false, true} {
					b := bounded.Budget{MaxChars: chars, MaxTokens: tokens, Margin: 1, Tokenizer: tok.tok}
					fitBothWays(t, tok.name+", structs", b, stopInput(structs, cursors), &c)
					fitBothWays(t, tok.name+", raw JSON", b, stopInput(raws, cursors), &c)
				}
				b := bounded.Budget{MaxChars: chars, MaxTokens: tokens, Margin: 1, Tokenizer: tok.tok}
				fitBothWays(t, tok.name+", bytes", b, stopInput(bytesItems, false), &c)
			}
		}
		if tok.tok == (byteTokenizer{1}) {
			for limit := 200; limit < 4000; limit += step {
				b := bounded.Budget{MaxChars: limit, MaxTokens: limit, Margin: 1, Tokenizer: tok.tok}
				fitBothWays(t, tok.name+", ASCII, equal limits", b, stopInput(ascii, false), &c)
				fitBothWays(t, tok.name+", ASCII, equal limits, cursors", b, stopInput(ascii, true), &c)
			}
		}
		t.Logf("%s: pages cut by tokens %d, by characters %d, by both %d", tok.name, c.tokens, c.chars, c.both)
		if c.tokens == 0 || c.chars == 0 || tok.tok == (byteTokenizer{1}) && c.both == 0 {
			t.Errorf("%s: pages cut by tokens %d, by characters %d, by both %d: a kind of cut not tried", tok.name, c.tokens, c.chars, c.both)
		}
	}

	// A thousand items, a token limit that keeps about 20: those past it
	// are not encoded.
	many := make([]stopItem, 1000)
	manyRaw := make([]json.RawMessage, 1000)
	for i := range many {
		many[i] = structs[i%len(structs)]
		manyRaw[i] = raws[i%len(raws)]
	}
	b := bounded.Budget{MaxChars: 10_000_000, MaxTokens: 600, Margin: 1, Tokenizer: o200kCounter(t)}
	for _, run := range []struct {
		name string
		fit  func() (bounded.Fitted, error)
	}{
		{"structs", func() (bounded.Fitted, error) { return bounded.Fit(b, stopInput(many, false)) }},
		{"raw JSON", func() (bounded.Fitted, error) { return bounded.Fit(b, stopInput(manyRaw, false)) }},
	} {
		probe.Start()
		fd, err := run.fit()
		_, _, encoded := probe.Stop()
		if err != nil || fd.Truncation.Reason != bounded.ReasonTokenLimit || fd.Kept < 10 || fd.Kept > 40 {
			t.Fatalf("%s: kept %d, %q, error %v; want about 20 kept, cut by tokens", run.name, fd.Kept, fd.Truncation.Reason, err)
		}
		if encoded > int64(2*fd.Kept+8) {
			t.Errorf("%s: %d of 1,000 items encoded for %d kept", run.name, encoded, fd.Kept)
		}
	}
}
