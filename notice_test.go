package bounded_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
)

// TestWithNotice checks that a notice in the context begins every hint,
// within the budget, at every budget and hint style, and that an empty
// one changes nothing.
func TestWithNotice(t *testing.T) {
	const say = "Import in progress: results may be incomplete."
	items := make([]string, 200)
	for i := range items {
		items[i] = strings.Repeat("Grüße aus Zürich ", 4)
	}
	call := bounded.Call{Tool: "list", Args: bounded.Args{{Name: "q", Value: "x"}}}
	for _, style := range []bounded.HintStyle{bounded.HintFull, bounded.HintTerse, bounded.HintOff} {
		for _, chars := range []int{1000, 3000, 100_000} {
			b := bounded.Budget{MaxChars: chars, Margin: 1}
			p := bounded.Paged[string]{Items: items, Page: bounded.PageInfo{Limit: 200, Returned: 200, Total: 500, TotalKind: bounded.TotalExact, HasMore: true, NextOffset: 200}}
			in := bounded.FitInput[string]{Page: p, Call: call, Hints: style}
			plain, err := bounded.FitContext(context.Background(), b, in)
			if err != nil {
				t.Fatal(err)
			}
			same, err := bounded.FitContext(bounded.WithNotice(context.Background(), ""), b, in)
			if err != nil || string(same.JSON) != string(plain.JSON) {
				t.Errorf("an empty notice changed the response: %v", err)
			}
			fd, err := bounded.FitContext(bounded.WithNotice(context.Background(), say), b, in)
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Hint       string             `json:"hint"`
				Truncation bounded.Truncation `json:"truncation"`
			}
			if err := json.Unmarshal(fd.JSON, &env); err != nil {
				t.Fatal(err)
			}
			want := say
			if plain.Hint != "" {
				want = say + " " + plain.Hint
			}
			if fd.Kept == plain.Kept && env.Hint != want || !strings.HasPrefix(env.Hint, say) || fd.Hint != env.Hint {
				t.Errorf("style %d, %d chars: hint %q, want %q", style, chars, env.Hint, want)
			}
			if n := utf8.RuneCount(fd.JSON); n > chars || n != env.Truncation.EstimatedChars {
				t.Errorf("style %d, %d chars: %d characters, estimated %d", style, chars, n, env.Truncation.EstimatedChars)
			}
			if fd.Kept > plain.Kept {
				t.Errorf("style %d, %d chars: %d results kept with the notice, %d without", style, chars, fd.Kept, plain.Kept)
			}
		}
	}
}
