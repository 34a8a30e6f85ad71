package mcptoolstest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// recorder is a testing.TB that records failures instead of failing,
// and ends the goroutine on Fatal as testing does.
type recorder struct {
	*testing.T
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// run runs f with a recorder in a goroutine of its own, and returns the
// failures f reported.
func run(t *testing.T, f func(tb testing.TB)) string {
	r := &recorder{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return strings.Join(r.failed, "\n")
}

// envelope is a valid envelope of one result; next, when set, is its next.
func envelope(next string) string {
	e := `{"results":[{"id":1}],"pagination":{"total":2,"totalKind":"exact","limit":1,"offset":0,"returned":1,"hasMore":` +
		fmt.Sprint(next != "") + `},"truncated":false,"truncation":{"originalCount":1,"returnedCount":1,"estimatedChars":250,"limitChars":1000,"estimatedTokens":90,"limitTokens":350}`
	if next != "" {
		e += `,"hint":"call t(offset=1)","next":` + next
	}
	return e + "}"
}

var schema = map[string]any{"type": "object"}

// server serves the tool t, which answers every call with text and
// structured content (nil: the text's JSON).
func server(text string, structured any) *mcp.Server {
	if structured == nil {
		structured = json.RawMessage(text)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "broken"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: schema, OutputSchema: map[string]any{"type": "object", "required": []string{"results"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}, nil
		})
	return s
}

// TestCatches: each check fails a server or a walk that breaks it.
func TestCatches(t *testing.T) {
	good := envelope("")
	for _, c := range []struct {
		name, want string
		check      func(tb testing.TB)
	}{
		{"nothing wrong", "", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(good, nil)).Call("t", `{}`)
		}},
		{"text and structuredContent differ", "structuredContent differs from the text", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(good, map[string]any{"results": []any{}})).Call("t", `{}`)
		}},
		{"output schema", "fails the output schema", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(`{"truncated":false}`, nil)).Call("t", `{}`)
		}},
		{"not an envelope", "not an envelope", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(`{"results":[],"colour":1}`, nil)).Call("t", `{}`)
		}},
		{"over its limit", "over its limit 1000", func(tb testing.TB) {
			long := strings.Replace(good, `"results":[{"id":1}]`, `"results":[{"id":"`+strings.Repeat("x", 1000)+`"}]`, 1)
			mcptoolstest.Serve(tb, server(long, nil)).Call("t", `{}`)
		}},
		{"no tool error", "want a tool error", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(good, nil)).Error("t", `{}`)
		}},
		{"walk over budget", "over the budget 100", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(good, nil)).Walk("t", `{}`, 100, nil)
		}},
		{"walk without end", "no end after 500 calls", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(envelope(`{"offset":1}`), nil)).Walk("t", `{}`, 0, nil)
		}},
		{"hasMore without next", "hasMore without next", func(tb testing.TB) {
			e := strings.Replace(good, `"hasMore":false`, `"hasMore":true`, 1)
			mcptoolstest.Serve(tb, server(e, nil)).Walk("t", `{}`, 0, nil)
		}},
		{"by cursor without a cursor", "next without a nextCursor", func(tb testing.TB) {
			mcptoolstest.Serve(tb, server(envelope(`{"offset":1}`), nil)).WalkByCursor("t", `{}`, 0, nil)
		}},
		{"twice", `"b" came twice`, func(tb testing.TB) {
			mcptoolstest.ExactlyOnce(tb, "walk", []string{"a", "b", "b"}, []string{"a", "b"})
		}},
		{"missing", "of the results there throughout", func(tb testing.TB) {
			mcptoolstest.ExactlyOnce(tb, "walk", []string{"a", "new"}, []string{"a", "b"})
		}},
		{"out of order", "of the results there throughout", func(tb testing.TB) {
			mcptoolstest.ExactlyOnce(tb, "walk", []string{"b", "a"}, []string{"a", "b"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := run(t, c.check)
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Errorf("failures %q, want %q", got, c.want)
			}
		})
	}
}

func TestWithArg(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, `{"cursor":"c"}`},
		{`{"a":1,"cursor":"old","b":[1]}`, `{"a":1,"b":[1],"cursor":"c"}`},
	} {
		if got := mcptoolstest.WithArg(t, c.args, "cursor", "c"); got != c.want {
			t.Errorf("WithArg(%s): %s, want %s", c.args, got, c.want)
		}
	}
}
