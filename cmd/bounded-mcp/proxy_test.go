//lint:file-ignore SA1019 a proxy forwards what the protocol deprecates too: logging, sampling, roots.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/tokenizer"
)

// direct connects a client to the Go upstream with no proxy between.
func direct(t testing.TB, up *mcp.Server) *mcp.ClientSession {
	return connect(t, up, "direct", nil, nil)
}

func TestForwardsLists(t *testing.T) {
	ctx := context.Background()
	var st upstreamState
	up := newUpstream(&st, false)
	p := startProxy(t, testConfig(inMemory(up)))
	cs := connect(t, p.server, "claude-code", nil, nil)
	dc := direct(t, up)

	names := func(seq func(func(*mcp.Tool, error) bool)) []string {
		ts, err := collect(seq)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range ts {
			out = append(out, tl.Name)
		}
		slices.Sort(out)
		return out
	}
	want := append(names(dc.Tools(ctx, nil)), result.DefaultReadTool)
	slices.Sort(want)
	if got := names(cs.Tools(ctx, nil)); !slices.Equal(got, want) {
		t.Errorf("tools:\n got %v\nwant %v", got, want)
	}
	rs, err := collect(cs.Resources(ctx, nil))
	if err != nil || len(rs) != 25 {
		t.Errorf("resources: %d, %v; want the upstream's 25 (listed 10 a page)", len(rs), err)
	}
	for _, r := range rs[:3] {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil || res.Contents[0].Text != "resource "+r.URI {
			t.Errorf("read %s: %v %v", r.URI, err, res)
		}
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://t/42"})
	if err != nil || res.Contents[0].Text != "template test://t/42" {
		t.Errorf("read through a template: %v %v", err, res)
	}
	tmpls, err := collect(cs.ResourceTemplates(ctx, nil))
	var uris []string
	for _, tm := range tmpls {
		uris = append(uris, tm.URITemplate)
	}
	if err != nil || !slices.Contains(uris, "test://t/{id}") || !slices.Contains(uris, result.DefaultResourcePrefix+"{handle}") {
		t.Errorf("templates: %v %v", uris, err)
	}
	prompts, err := collect(cs.Prompts(ctx, nil))
	if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" {
		t.Errorf("prompts: %v %v", prompts, err)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada" {
		t.Errorf("get prompt: %v %v", err, gp)
	}
	cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"}})
	if err != nil || !slices.Equal(cr.Completion.Values, []string{"A-1", "A-2"}) {
		t.Errorf("complete: %v %v", err, cr)
	}
	init := cs.InitializeResult()
	if init.Instructions != "A server for the tests." || init.ServerInfo.Name != "test-upstream" {
		t.Errorf("initialize: %+v %+v", init, init.ServerInfo)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("a tool nobody has: no error")
	}
}

func TestForwardsNotifications(t *testing.T) {
	for _, proto := range []*mcp.ClientSessionOptions{legacyProtocol, nil} {
		name := "legacy"
		if proto == nil {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) { testNotifications(t, proto) })
	}
}

