package mcptools_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcpset"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/tools"
)

// tagArgs are the arguments of the error tests' tool.
type tagArgs struct {
	Status string   `json:"status,omitempty"`
	Tags   []string `json:"tags,omitempty"`
}

// TestErrorWithinBudget: an error result keeps to its tool's budget as
// any result does. Values it repeats (argument names, values, types) are
// clipped, so that a bad argument's message stays short, and a handler's
// message is clipped to the budget.
func TestErrorWithinBudget(t *testing.T) {
	big := strings.Repeat("ä", 1<<20) // 2 MB
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	budget := bounded.Budget{MaxChars: 8000} // 7,200 characters, 2,571 tokens
	mcptools.AddTool(server, &mcp.Tool{Name: "runs", Description: "Lists runs."},
		mcptools.Options[run]{Limits: runLimits, Budget: budget},
		func(_ context.Context, _ *mcp.CallToolRequest, in tagArgs) (bounded.Source[run], error) {
			if in.Status != "" {
				return nil, fmt.Errorf("no runs of status %q", in.Status)
			}
			return newRuns(3).source(""), nil
		})
	set, err := tools.New(tools.Config{Notes: memrepo.New()})
	if err != nil {
		t.Fatal(err)
	}
	mcpset.Add(server, set)
	c := mcptoolstest.Serve(t, server)

	const short = 400 // the most characters of a bad argument's message
	for _, tc := range []struct {
		name, tool, args, want string
		most                   int // characters
	}{
		{"unknown name", "runs", fmt.Sprintf(`{%q:1}`, big), "unknown argument", short},
		{"name given twice", "runs", fmt.Sprintf(`{%q:1,%q:2}`, big, big), "given twice", short},
		{"value of a wrong type", "runs", fmt.Sprintf(`{"status":[%q]}`, big), "want a string", short},
		{"nested value of a wrong type", "runs", fmt.Sprintf(`{"tags":[{%q:1}]}`, big), "tags", short},
		{"long number", "runs", `{"offset":-1.` + strings.Repeat("0", 1<<21) + `}`, "below the minimum 0", short},
		{"long number, not whole", "runs", `{"limit":1.` + strings.Repeat("5", 1<<21) + `}`, "not a whole number", short},
		{"long cursor", "runs", fmt.Sprintf(`{"cursor":%q}`, strings.Repeat("A", 1<<21)), "omit cursor to start over", short},
		{"the handler's message", "runs", fmt.Sprintf(`{"status":%q}`, big), "no runs of status", budget.LimitChars()},
		{"a set's tool, unknown name", "list_notes", fmt.Sprintf(`{%q:1}`, big), "list_notes", bounded.DefaultMaxChars * bounded.DefaultMargin},
		{"a set's tool, value", "get_note", fmt.Sprintf(`{"id":%q}`, big), "get_note", bounded.DefaultMaxChars * bounded.DefaultMargin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Error(tc.tool, tc.args)
			n := utf8.RuneCountInString(got)
			if n > tc.most || !strings.Contains(got, tc.want) {
				t.Errorf("%d characters: %.300q...; want at most %d, saying %q", n, got, tc.most, tc.want)
			}
			if tokens := budget.CountTokens(got); tokens > budget.LimitTokens() && tc.tool == "runs" {
				t.Errorf("%d tokens, over the budget's %d", tokens, budget.LimitTokens())
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8: %.300q", got)
			}
		})
	}
}
