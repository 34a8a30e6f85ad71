package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// TestBudgetTokensArgument checks the per-call token budget: lowered as
// asked, clamped to the server's limit, reported in truncation.limitTokens,
// and held by the response (counted as the server's budget counts tokens).
func TestBudgetTokensArgument(t *testing.T) {
	s := fixtures(t)
	claude := bounded.ClaudeCode()
	claude.Logger = quiet.Logger
	for _, c := range []struct {
		name   string
		server bounded.Budget
	}{
		{"default budget", quiet},
		{"Claude Code", claude},
	} {
		set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: c.server})
		if err != nil {
			t.Fatal(err)
		}
		maxTokens, maxChars := c.server.LimitTokens(), c.server.LimitChars()
		// The Estimator counts: a call's budgetTokens is lowered by its
		// stated error.
		est := func(t int) int { return int(float64(t) * (1 - bounded.MaxEstimateError)) }
		for _, tc := range []struct {
			args         string
			tokens       int // the limit applied
			chars        int
			wantTruncate bool
		}{
			{`{"query":"entity","budgetTokens":1000000000}`, maxTokens, maxChars, false},
			{`{"query":"entity","budgetTokens":8000}`, est(8000), maxChars, false},
			{`{"query":"entity","budgetTokens":800}`, est(800), maxChars, true},
			{`{"query":"entity","budgetTokens":350}`, est(350), maxChars, true},
			{`{"query":"entity","budget":3000,"budgetTokens":2000}`, est(2000), 3000, true},
			{`{"query":"entity","budget":1000000,"budgetTokens":2000}`, est(2000), maxChars, true},
		} {
			name := fmt.Sprintf("%s: search_knowledge(%s)", c.name, tc.args)
			env, out := call(t, set, "search_knowledge", tc.args)
			tr := env.Truncation
			if tr.LimitTokens != tc.tokens || tr.LimitChars != tc.chars {
				t.Errorf("%s: limits %d tokens, %d characters; want %d, %d", name, tr.LimitTokens, tr.LimitChars, tc.tokens, tc.chars)
			}
			if got := (bounded.Estimator{}).CountTokens(string(out)); got != tr.EstimatedTokens || got > tc.tokens {
				t.Errorf("%s: the Estimator counts %d tokens, the response says %d, limit %d", name, got, tr.EstimatedTokens, tc.tokens)
			}
			if n := utf8.RuneCount(out); n > tc.chars {
				t.Errorf("%s: %d characters, over %d", name, n, tc.chars)
			}
			if env.Truncated != tc.wantTruncate {
				t.Errorf("%s: truncated %v, want %v (%d tokens)", name, env.Truncated, tc.wantTruncate, tr.EstimatedTokens)
			}
			if tc.wantTruncate && tr.Reason != bounded.ReasonTokenLimit && tc.chars == maxChars {
				t.Errorf("%s: reason %q, want %q", name, tr.Reason, bounded.ReasonTokenLimit)
			}
			// The next call keeps the token budget.
			if env.Next != nil && strings.Contains(tc.args, "budgetTokens") && !strings.Contains(string(env.Next), `"budgetTokens"`) {
				t.Errorf("%s: next %s drops budgetTokens", name, env.Next)
			}
		}
		_, err = set.Call(context.Background(), "search_knowledge", json.RawMessage(`{"query":"entity","budgetTokens":100}`))
		var ae *tools.ArgumentError
		if !errors.Is(err, bounded.ErrInvalidBudget) || !errors.As(err, &ae) || ae.Argument != "budgetTokens" {
			t.Errorf("%s: budgetTokens under the minimum: %v, want an ArgumentError for budgetTokens matching ErrInvalidBudget", c.name, err)
		}
	}
}

// TestBudgetTokensSchema checks that every tool declares budgetTokens with
// its minimum, maximum (the server's token limit) and default, and the
// set's instructions say so.
func TestBudgetTokensSchema(t *testing.T) {
	set := newSet(t, tools.Balanced)
	limit := quiet.LimitTokens()
	for _, tl := range set.Tools() {
		var s struct {
			Properties map[string]map[string]any
		}
		if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		p := s.Properties["budgetTokens"]
		if p == nil || p["type"] != "integer" || p["minimum"] != float64(tools.MinBudgetTokens) || p["maximum"] != float64(limit) {
			t.Errorf("%s: budgetTokens %v; want an integer from %d to %d", tl.Name, p, tools.MinBudgetTokens, limit)
		}
	}
	if ins := set.Instructions(); !strings.Contains(ins, bounded.FormatCount(limit)+" tokens; the budget and budgetTokens arguments lower that") {
		t.Errorf("the instructions do not state the token limit: %s", ins)
	}
}

// TestBudgetTokensWalk follows next through paged tools under small token
// budgets: every response holds its token budget, and every result comes
// exactly once, as with a character budget.
func TestBudgetTokensWalk(t *testing.T) {
	set := newSet(t, tools.Balanced)
	for _, c := range []struct {
		tool, args string
	}{
		{"list_notes", `{"limit":200}`},
		{"search_knowledge", `{"query":"entity","pageSize":50}`},
		{"get_response_history", `{"endpointId":"ep1","limit":10}`},
		{"search_code", `{"query":"handler parseToken validate","limit":50}`},
		{"get_backlinks", `{"id":"Home","limit":100}`},
	} {
		whole, _ := walk(t, set, c.tool, c.args, 0)
		for _, tokens := range []int{400, 900, 2500} {
			args := c.args[:len(c.args)-1] + fmt.Sprintf(`,"budgetTokens":%d}`, tokens)
			got, cuts := walkTokens(t, set, c.tool, args, tokens)
			if !slices.Equal(got, whole) {
				t.Errorf("%s(%s): walk gave %d results, want the %d of one read\ngot  %q\nwant %q", c.tool, args, len(got), len(whole), got, whole)
			}
			if tokens == 400 && cuts == 0 {
				t.Errorf("%s(%s): no response was cut", c.tool, args)
			}
		}
	}
}

