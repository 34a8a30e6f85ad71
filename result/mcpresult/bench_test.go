package mcpresult_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

// smallServer has tools whose results the default budget holds: text
// (JSON in a text block) and typed (structured output).
func smallServer(bound bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "small"}, nil)
	rs := Records{records().Records[:400]}
	text, _ := json.Marshal(rs)
	s.AddTool(&mcp.Tool{Name: "text", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "typed"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, Records, error) {
			return nil, rs, nil
		})
	if bound {
		mcpresult.Serve(s, result.New(result.NewMemory(result.Quota{}), result.Options{}), mcpresult.Options{})
	}
	return s
}

// BenchmarkWithinBudget calls a tool whose result the budget holds, on a
// server without bounded (passed) and with Serve (bounded): the figure of
// BENCHMARKS.md.
func BenchmarkWithinBudget(b *testing.B) {
	for _, tool := range []string{"text", "typed"} {
		for _, mode := range []string{"passed", "bounded"} {
			b.Run(tool+"/"+mode, func(b *testing.B) {
				cs := connect(b, smallServer(mode == "bounded"))
				ctx := context.Background()
				p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
				for b.Loop() {
					res, err := cs.CallTool(ctx, p)
					if err != nil || res.IsError || res.Meta[mcpresult.MetaReport] != nil {
						b.Fatal(err, res)
					}
				}
			})
		}
	}
}

// BenchmarkWithinBudgetPaired alternates a call on each server in every
// iteration and reports the bounded call's time over the passed one's
// (min of the per-call medians would need more runs on a busy machine).
func BenchmarkWithinBudgetPaired(b *testing.B) {
	for _, tool := range []string{"text", "typed"} {
		b.Run(tool, func(b *testing.B) {
			passed, bounded := connect(b, smallServer(false)), connect(b, smallServer(true))
			ctx := context.Background()
			p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
			var tp, tb time.Duration
			for b.Loop() {
				for _, c := range []struct {
					cs *mcp.ClientSession
					d  *time.Duration
				}{{passed, &tp}, {bounded, &tb}} {
					start := time.Now()
					res, err := c.cs.CallTool(ctx, p)
					*c.d += time.Since(start)
					if err != nil || res.IsError || res.Meta[mcpresult.MetaReport] != nil {
						b.Fatal(err, res)
					}
				}
			}
			b.ReportMetric(float64(tb)/float64(tp), "bounded/passed")
		})
	}
}
