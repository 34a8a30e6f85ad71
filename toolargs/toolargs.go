// Package toolargs is the front end every bounded tool shares: one
// parser of a call's arguments, the errors of bad ones, and the
// smallest budgets a call may ask for.
//
// A [Decl] declares a tool's arguments: its own, as a JSON Schema, and
// the paging ones bounded adds. [NewParser] compiles it, and
// [Parser.Parse] turns a call's JSON arguments into a [Call]: the
// typed arguments, the page, the budget, the fields and the call that
// continues.
//
// Package mcptools serves a user's own tools with it, and package tools
// the agent tool set; neither repeats it.
package toolargs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
)

// ErrInvalidArguments is matched by every error about a call's
// arguments: not one JSON object, an unknown or repeated argument, a
// value of the wrong type or out of range, a missing required one.
var ErrInvalidArguments = errors.New("invalid arguments")

// ArgumentError is the error of a bad argument. It matches
// [ErrInvalidArguments] and, when set, Kind with errors.Is.
type ArgumentError struct {
	// Tool is the tool's name.
	Tool string
	// Argument is the argument's name; "" when the arguments as a whole
	// are at fault (not a JSON object, invalid UTF-8).
	Argument string
	// Reason says what is wrong, e.g. "-1 is below the minimum 0".
	Reason string
	// Kind is the domain sentinel the error also matches, or nil: for
	// example [bounded.ErrInvalidPage] for limit, offset, page and
	// pageSize.
	Kind error
}

// Error returns "<tool>: argument "<name>": <reason>".
func (e *ArgumentError) Error() string {
	if e.Argument == "" {
		return fmt.Sprintf("%s: arguments: %s", e.Tool, e.Reason)
	}
	return fmt.Sprintf("%s: argument %q: %s", e.Tool, e.Argument, e.Reason)
}

// Unwrap returns ErrInvalidArguments and Kind.
func (e *ArgumentError) Unwrap() []error {
	if e.Kind == nil {
		return []error{ErrInvalidArguments}
	}
	return []error{ErrInvalidArguments, e.Kind}
}

// Unknown is the error of an argument the tool does not take: it lists
// those it takes, valid.
func Unknown(tool, arg string, valid []string) *ArgumentError {
	return &ArgumentError{Tool: tool, Argument: arg, Reason: "unknown argument; this tool takes " + strings.Join(valid, ", ")}
}

// WrongType is the reason of a value of the wrong JSON type: value as
// shown, got its JSON Schema type, want those the argument takes, e.g.
// `"ten" is a string, want an integer`.
func WrongType(value, got string, want ...string) string {
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = article(w)
	}
	return fmt.Sprintf("%s is %s, want %s", value, article(got), strings.Join(names, " or "))
}

// Cut returns s, a name or value an error message repeats, cut after
// maxEcho bytes at a rune's start, with "..." when longer.
func Cut(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return strings.ToValidUTF8(s[:maxEcho], "") + "..."
}

// maxEcho is the most bytes of a name or value an error message repeats.
const maxEcho = 40

// article is the JSON Schema type typ with its article: "an integer".
func article(typ string) string {
	switch typ {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

// MinBudget is the smallest budget, in characters, a call may ask for:
// the envelope alone takes several hundred.
const MinBudget = 1000

// MinBudgetTokens is the smallest budgetTokens a call may ask for (or
// the server's token limit, if lower): MinBudget's characters of compact
// JSON, at 2.8 characters a token.
const MinBudgetTokens = 350

// pageArgs are the paging arguments of a call, as given.
type pageArgs struct {
	// Size is limit, or pageSize; 0 when not given.
	Size int
	// Offset and Cursor are the arguments of those names, Number is
	// page; Has* says each was given.
	Offset, Number                  int
	Cursor                          string
	HasOffset, HasNumber, HasCursor bool
}

// Page returns the page a asks for, by size with an offset, a 0-based
// page number of l's pages, or a cursor. A cursor with an offset or a
// page, or a page with an offset, is an [*ArgumentError] of tool.
func (a pageArgs) Page(tool string, l bounded.Limits) (bounded.Page, error) {
	switch {
	case a.HasCursor && (a.HasOffset || a.HasNumber):
		return bounded.Page{}, &ArgumentError{Tool: tool, Argument: "cursor", Reason: "a cursor excludes offset and page: give one of them", Kind: bounded.ErrInvalidCursor}
	case a.HasNumber && a.HasOffset:
		return bounded.Page{}, &ArgumentError{Tool: tool, Argument: "offset", Reason: "give page or offset, not both", Kind: bounded.ErrInvalidPage}
	case a.HasNumber:
		p, err := l.FromPageNumber(a.Number, a.Size)
		if err != nil {
			return bounded.Page{}, &ArgumentError{Tool: tool, Argument: "page", Reason: strings.TrimPrefix(err.Error(), bounded.ErrInvalidPage.Error()+": "), Kind: bounded.ErrInvalidPage}
		}
		return p, nil
	}
	return bounded.Page{Limit: a.Size, Offset: a.Offset, Cursor: a.Cursor}, nil
}

// lowerBudget returns b lowered by a call's budget (chars) and
// budgetTokens (tokens), 0 when not given; it never raises b. A lowered
// budget holds its limits exactly (Margin 1). When b estimates tokens,
// budgetTokens is lowered by [bounded.MaxEstimateError], so that the
// exact count stays within it. The token limit of a call that gives
// budget alone stays derived from its characters when b's is.
func lowerBudget(b bounded.Budget, chars, tokens int) bounded.Budget {
	limChars, limTokens := b.LimitChars(), b.LimitTokens()
	lowChars := chars > 0 && chars < limChars
	lowTokens := tokens > 0 && tokens < limTokens
	if !lowChars && !lowTokens {
		return b
	}
	if lowChars {
		limChars = chars
	}
	if lowTokens {
		limTokens = tokens
		if estimates(b) {
			limTokens = max(int(float64(tokens)*(1-bounded.MaxEstimateError)), 1)
		}
	}
	if lowTokens || b.MaxTokens > 0 {
		b.MaxTokens = limTokens
	}
	b.MaxChars, b.Margin = limChars, 1
	return b
}

// estimates reports whether b counts tokens with bounded's estimator.
func estimates(b bounded.Budget) bool { return b.Tokenizer == nil && b.CharsPerToken == 0 }
