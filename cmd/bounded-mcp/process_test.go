//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/internal/deeptest"
)

// proxyArgs are the arguments of bounded-mcp (this test binary) in front
// of the Go upstream (this binary too), with args before the command.
func proxyArgs(args ...string) []string {
	full := append([]string{roleProxy, "-store", "memory", "-backoff", "100ms", "-grace", "300ms", "-log-level", "info"}, args...)
	return append(full, "--", os.Args[0], roleUpstream)
}

// syncBuffer is a buffer safe for a process's writes and a test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startBinary starts bounded-mcp as a process and connects a client named
// claude-code to it over stdio. The proxy's stderr is logged when t fails.
func startBinary(t testing.TB, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], proxyArgs(args...)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bounded-mcp's stderr:\n%s", stderr.String())
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func pidOf(t testing.TB, cs *mcp.ClientSession, tool string) int {
	t.Helper()
	pid, err := strconv.Atoi(mustCall(t, cs, tool, nil))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestClientLeaves checks that when the client closes stdin, the proxy,
// the upstream and what the upstream started all exit.
func TestClientLeaves(t *testing.T) {
	cs, cmd := startBinary(t)
	upstream := pidOf(t, cs, "pid")
	grandchild := pidOf(t, cs, "spawn")
	if !alive(upstream) || !alive(grandchild) {
		t.Fatal("the upstream or its child is not running")
	}
	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if cmd.ProcessState == nil {
		t.Fatal("the proxy has not exited")
	}
	t.Logf("the proxy exited %v after the client left: %v", time.Since(start), cmd.ProcessState)
	waitFor(t, "the upstream and its child gone", func() bool { return !alive(upstream) && !alive(grandchild) })
}

// TestSignalled checks that a proxy told to stop stops its upstream.
func TestSignalled(t *testing.T) {
	cs, cmd := startBinary(t)
	upstream := pidOf(t, cs, "pid")
	grandchild := pidOf(t, cs, "spawn")
	cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, "the proxy, the upstream and its child gone", func() bool {
		return !alive(cmd.Process.Pid) && !alive(upstream) && !alive(grandchild)
	})
}

func TestCrashMidCall(t *testing.T) {
	cs, _ := startBinary(t)
	before := pidOf(t, cs, "pid")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crash"})
	msg := errText(t, res, err)
	for _, want := range []string{"stopped during the call of crash", "exit status 3", "crashing on purpose", "restarted"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the crash's error says %q, without %q", msg, want)
		}
	}
	waitFor(t, "a restarted upstream", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pid"})
		return err == nil && !res.IsError && texts(res)[0] != fmt.Sprint(before)
	})
}

func TestHang(t *testing.T) {
	cs, _ := startBinary(t, "-call-timeout", "1s")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 60_000}})
	if msg := errText(t, res, err); !strings.Contains(msg, "no answer to the call of sleep within 1s") {
		t.Errorf("hang: %q", msg)
	}
	// A client whose own timeout comes first gets its error, and the
	// upstream's call is cancelled all the same.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 60_000}})
	cancel()
	if err == nil {
		t.Error("the client's timeout: no error")
	}
	waitFor(t, "both calls cancelled upstream", func() bool { return mustCall(t, cs, "cancelled", nil) == "2" })
	if got := mustCall(t, cs, "echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("echo after the hangs: %q", got)
	}
}

func TestGarbage(t *testing.T) {
	cs, _ := startBinary(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "garbage"})
	if msg := errText(t, res, err); !strings.Contains(msg, "not JSON-RPC") {
		t.Errorf("garbage: %q", msg)
	}
	waitFor(t, "a restarted upstream", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ok"}})
		return err == nil && !res.IsError && texts(res)[0] == "ok"
	})
}

