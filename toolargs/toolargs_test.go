package toolargs_test

import (
	"context"
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
		args  string
		want  bounded.Page
		isErr error
	}{
		{"none", ``, bounded.Page{}, nil},
		{"size and offset", `{"pageSize":5,"offset":3}`, bounded.Page{Limit: 5, Offset: 3}, nil},
		{"page number", `{"page":2,"pageSize":5}`, bounded.Page{Limit: 5, Offset: 10}, nil},
		{"page of the default size", `{"page":2}`, bounded.Page{Offset: 20}, nil},
		{"cursor", `{"cursor":"c","pageSize":5}`, bounded.Page{Limit: 5, Cursor: "c"}, nil},
		{"cursor and offset", `{"cursor":"c","offset":1}`, bounded.Page{}, bounded.ErrInvalidCursor},
		{"page and offset", `{"page":1,"offset":1}`, bounded.Page{}, bounded.ErrInvalidPage},
		{"page too deep", `{"page":9007199254740991}`, bounded.Page{}, bounded.ErrInvalidPage},
	} {
		p, err := toolargs.NewParser(toolargs.Decl{Tool: "t", Limits: l, Paging: bounded.ByPage})
		if err != nil {
			t.Fatal(err)
		}
		var got bounded.Page
		call, err := p.Parse(context.Background(), []byte(c.args))
		if err == nil {
			got = call.Page
		}
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
		args          string
		chars, tokens int
	}{
		{"none", ``, b.LimitChars(), b.LimitTokens()},
		{"over the limits", `{"budget":50000,"budgetTokens":50000}`, b.LimitChars(), b.LimitTokens()},
		{"budget", `{"budget":5000}`, 5000, 0},
		{"budgetTokens, less the estimate's error", `{"budgetTokens":1000}`, b.LimitChars(), int(1000 * (1 - bounded.MaxEstimateError))},
	} {
		p, err := toolargs.NewParser(toolargs.Decl{Tool: "t", Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		call, err := p.Parse(context.Background(), []byte(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := call.Budget
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
