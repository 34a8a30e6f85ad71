package main

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkWithinBudget calls the records tool (300 records, 10 KB of
// structured content and its text) through a proxy in process and
// directly, alternately: the proxy's own cost per call, the SDK's on
// both sides of it included.
//
//	go test ./cmd/bounded-mcp -run '^$' -bench WithinBudget -benchtime 2000x -count 5
func BenchmarkWithinBudget(b *testing.B) {
	var st upstreamState
	up := newUpstream(&st, false)
	p := startProxy(b, testConfig(inMemory(up)))
	through := connect(b, p.server, "claude-code", nil, nil)
	dc := direct(b, up)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 300}}
	for _, side := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"direct", dc}, {"proxy", through}} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				res, err := side.cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