// walkTokens is walk, checking each response against a token budget.
func walkTokens(t *testing.T, set *tools.Set, tool, args string, tokens int) (all []string, cuts int) {
	t.Helper()
	for calls := 0; ; calls++ {
		if calls > 500 {
			t.Fatalf("%s: no end after 500 calls", tool)
		}
		env, out := call(t, set, tool, args)
		if n := (bounded.Estimator{}).CountTokens(string(out)); n > tokens || env.Truncation.LimitTokens > tokens || n > env.Truncation.LimitTokens {
			t.Fatalf("%s(%s): %d tokens, limit %d reported, want at most %d", tool, args, n, env.Truncation.LimitTokens, tokens)
		}
		all = append(all, keys(t, env)...)
		if env.Truncated {
			cuts++
		}
		if env.Next == nil {
			return all, cuts
		}
		args = nextArgs(t, env, args)
	}
}

// TestBudgetTokensLineWalk reads long notes window by window under token
// budgets: the note's text is clipped to the tokens left, never blindly by
// the budget's last resort, and every line comes exactly once.
func TestBudgetTokensLineWalk(t *testing.T) {
	set := newSet(t, tools.Balanced)
	store := fixtures(t)
	for _, c := range []struct {
		id     string
		tokens int
	}{
		{"Log", 1500},
		{"projects/alpha/design", 500},
		{"projects", 700},
	} {
		name := fmt.Sprintf("%s budgetTokens %d", c.id, c.tokens)
		var whole strings.Builder
		for w := (bounded.Window{MaxLines: bounded.MaxWindowLines}); ; {
			part, err := store.GetNote(context.Background(), c.id, w)
			if err != nil {
				t.Fatal(err)
			}
			whole.WriteString(part.Content)
			if w.Offset = part.Window.NextOffset; w.Offset == 0 {
				break
			}
		}
		var text strings.Builder
		args := fmt.Sprintf(`{"id":%q,"maxLines":5000,"budgetTokens":%d}`, c.id, c.tokens)
		for calls := 0; ; calls++ {
			if calls > 500 {
				t.Fatalf("%s: no end after 500 calls", name)
			}
			env, out := call(t, set, "get_note", args)
			if n := (bounded.Estimator{}).CountTokens(string(out)); n > c.tokens {
				t.Fatalf("%s: %s: %d tokens, over the budget", name, args, n)
			}
			if env.Truncation.Reason == bounded.ReasonSingleResultTooLarge {
				t.Fatalf("%s: %s: the budget clipped the note blindly: %s", name, args, out)
			}
			var n struct {
				Content     string
				ContentClip *bounded.ClipInfo
				NextLines   json.RawMessage
			}
			if err := json.Unmarshal(env.Results[0], &n); err != nil {
				t.Fatal(err)
			}
			got := n.Content
			if n.ContentClip != nil {
				// A clipped line goes on at charOffset in the next call.
				got = got[:strings.LastIndex(got, "…[truncated ")]
			}
			text.WriteString(got)
			if n.NextLines != nil {
				t.Fatalf("%s: %s: nextLines in the note, want the envelope's next", name, args)
			}
			if env.Next == nil {
				break
			}
			if !strings.Contains(string(env.Next), fmt.Sprintf(`"budgetTokens":%d`, c.tokens)) {
				t.Fatalf("%s: next %s drops budgetTokens", name, env.Next)
			}
			args = string(env.Next)
		}
		if text.String() != whole.String() {
			t.Errorf("%s: reading window by window gave %d bytes, want the note's %d", name, text.Len(), whole.Len())
		}
	}
}

// runeTokenizer counts a token a rune: an exact counter, for the tests.
type runeTokenizer struct{}

func (runeTokenizer) Count(_ context.Context, s string) (int, error) {
	return utf8.RuneCountInString(s), nil
}

// TestBudgetTokensExact checks that a server counting tokens exactly
// applies a call's budgetTokens as given, with no room for an estimate's
// error.
func TestBudgetTokensExact(t *testing.T) {
	s := fixtures(t)
	b := bounded.Budget{MaxChars: 100_000, MaxTokens: 20_000, Tokenizer: runeTokenizer{}, Logger: quiet.Logger}
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	env, out := call(t, set, "search_knowledge", `{"query":"entity","budgetTokens":3000}`)
	if env.Truncation.LimitTokens != 3000 || utf8.RuneCount(out) > 3000 || !env.Truncated {
		t.Errorf("limitTokens %d, %d tokens, truncated %v; want 3,000 exactly, held", env.Truncation.LimitTokens, utf8.RuneCount(out), env.Truncated)
	}
	if !strings.Contains(set.Instructions(), "Tokens are counted exactly.") {
		t.Errorf("the instructions do not say tokens are counted exactly: %s", set.Instructions())
	}
}
