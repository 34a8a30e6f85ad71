package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// item is a result of the notice tests' tool.
type item struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// noticeServer serves list_items, n items of 80 characters of text;
// fail, which fails; and fitted_alone, the same items fitted without the
// call's context (bounded.Fit), in a tool of its own; while notice is set,
// every result says it. calls counts the calls of list_items' handler.
func noticeServer(t *testing.T, n int, notice *atomic.Pointer[string], calls *atomic.Int64) *mcptoolstest.Client {
	t.Helper()
	var all []item
	for i := range n {
		all = append(all, item{ID: i, Text: strings.Repeat(fmt.Sprintf("item %03d ", i), 9)[:80]})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "notice", Version: "0"}, nil)
	b := bounded.Budget{MaxChars: 20_000, Margin: 1}
	o := mcptools.Options[item]{Limits: bounded.Limits{Default: 10, Max: 500}, Budget: b}
	mcptools.AddTool(s, &mcp.Tool{Name: "list_items", Description: "Lists the items."}, o,
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[item], error) {
			calls.Add(1)
			return bounded.FromSlice(all), nil
		})
	s.AddTool(&mcp.Tool{Name: "fitted_alone", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Budget int }
			json.Unmarshal(req.Params.Arguments, &args)
			fb := b
			if args.Budget > 0 {
				fb.MaxChars = args.Budget
			}
			pg := bounded.Paged[item]{Items: all, Page: bounded.PageInfo{Limit: len(all), Returned: len(all), Total: len(all), TotalKind: bounded.TotalExact}}
			fd, err := bounded.Fit(fb, bounded.FitInput[item]{Page: pg, Call: bounded.Call{Tool: "fitted_alone", Args: bounded.Args{{Name: "budget", Value: fb.MaxChars}}}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(fd.JSON)}}, StructuredContent: json.RawMessage(fd.JSON)}, nil
		})
	mcptools.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails."}, o,
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[item], error) {
			return nil, errors.New("no items yet")
		})
	mcptools.AddNotice(s, b, func(tool string) string {
		if p := notice.Load(); p != nil {
			return *p
		}
		return ""
	})
	return mcptoolstest.Serve(t, s)
}

func TestAddNotice(t *testing.T) {
	const say = "Import in progress: 200 of 6,280 notes written; results may be incomplete."
	var notice atomic.Pointer[string]
	var calls atomic.Int64
	c := noticeServer(t, 300, &notice, &calls)
	cases := []struct {
		name, args string
		budget     int // the call's limit in characters
	}{
		{"one page", `{"limit":300}`, 20_000},
		{"a page with more", `{"limit":5}`, 20_000},
		{"a page cut by the budget", `{"limit":100,"budget":3000}`, 3000},
		{"a page the budget fills", `{"limit":300,"budget":1200}`, 1200},
		{"a page the token budget fills", `{"limit":300,"budgetTokens":400}`, 20_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			notice.Store(nil)
			plain, _ := c.Call("list_items", tc.args)
			notice.Store(new(say))
			env, text := c.Call("list_items", tc.args) // checks the envelope and limitChars
			if !strings.HasPrefix(env.Hint, say) {
				t.Errorf("hint %q; want it to begin with the notice", env.Hint)
			}
			tr := env.Truncation
			if n := utf8.RuneCountInString(text); tr.EstimatedChars != n || n > tc.budget || tr.LimitChars != plain.Truncation.LimitChars {
				t.Errorf("%d characters, estimatedChars %d, limitChars %d; want them equal, within %d and the limit %d",
					n, tr.EstimatedChars, tr.LimitChars, tc.budget, plain.Truncation.LimitChars)
			}
			if tr.EstimatedTokens > tr.LimitTokens || tr.LimitTokens != plain.Truncation.LimitTokens {
				t.Errorf("%d tokens, limit %d; want within the limit %d", tr.EstimatedTokens, tr.LimitTokens, plain.Truncation.LimitTokens)
			}
			if len(env.Results) == 0 {
				t.Errorf("no results: %.300s", text)
			}
		})
	}
	t.Run("unchanged without a notice", func(t *testing.T) {
		notice.Store(nil)
		_, a := c.Call("list_items", `{"limit":5}`)
		notice.Store(new(""))
		_, b := c.Call("list_items", `{"limit":5}`)
		if a != b {
			t.Errorf("an empty notice changed the result:\n%s\n%s", a, b)
		}
	})
	t.Run("error", func(t *testing.T) {
		notice.Store(new(say))
		if got := c.Error("fail", `{}`); !strings.HasSuffix(got, "\n"+say) || !strings.Contains(got, "no items yet") {
			t.Errorf("error %q; want the error, then the notice on a line", got)
		}
	})
	t.Run("fitted with it", func(t *testing.T) {
		// The whole budget is used without the notice: the call's fit
		// makes room for it, once, and next keeps the budget given.
		notice.Store(nil)
		plain, _ := c.Call("list_items", `{"limit":300,"budget":1200}`)
		notice.Store(new(say))
		before := calls.Load()
		env, _ := c.Call("list_items", `{"limit":300,"budget":1200}`)
		if n := calls.Load() - before; n != 1 {
			t.Errorf("the handler ran %d times for one call", n)
		}
		var next struct{ Budget int }
		if err := json.Unmarshal(env.Next, &next); err != nil || next.Budget != 1200 || len(env.Results) >= len(plain.Results) {
			t.Errorf("next %s (%v), %d results against %d without the notice; want the budget as given and fewer results",
				env.Next, err, len(env.Results), len(plain.Results))
		}
	})
	t.Run("refitted", func(t *testing.T) {
		// A tool that fits without the call's context: its response is
		// fitted again to a budget that leaves the notice room, which
		// next says.
		notice.Store(nil)
		plain, _ := c.Call("fitted_alone", `{"budget":1200}`)
		notice.Store(new(say))
		env, text := c.Call("fitted_alone", `{"budget":1200}`)
		var next struct{ Budget int }
		if err := json.Unmarshal(env.Next, &next); err != nil || next.Budget >= 1200 || len(env.Results) >= len(plain.Results) {
			t.Errorf("next %s (%v), %d results against %d without the notice; want a lower budget and fewer results",
				env.Next, err, len(env.Results), len(plain.Results))
		}
		if !strings.HasPrefix(env.Hint, say) || utf8.RuneCountInString(text) > 1200 {
			t.Errorf("hint %q, %d characters", env.Hint, utf8.RuneCountInString(text))
		}
	})
}