func testNotifications(t *testing.T, proto *mcp.ClientSessionOptions) {
	ctx := context.Background()
	var st upstreamState
	up := newUpstream(&st, false)
	p := startProxy(t, testConfig(inMemory(up)))
	var mu sync.Mutex
	var progress []string
	var logs []string
	toolsChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	opts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v:%v", r.Params.ProgressToken, r.Params.Progress))
			mu.Unlock()
		},
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, fmt.Sprint(r.Params.Data))
			mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}
	cs := connect(t, p.server, "claude-code", opts, proto)

	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3}}
	params.SetProgressToken("tok-1")
	mustCall(t, cs, "progress", map[string]any{"steps": 2}) // no token: no progress
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "progress", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(progress, []string{"tok-1:1", "tok-1:2", "tok-1:3"})
	}, func() string { mu.Lock(); defer mu.Unlock(); return fmt.Sprint(progress) })

	if proto != nil {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		mustCall(t, cs, "log", map[string]any{"n": 3})
		waitFor(t, "log messages", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Equal(logs, []string{"message 0", "message 1", "message 2"})
		})
	}

	// Cancellation: the client gives up; the upstream's call ends.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 20_000}})
	cancel()
	if err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	waitFor(t, "the upstream's call cancelled", func() bool { return st.cancelled.Load() == 1 })

	mustCall(t, cs, "add_tool", map[string]any{"text": "fresh"})
	select {
	case <-toolsChanged:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed")
	}
	waitFor(t, "the new tool", func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fresh"})
		return err == nil && !res.IsError && texts(res)[0] == "new"
	})

	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://r/0"}); err != nil {
		t.Fatal(err)
	}
	// Without sessions, a subscription takes effect after Subscribe returns.
	waitFor(t, "resources/updated", func() bool {
		mustCall(t, cs, "touch", nil)
		select {
		case uri := <-updated:
			return uri == "test://r/0"
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
}

// TestAsksTheClient forwards the upstream's requests to the client:
// sampling, elicitation and roots, asked outside a result (protocols with
// sessions) or within one (multi round-trip).
func TestAsksTheClient(t *testing.T) {
	for _, tc := range []struct {
		name           string
		upstream, down *mcp.ClientSessionOptions
	}{
		{"sessions", legacyProtocol, legacyProtocol},
		{"within a result", nil, nil},
		{"within a result, to a client with a session", nil, legacyProtocol},
		{"outside a result, to a client without a session", legacyProtocol, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st upstreamState
			up := newUpstream(&st, false)
			cfg := testConfig(inMemory(up))
			if tc.upstream != nil {
				cfg.protocol = tc.upstream.ProtocolVersion
			}
			p := startProxy(t, cfg)
			client := &mcp.ClientOptions{
				CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "42"}}, nil
				},
				ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
				},
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, client)
			c.AddRoots(&mcp.Root{URI: "file:///work/a"}, &mcp.Root{URI: "file:///work/b"})
			st2, ct := mcp.NewInMemoryTransports()
			ss, err := p.server.Connect(context.Background(), st2, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := c.Connect(context.Background(), ct, tc.down)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()
			if tc.upstream == nil {
				if got := mustCall(t, cs, "sample_in_result", map[string]any{"text": "answer?"}); got != "model said: 42" {
					t.Errorf("sample_in_result: %q", got)
				}
				return
			}
			if tc.down == nil {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"text": "answer?"}})
				if msg := errText(t, res, err); !strings.Contains(msg, "no client session can answer") {
					t.Errorf("sample: %q", msg)
				}
				return
			}
			if got := mustCall(t, cs, "sample", map[string]any{"text": "answer?"}); got != "model said: 42" {
				t.Errorf("sample: %q", got)
			}
			if got := mustCall(t, cs, "elicit", map[string]any{"text": "sure?"}); got != "user said: accept yes" {
				t.Errorf("elicit: %q", got)
			}
			waitFor(t, "the client's roots", func() bool {
				return mustCall(t, cs, "roots", nil) == "file:///work/a file:///work/b"
			})
		})
	}
}

// TestBoundsByClient bounds each result to the profile of the client's
// name, and walks the rest by next alone, byte for byte.
func TestBoundsByClient(t *testing.T) {
	var st upstreamState
	up := newUpstream(&st, false)
	p := startProxy(t, testConfig(inMemory(up)))
	dc := direct(t, up)
	for i, client := range []string{"claude-code", "codex-mcp-client", "gemini-cli-mcp-client", "github-copilot-cli", "Visual Studio Code", "someone"} {
		// 30,000 records for two clients, fewer for the others.
		n := deeptest.Size(3000, 30_000)
		if i < 2 {
			n = 30_000
		}
		calls := []*mcp.CallToolParams{
			{Name: "records", Arguments: map[string]any{"n": n}},
			{Name: "records", Arguments: map[string]any{"n": 300, "body": 40}},
			{Name: "lines", Arguments: map[string]any{"n": n / 6}},
			{Name: "lines", Arguments: map[string]any{"n": 400}},
			{Name: "echo", Arguments: map[string]any{"text": "small"}},
		}
		t.Run(client, func(t *testing.T) {
			cs := connect(t, p.server, client, nil, nil)
			prof := profile.Default().For(client)
			for _, params := range calls {
				orig, err := dc.CallTool(context.Background(), params)
				if err != nil {
					t.Fatal(err)
				}
				reads := walkWhole(t, cs.CallTool, prof, prof, orig, params)
				t.Logf("%s %v: %d reads", params.Name, params.Arguments, reads)
			}
		})
	}
}