// TestHugeResult checks the two ends of a result over -max-result: one
// the proxy reads and refuses, and one whose frame it stops reading.
func TestHugeResult(t *testing.T) {
	args, mb := []string{"-max-result", "8MiB"}, 24
	if deeptest.On() {
		args, mb = nil, 200 // the default -max-result, 32 MiB
	}
	cs, _ := startBinary(t, args...)
	before := pidOf(t, cs, "pid")
	if !deeptest.On() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "huge", Arguments: map[string]any{"n": 12}})
		if msg := errText(t, res, err); !strings.Contains(msg, "too large") {
			t.Errorf("12 MB: %q", msg)
		}
		if pidOf(t, cs, "pid") != before {
			t.Error("a result refused restarted the upstream")
		}
	}
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "huge", Arguments: map[string]any{"n": mb}})
	msg := errText(t, res, err)
	if !strings.Contains(msg, "an answer over") {
		t.Errorf("%d MB: %q", mb, msg)
	}
	t.Logf("%d MB: isError after %v: %s", mb, time.Since(start), msg)
	waitFor(t, "a restarted upstream", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ok"}})
		return err == nil && !res.IsError && texts(res)[0] == "ok"
	})
}

// TestHTTPDownstream serves streamable HTTP with -http and stops on
// SIGTERM, its upstream with it.
func TestHTTPDownstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], proxyArgs("-http", addr)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var cs *mcp.ClientSession
	waitFor(t, "the HTTP server", func() bool {
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "codex-mcp-client"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
		return err == nil
	})
	defer cs.Close()
	upstream := pidOf(t, cs, "pid")
	if got := mustCall(t, cs, "echo", map[string]any{"text": "over HTTP"}); got != "over HTTP" {
		t.Errorf("echo: %q", got)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, "the proxy and the upstream gone", func() bool { return !alive(cmd.Process.Pid) && !alive(upstream) })
	cmd.Wait()
	if !strings.Contains(stderr.String(), "serving streamable HTTP") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestSpliced: over stdio, results passed whole reach the client as the
// upstream wrote them, calls in flight at once included.
func TestSpliced(t *testing.T) {
	ctx := context.Background()
	cs, _ := startBinary(t)
	dc, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(os.Args[0], roleUpstream)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			params := func() *mcp.CallToolParams {
				if i%2 == 0 {
					return &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("answer %d", i)}}
				}
				return &mcp.CallToolParams{Name: "records", Arguments: map[string]any{"n": 20 * i}}
			}
			want, err := dc.CallTool(ctx, params())
			if err != nil {
				t.Error(err)
				return
			}
			got, err := cs.CallTool(ctx, params())
			if err != nil {
				t.Error(err)
				return
			}
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			if !bytes.Equal(w, g) {
				t.Errorf("call %d: through bounded-mcp %.300s, from the upstream %.300s", i, g, w)
			}
		})
	}
	wg.Wait()
}

// TestSplicer: each stand-in a message names is replaced by its result,
// once; anything else is written as it came.
func TestSplicer(t *testing.T) {
	var out bytes.Buffer
	s := newSplicer(&out)
	a, b := s.standIn([]byte(`{"content":[{"type":"text","text":"a"}]}`)), s.standIn([]byte(`{"content":[]}`))
	unknown := splicePrefix + strings.Repeat("0", 32) + `"}}`
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n"},
		{`{"id":2,"result":` + string(a) + "}\n", `{"id":2,"result":{"content":[{"type":"text","text":"a"}]}}` + "\n"},
		{`{"id":2,"result":` + string(a) + "}\n", `{"id":2,"result":` + string(a) + "}\n"}, // taken once
		{`[{"id":3,"result":` + string(b) + `},{"id":4,"result":` + unknown + `}]`, `[{"id":3,"result":{"content":[]}},{"id":4,"result":` + unknown + `}]`},
		{`{"result":` + splicePrefix + `short"}}`, `{"result":` + splicePrefix + `short"}}`},
	} {
		out.Reset()
		if n, err := s.Write([]byte(tc.in)); err != nil || n != len(tc.in) || out.String() != tc.want {
			t.Errorf("Write(%s) = %d, %v: wrote %s, want %s", tc.in, n, err, out.String(), tc.want)
		}
	}
	if len(s.results) != 0 {
		t.Errorf("%d results still held", len(s.results))
	}
}
