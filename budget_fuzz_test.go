package bounded

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

type fuzzItem struct {
	ID    int      `json:"id"`
	Text  string   `json:"text"`
	Notes []string `json:"notes,omitempty"`
}

// fuzzItemDeclined is fuzzItem with a map field, always empty and omitted:
// the same JSON from a type the compiled encoder declines, so that Fit
// encodes it with encoding/json, in batches.
type fuzzItemDeclined struct {
	ID    int            `json:"id"`
	Text  string         `json:"text"`
	Notes []string       `json:"notes,omitempty"`
	Extra map[string]int `json:"extra,omitempty"`
}

// FuzzFit fits fuzzed items (any bytes, one possibly huge) into fuzzed
// budgets and page sizes, and walks the whole set by following Fitted.Next:
// every response is valid JSON within its limits, and every item comes back
// exactly once, in order (an item too large alone comes back once,
// clipped), and Fit writes the same response whether the compiled encoder
// or encoding/json encodes the items. A budget under 1,500 characters may
// not hold the envelope and one item clipped to its minimum: Fit then
// returns an error, or a response without results that names a larger
// budget (ReasonBudgetTooSmall), and the walk ends there.
//
// texts holds the items' texts separated by "|"; huge, when not 0, makes
// one item about huge times longer; mode picks the paging style (bit 0), the
// hint style (mode/2%3), a token ceiling (bit 3) and a Tokenizer for it
// (bit 4).
func FuzzFit(f *testing.F) {
	f.Add("alpha|beta|gamma", "auth", uint16(0), 2000, uint8(3), uint8(0))
	f.Add("日本語のテキスト|👩‍👩‍👧‍👦🇫🇷|\xff\xfe|<&>|\"\\\n\x01", "東京\x00", uint16(300), 1200, uint8(2), uint8(5))
	f.Add(strings.Repeat("x|", 40), "", uint16(5000), 20_000, uint8(7), uint8(9))
	f.Fuzz(func(t *testing.T, texts, query string, huge uint16, maxChars int, pageSize, mode uint8) {
		parts := strings.Split(texts, "|")
		if len(parts) > 64 {
			parts = parts[:64]
		}
		items := make([]fuzzItem, len(parts))
		for i, p := range parts {
			items[i] = fuzzItem{ID: i, Text: p}
			if i%3 == 1 {
				items[i].Notes = []string{p, query}
			}
		}
		if huge > 0 {
			i := int(huge) % len(items)
			unit := items[i].Text + "y"
			items[i].Text = strings.Repeat(unit, min(int(huge), 400_000/len(unit)))
		}
		if maxChars < 0 {
			maxChars = -(maxChars + 1)
		}
		maxChars = 200 + maxChars%19_801 // 200 to 20,000
		if r := []rune(query); len(r) > 20 {
			query = string(r[:20])
		}
		b := Budget{MaxChars: maxChars, Logger: quiet}
		if mode&8 != 0 {
			b.MaxTokens = maxChars / 3
			if mode&16 != 0 {
				b.Tokenizer = wordTokenizer{}
			}
		}
		call := Call{Tool: "search", Args: Args{{"query", query}}, Paging: []Paging{ByOffset, ByPage}[mode%2], DefaultLimit: 10}
		style := HintStyle(mode / 2 % 3)
		l := Limits{Default: 1 + int(pageSize%20), Max: 20}

		next := 0 // the id the next result must have
		args := call.Args
		for calls := 0; ; calls++ {
			if calls > len(items)+1 {
				t.Fatalf("%d calls for %d items: not advancing", calls, len(items))
			}
			in, fd, err := serve(items, l, call, style, b, args)
			if err != nil {
				// Only a budget too small for the envelope and one
				// minimal item may fail: with these items, queries and
				// hints, 1,500 characters always hold them.
				if errors.Is(err, ErrInvalidBudget) && (b.LimitChars() < 1500 || b.LimitTokens() < 700) {
					return
				}
				t.Fatalf("call %v, budget %+v: %v", args, b, err)
			}
			if !json.Valid(fd.JSON) {
				t.Fatalf("invalid JSON: %q", fd.JSON)
			}
			declined := make([]fuzzItemDeclined, len(in.Page.Items))
			for i, it := range in.Page.Items {
				declined[i] = fuzzItemDeclined{ID: it.ID, Text: it.Text, Notes: it.Notes}
			}
			dfd, err := Fit(b, FitInput[fuzzItemDeclined]{Page: Paged[fuzzItemDeclined]{Items: declined, Page: in.Page.Page}, Call: in.Call, Hints: in.Hints})
			if err != nil || !bytes.Equal(dfd.JSON, fd.JSON) {
				t.Fatalf("encoded by encoding/json, the response differs (%v):\n%s\nwant %s", err, dfd.JSON, fd.JSON)
			}
			runes := utf8.RuneCount(fd.JSON)
			if runes > b.LimitChars() || fd.Truncation.EstimatedChars != runes || fd.Truncation.EstimatedTokens > b.LimitTokens() {
				t.Fatalf("%d characters (reported %d, limit %d), %d tokens (limit %d)", runes, fd.Truncation.EstimatedChars, b.LimitChars(), fd.Truncation.EstimatedTokens, b.LimitTokens())
			}
			if b.Tokenizer != nil {
				if n := mustCount(t, b.Tokenizer, string(fd.JSON)); n > b.LimitTokens() {
					t.Fatalf("the tokenizer counts %d tokens, over the limit %d", n, b.LimitTokens())
				}
			}
			if tr := fd.Truncation; tr.Reason == ReasonBudgetTooSmall {
				// As for an error: only a budget these items can be too
				// small for, and the response names a larger one.
				if b.LimitChars() >= 1500 && b.LimitTokens() >= 700 {
					t.Fatalf("%s with a budget of %d characters, %d tokens", tr.Reason, b.LimitChars(), b.LimitTokens())
				}
				if fd.Kept != 0 || tr.NeededChars <= b.LimitChars() && tr.NeededTokens <= b.LimitTokens() {
					t.Fatalf("%s keeps %d results and needs %d characters, %d tokens, within the budget of %d, %d",
						tr.Reason, fd.Kept, tr.NeededChars, tr.NeededTokens, b.LimitChars(), b.LimitTokens())
				}
				return
			}
			var env struct{ Results []fuzzItem }
			if err := json.Unmarshal(fd.JSON, &env); err != nil {
				t.Fatal(err)
			}
			if len(env.Results) != fd.Kept || (len(in.Page.Items) > 0 && fd.Kept == 0) {
				t.Fatalf("%d results, kept %d of %d", len(env.Results), fd.Kept, len(in.Page.Items))
			}
			for _, r := range env.Results {
				if r.ID != next {
					t.Fatalf("result id %d, want %d: an item was skipped or repeated", r.ID, next)
				}
				next++
			}
			if fd.Next == nil {
				break
			}
			args = fd.Next
		}
		if next != len(items) {
			t.Fatalf("walk ended after %d of %d items", next, len(items))
		}
	})
}
