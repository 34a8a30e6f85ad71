//go:build linux

package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
	"github.com/boundedkit/bounded/result/sqlresult"
)

var figuresFlag = flag.Bool("figures", false, "run TestFigures, which measures what BENCHMARKS.md reports")

// TestFigures measures, in one run, calls over stdio to the Go upstream
// directly and through bounded-mcp (both processes, the store SQLite as by
// default): the overhead per call of a result within the budget, and a
// 5 MB result's time against the upstream's own and the core's bounding
// of it.
//
//	go test ./cmd/bounded-mcp -run TestFigures -figures -v
//	BOUNDED_MCP_BASELINE=/tmp/bounded-mcp-old go test ./cmd/bounded-mcp -run TestFigures -figures -v
func TestFigures(t *testing.T) {
	if !*figuresFlag {
		t.Skip("run with -figures")
	}
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "results.db")
	proxied, _ := startBinary(t, "-store", store)
	direct, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(os.Args[0], roleUpstream)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	call := func(cs *mcp.ClientSession, params *mcp.CallToolParams) (time.Duration, *mcp.CallToolResult) {
		// A copy each call: a call writes its client's name in the
		// params' _meta, which the proxy chooses the profile by.
		params = &mcp.CallToolParams{Name: params.Name, Arguments: params.Arguments}
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		d := time.Since(start)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", params.Name, err, res)
		}
		return d, res
	}
	// BOUNDED_MCP_BASELINE names a bounded-mcp binary built from another
	// commit, measured in the same run as a third side.
	var baseline *mcp.ClientSession
	if bin := os.Getenv("BOUNDED_MCP_BASELINE"); bin != "" {
		args := proxyArgs("-store", filepath.Join(t.TempDir(), "baseline.db"))[1:]
		baseline, err = mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(ctx,
			&mcp.CommandTransport{Command: exec.Command(bin, args...)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer baseline.Close()
	}
	// Calls within the budget, alternating, after a warm-up.
	for _, params := range []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"text": "a short answer"}},
		{Name: "records", Arguments: map[string]any{"n": 300}},
	} {
		var a, b, c []time.Duration
		for i := range 2200 {
			da, res := call(proxied, params)
			if report(t, res) != nil {
				t.Fatalf("%s was cut: it should be within the budget", params.Name)
			}
			db, _ := call(direct, params)
			var dc time.Duration
			if baseline != nil {
				dc, _ = call(baseline, params)
			}
			if i >= 200 {
				a, b, c = append(a, da), append(b, db), append(c, dc)
			}
		}
		slices.Sort(a)
		slices.Sort(b)
		slices.Sort(c)
		t.Logf("%s %v within the budget, 2,000 calls each: through bounded-mcp p50 %v p99 %v; direct p50 %v p99 %v; overhead p50 %v p99 %v",
			params.Name, params.Arguments, percentile(a, 0.5), percentile(a, 0.99), percentile(b, 0.5), percentile(b, 0.99),
			percentile(a, 0.5)-percentile(b, 0.5), percentile(a, 0.99)-percentile(b, 0.99))
		if baseline != nil {
			t.Logf("%s: through the baseline p50 %v p99 %v; overhead p50 %v p99 %v", params.Name, percentile(c, 0.5), percentile(c, 0.99),
				percentile(c, 0.5)-percentile(b, 0.5), percentile(c, 0.99)-percentile(b, 0.99))
		}
	}
	// A 5 MB result: 16,000 records of 330 bytes.
	big := &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 16_000, "body": 100}}
	var up, through, core []time.Duration
	db, err := sqlresult.OpenSQLite(ctx, filepath.Join(t.TempDir(), "core.db"), result.Quota{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := result.New(db, result.Options{})
	budget := profile.Default().For("claude-code").Budget
	var size int
	for i := range 12 {
		du, res := call(direct, big)
		dt, out := call(proxied, big)
		if report(t, out) == nil {
			t.Fatal("the 5 MB result was not cut")
		}
		if i == 0 {
			size = len(texts(res)[0])
			continue
		}
		start := time.Now()
		if _, err := mcpresult.Bound(ctx, b, budget, result.Call{Tool: "records", Principal: "p"}, res); err != nil {
			t.Fatal(err)
		}
		up, through, core = append(up, du), append(through, dt), append(core, time.Since(start))
	}
	slices.Sort(up)
	slices.Sort(through)
	slices.Sort(core)
	u, th, c := percentile(up, 0.5), percentile(through, 0.5), percentile(core, 0.5)
	t.Logf("a %d-byte result, 11 calls each, medians: direct %v; through bounded-mcp %v; the core's Bound into SQLite %v; through / (1.5 × direct + core) = %.2f",
		size, u, th, c, float64(th)/(1.5*float64(u)+float64(c)))
}
