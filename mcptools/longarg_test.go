package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type taggedArgs struct {
	Tags []string `json:"tags,omitempty"`
}

type tagged struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// TestLongArgumentSmallTokenBudget: a cursor-paged tool called with a
// 300-character argument under the smallest token budget answers, and
// its walk by next reads every result once: no next repeats its call.
func TestLongArgumentSmallTokenBudget(t *testing.T) {
	items := make([]tagged, 40)
	var want []string
	for i := range items {
		items[i] = tagged{ID: int64(i), Name: fmt.Sprintf("item %02d", i)}
		want = append(want, fmt.Sprint(i))
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcptools.AddTool(server, &mcp.Tool{Name: "list_tagged", Description: "Lists tagged items."},
		mcptools.Options[tagged]{Limits: bounded.Limits{Default: 10, Max: 50}, Paging: bounded.ByCursor},
		func(_ context.Context, _ *mcp.CallToolRequest, in taggedArgs) (bounded.Source[tagged], error) {
			return bounded.FromSlice(items).WithKeys(func(x tagged) []any { return []any{x.ID} }), nil
		})
	c := mcptoolstest.Serve(t, server)
	tag, _ := json.Marshal(strings.Repeat("tag-", 75))
	args := fmt.Sprintf(`{"budgetTokens":350,"tags":[%s]}`, tag)
	results, _ := c.Walk("list_tagged", args, 0, nil)
	var got []string
	for _, r := range results {
		var x tagged
		if err := json.Unmarshal(r, &x); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(x.ID))
	}
	mcptoolstest.ExactlyOnce(t, "list_tagged", got, want)
}
