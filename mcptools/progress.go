package mcptools

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressEvery is how often a long call notifies its progress when
// Options.Progress is 0.
const progressEvery = time.Second

// notifyProgress notifies the client of req, when the call has a
// progress token, every every (progressEvery when 0; never when
// negative) until the returned stop is called.
func notifyProgress(ctx context.Context, req *mcp.CallToolRequest, tool string, every time.Duration) (stop func()) {
	if every == 0 {
		every = progressEvery
	}
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	if every < 0 || token == nil || req.Session == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				msg := fmt.Sprintf("%s: reading the results, %s so far", tool, time.Since(start).Round(time.Millisecond))
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
			}
		}
	}()
	return func() { close(done); <-finished }
}
