package main

import (
	"context"
	"encoding/json"
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
	args := map[string]any{"n": 300}
	for _, side := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"direct", dc}, {"proxy", through}} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				// A new params each call: a call writes its client's name
				// in the params' _meta, which the proxy chooses the
				// profile by.
				res, err := side.cs.CallTool(ctx, &mcp.CallToolParams{Name: "records", Arguments: args})
				if err != nil || res.IsError || report(b, res) != nil {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkDecodeResult: a result of texts and structured content,
// 20 KB, read by decodeTexts against encoding/json.
func BenchmarkDecodeResult(b *testing.B) {
	rs := records(300, 0)
	text, _ := json.Marshal(rs)
	raw, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: rs})
	raw = append(raw[:len(raw)-1], `,"resultType":"complete"}`...) // as the SDK's servers write it
	for _, side := range []struct {
		name string
		f    func([]byte) (*mcp.CallToolResult, error)
	}{{"encoding-json", decodeAny}, {"texts", decodeResult}} {
		b.Run(side.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := side.f(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