// TestToolsListCost measures what the proxy adds to tools/list: the read
// tool, at most 300 o200k tokens.
func TestToolsListCost(t *testing.T) {
	ctx := context.Background()
	var st upstreamState
	up := newUpstream(&st, false)
	p := startProxy(t, testConfig(inMemory(up)))
	count, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	tokens := func(cs *mcp.ClientSession) int {
		ts, err := collect(cs.Tools(ctx, nil))
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(ts, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
		b, _ := json.Marshal(ts)
		n, err := count.Count(ctx, string(b))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	through, direct := tokens(connect(t, p.server, "claude-code", nil, nil)), tokens(direct(t, up))
	added := through - direct
	t.Logf("tools/list: %d o200k tokens through the proxy, %d direct: %d added", through, direct, added)
	if added > 300 || added <= 0 {
		t.Errorf("the proxy adds %d o200k tokens to tools/list; want at most 300", added)
	}
}

func TestToolPolicies(t *testing.T) {
	var st upstreamState
	up := newUpstream(&st, false)
	cfg := testConfig(inMemory(up))
	cfg.tools = map[string]toolPolicy{
		"lines":   {limits: profile.Limits{Chars: 3000}},
		"records": {skip: true},
	}
	p := startProxy(t, cfg)
	cs := connect(t, p.server, "claude-code", nil, nil)
	dc := direct(t, up)
	claude := profile.Default().For("claude-code")
	params := &mcp.CallToolParams{Name: "lines", Arguments: map[string]any{"n": 1000}}
	orig, _ := dc.CallTool(context.Background(), params)
	walkWhole(t, cs.CallTool, claude.With(profile.Limits{Chars: 3000}), claude, orig, params)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 5000}})
	if err != nil || report(t, res) != nil || len(texts(res)[0]) < 100_000 {
		t.Errorf("a skipped tool's result was cut: %v", err)
	}
}

func TestRestart(t *testing.T) {
	var st upstreamState
	up := newUpstream(&st, false)
	var dials atomic.Int64
	dial := inMemory(up)
	cfg := testConfig(func(ctx context.Context) (mcp.Transport, *process, error) {
		if dials.Add(1) > 2 {
			return nil, nil, errors.New("no more")
		}
		return dial(ctx)
	})
	p := startProxy(t, cfg)
	updated := make(chan string, 10)
	cs := connect(t, p.server, "claude-code", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}, legacyProtocol)
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://r/0"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crash"})
	if msg := errText(t, res, err); !strings.Contains(msg, "stopped during the call of crash") {
		t.Errorf("crash: %q", msg)
	}
	waitFor(t, "the restarted upstream", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "back"}})
		return err == nil && !res.IsError && texts(res)[0] == "back"
	})
	// The subscription was renewed with the restarted upstream.
	mustCall(t, cs, "touch", nil)
	select {
	case <-updated:
	case <-time.After(5 * time.Second):
		t.Error("no resources/updated from the restarted upstream")
	}
	// A second crash: the restart fails, and calls say so.
	cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crash"})
	waitFor(t, "the failed restart", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		return err == nil && res.IsError && strings.Contains(texts(res)[0], "restarting it failed: no more")
	})
	// Reads of what was kept still work.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: result.DefaultReadTool, Arguments: map[string]any{"handle": "x"}})
	if msg := errText(t, res, err); !strings.Contains(msg, "andle") {
		t.Errorf("read_result after the upstream went down: %q", msg)
	}
}

// waitFor waits up to 10 s for ok; got says what there is instead.
func waitFor(t testing.TB, what string, ok func() bool, got ...func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			for _, g := range got {
				what += "; got " + g()
			}
			t.Fatalf("no %s after 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPUpstream puts the proxy in front of an upstream over streamable
// HTTP that goes down: a call then gets an isError result, and the
// connection is made again once the upstream is back.
func TestHTTPUpstream(t *testing.T) {
	var st upstreamState
	var down, headers atomic.Bool
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newUpstream(&st, false) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers.Store(r.Header.Get("X-Test") == "yes")
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(httpDialer(srv.URL, []string{"X-Test: yes"}))
	cfg.backoff = 500 * time.Millisecond
	p := startProxy(t, cfg)
	cs := connect(t, p.server, "claude-code", nil, nil)
	if got := mustCall(t, cs, "echo", map[string]any{"text": "up"}); got != "up" || !headers.Load() {
		t.Fatalf("echo: %q; the -header sent: %v", got, headers.Load())
	}
	down.Store(true)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
	if msg := errText(t, res, err); !strings.Contains(msg, "The call of echo failed") {
		t.Errorf("a call while the upstream is down: %q", msg)
	}
	down.Store(false)
	waitFor(t, "the upstream reconnected", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "back"}})
		return err == nil && !res.IsError && texts(res)[0] == "back"
	})
}
