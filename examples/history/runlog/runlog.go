// Package runlog makes the response history the history and MCP server
// examples page through: runs of an endpoint, one a minute, whose response
// bodies range from a few characters to several thousand, so that some are
// clipped.
package runlog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/boundedkit/bounded/ports"
)

// Start is the time of the first run of [Runs].
var Start = time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)

// Runs returns n runs of endpoint, one a minute from Start: IDs
// "<endpoint>-001", ... (the last is the newest), mostly 200s with JSON
// bodies listing 1 to 60 orders (every seventh body is over 1,000
// characters), every fifth a 503 with a short error body.
func Runs(endpoint string, n int) []ports.Run {
	runs := make([]ports.Run, n)
	for i := range runs {
		started := Start.Add(time.Duration(i) * time.Minute)
		r := ports.Run{
			ID: fmt.Sprintf("%s-%03d", endpoint, i+1), EndpointID: endpoint,
			StartedAt: started, FinishedAt: started.Add(time.Duration(120+i*37%900) * time.Millisecond),
			Status: "ok", StatusCode: 200,
		}
		if i%5 == 4 {
			r.Status, r.StatusCode = "error", 503
			r.Body = `{"error":"upstream unavailable","retryAfter":30}`
		} else {
			count := 1 + i*13%12
			if i%7 == 6 {
				count = 60
			}
			var orders []string
			for j := range count {
				orders = append(orders, fmt.Sprintf(`{"id":"ord-%d-%d","total":%d.%02d,"status":"paid"}`, i+1, j+1, 10+j*7%90, j*13%100))
			}
			r.Body = fmt.Sprintf(`{"orders":[%s],"count":%d}`, strings.Join(orders, ","), count)
		}
		runs[i] = r
	}
	return runs
}

// Record records runs in h.
func Record(ctx context.Context, h ports.History, runs []ports.Run) error {
	for _, r := range runs {
		if err := h.RecordRun(ctx, r); err != nil {
			return err
		}
	}
	return nil
}
