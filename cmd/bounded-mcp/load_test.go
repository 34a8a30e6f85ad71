package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
)

var loadFlag = flag.Bool("load", false, "run TestLoad at full size: 50 clients each walking 20,000 records, 200 timed calls each")

// goTB is a testing.TB for a goroutine of a test: its failures are
// noted, and a fatal one ends the goroutine alone.
type goTB struct {
	testing.TB
	mu   *sync.Mutex
	errs *[]string
}

func (g goTB) Helper() {}

func (g goTB) Errorf(format string, args ...any) {
	g.mu.Lock()
	*g.errs = append(*g.errs, fmt.Sprintf(format, args...))
	g.mu.Unlock()
}

func (g goTB) Fatalf(format string, args ...any) {
	g.Errorf(format, args...)
	runtime.Goexit()
}

func (g goTB) Fatal(args ...any) { g.Fatalf("%s", fmt.Sprint(args...)) }

// percentile returns the p-th percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// TestLoad runs 50 clients at once through one proxy, served over
// streamable HTTP, to one upstream: each walks a large result by next, and
// none loses or repeats an element. It times calls within the budget
// through the proxy and to the upstream directly, from the same clients at
// the same time, and logs p50 and p99 of each.
func TestLoad(t *testing.T) {
	clients, records, calls := 50, 2000, 20
	if *loadFlag {
		records, calls = 20_000, 200
	}
	ctx := context.Background()
	var st upstreamState
	upSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newUpstream(&st, false) }, nil))
	t.Cleanup(upSrv.Close) // after the proxy's
	p := startProxy(t, testConfig(httpDialer(upSrv.URL, nil)))
	proxySrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.server }, nil))
	defer proxySrv.Close()

	dial := func(url, name string) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: name}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	}
	direct, err := dial(upSrv.URL, "direct")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	params := &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": records}}
	orig, err := direct.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	prof := profile.Default().For("claude-code")

	var mu sync.Mutex
	var errs []string
	var viaProxy, toUpstream, walks []time.Duration
	reads := 0
	var wg sync.WaitGroup
	var walked sync.WaitGroup // the timed calls start when every walk is done
	walked.Add(clients)
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once := sync.OnceFunc(walked.Done)
			defer once()
			g := goTB{TB: t, mu: &mu, errs: &errs}
			cs, err := dial(proxySrv.URL, "claude-code")
			if err != nil {
				g.Fatalf("client %d: %v", i, err)
			}
			defer cs.Close()
			dc, err := dial(upSrv.URL, "direct")
			if err != nil {
				g.Fatalf("client %d: %v", i, err)
			}
			defer dc.Close()
			w := time.Now()
			n := walkWhole(g, cs.CallTool, prof, prof, orig, params)
			took := time.Since(w)
			once()
			walked.Wait()
			var mine, theirs []time.Duration
			for j := range calls {
				args := map[string]any{"text": fmt.Sprintf("call %d of client %d", j, i)}
				for _, c := range []*mcp.ClientSession{cs, dc} {
					s := time.Now()
					res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
					d := time.Since(s)
					if err != nil || res.IsError || texts(res)[0] != args["text"] {
						g.Fatalf("client %d: echo: %v %v", i, err, res)
					}
					if c == cs {
						mine = append(mine, d)
					} else {
						theirs = append(theirs, d)
					}
				}
			}
			mu.Lock()
			reads += n
			walks = append(walks, took)
			viaProxy = append(viaProxy, mine...)
			toUpstream = append(toUpstream, theirs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, e := range errs {
		t.Error(e)
	}
	slices.Sort(viaProxy)
	slices.Sort(toUpstream)
	slices.Sort(walks)
	var size int
	if b, err := json.Marshal(orig.StructuredContent); err == nil {
		size = len(b)
	}
	t.Logf("%d clients at once, each walking %d records (%d bytes) in %d reads: walks took p50 %v, p99 %v; %v in all",
		clients, records, size, reads/max(clients, 1), percentile(walks, 0.5), percentile(walks, 0.99), time.Since(start))
	t.Logf("calls within the budget, %d each way: through the proxy p50 %v p99 %v; to the upstream p50 %v p99 %v; overhead p50 %v p99 %v",
		len(viaProxy), percentile(viaProxy, 0.5), percentile(viaProxy, 0.99), percentile(toUpstream, 0.5), percentile(toUpstream, 0.99),
		percentile(viaProxy, 0.5)-percentile(toUpstream, 0.5), percentile(viaProxy, 0.99)-percentile(toUpstream, 0.99))
}
