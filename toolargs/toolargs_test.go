package toolargs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

func TestArgumentError(t *testing.T) {
	err := error(toolargs.Unknown("list_runs", "colour", []string{"status", "limit"}))
	const want = `list_runs: argument "colour": unknown argument; this tool takes status, limit`
	if err.Error() != want || !errors.Is(err, toolargs.ErrInvalidArguments) {
		t.Errorf("got %q, want %q matching ErrInvalidArguments", err, want)
	}
	err = &toolargs.ArgumentError{Tool: "t", Reason: "want a JSON object", Kind: bounded.ErrInvalidPage}
	if err.Error() != "t: arguments: want a JSON object" || !errors.Is(err, bounded.ErrInvalidPage) {
		t.Errorf("got %q, want the tool's name first, matching its Kind", err)
	}
}

func TestPage(t *testing.T) {
	l := bounded.Limits{Default: 10, Max: 50}
	for _, c := range []struct {
		name  string
		vals  map[string]any
		want  bounded.Page
		isErr error
	}{
		{"none", nil, bounded.Page{}, nil},
		{"size and offset", map[string]any{"pageSize": 5, "offset": 3}, bounded.Page{Limit: 5, Offset: 3}, nil},
		{"page number", map[string]any{"page": 2, "pageSize": 5}, bounded.Page{Limit: 5, Offset: 10}, nil},
		{"page of the default size", map[string]any{"page": 2}, bounded.Page{Offset: 20}, nil},
		{"cursor", map[string]any{"cursor": "c", "pageSize": 5}, bounded.Page{Limit: 5, Cursor: "c"}, nil},
		{"cursor and offset", map[string]any{"cursor": "c", "offset": 1}, bounded.Page{}, bounded.ErrInvalidCursor},
		{"page and offset", map[string]any{"page": 1, "offset": 1}, bounded.Page{}, bounded.ErrInvalidPage},
		{"page too deep", map[string]any{"page": bounded.MaxOffset}, bounded.Page{}, bounded.ErrInvalidPage},
	} {
		got, err := toolargs.PageArgsOf(c.vals, bounded.ByPage).Page("t", l)
		switch {
		case c.isErr != nil && (!errors.Is(err, c.isErr) || !errors.Is(err, toolargs.ErrInvalidArguments)):
			t.Errorf("%s: %v, want an argument error matching %v", c.name, err, c.isErr)
		case c.isErr == nil && (err != nil || got != c.want):
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestCallBudget(t *testing.T) {
	b := bounded.Budget{MaxChars: 20_000}
	for _, c := range []struct {
		name          string
		vals          map[string]any
		chars, tokens int
	}{
		{"none", nil, b.LimitChars(), b.LimitTokens()},
		{"over the limits", map[string]any{"budget": 50_000, "budgetTokens": 50_000}, b.LimitChars(), b.LimitTokens()},
		{"budget", map[string]any{"budget": 5000}, 5000, 0},
		{"budgetTokens, less the estimate's error", map[string]any{"budgetTokens": 1000}, b.LimitChars(), int(1000 * (1 - bounded.MaxEstimateError))},
	} {
		got := toolargs.CallBudget(b, c.vals)
		if got.LimitChars() != c.chars || c.tokens > 0 && got.LimitTokens() != c.tokens || got.LimitTokens() > b.LimitTokens() {
			t.Errorf("%s: %d characters, %d tokens; want %d and %d", c.name, got.LimitChars(), got.LimitTokens(), c.chars, c.tokens)
		}
	}
}

func TestWrongType(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{toolargs.WrongType(`"ten"`, "string", "integer"), `"ten" is a string, want an integer`},
		{toolargs.WrongType("null", "null", "array", "object"), "null is null, want an array or an object"},
		{toolargs.Cut(strings.Repeat("ä", 30)), strings.Repeat("ä", 20) + "..."},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
