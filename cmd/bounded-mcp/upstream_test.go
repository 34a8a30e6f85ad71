//lint:file-ignore SA1019 a proxy forwards what the protocol deprecates too: logging, sampling, roots.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The roles the test binary plays when run with one of these as its first
// argument.
const (
	roleUpstream = "test-upstream" // the Go upstream, over stdio
	roleProxy    = "test-proxy"    // bounded-mcp itself
)

// Record is one record of the records tool.
type Record struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	Body string `json:"body,omitempty"`
}

// Records is the records tool's structured output.
type Records struct {
	Records []Record `json:"records"`
}

func records(n, body int) Records {
	rs := make([]Record, n)
	for i := range rs {
		rs[i] = Record{ID: i, Name: fmt.Sprintf("record %d", i)}
		if body > 0 {
			rs[i].Body = strings.Repeat(fmt.Sprintf("b%d ", i%10), body)
		}
	}
	return Records{rs}
}

func textLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

// upstreamState is what the Go upstream's tools report about themselves.
type upstreamState struct {
	cancelled atomic.Int64 // calls of sleep that saw their context end
}

// newUpstream returns the Go upstream server the tests put the proxy in
// front of. outOfProcess enables the tools that end or corrupt the
// process (crash, garbage); in process, crash closes the session.
func newUpstream(st *upstreamState, outOfProcess bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "A server for the tests.",
		PageSize:     10,
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-1", req.Params.Argument.Value + "-2"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	type recArgs struct {
		N    int `json:"n"`
		Body int `json:"body,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "records", Description: "Returns n records."},
		func(ctx context.Context, req *mcp.CallToolRequest, in recArgs) (*mcp.CallToolResult, Records, error) {
			return nil, records(in.N, in.Body), nil
		})
	type nArgs struct {
		N int `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lines", Description: "Returns n lines of text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in nArgs) (*mcp.CallToolResult, any, error) {
			return text(textLines(in.N)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Returns n MB of text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in nArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat(strings.Repeat("x", 1023)+"\n", in.N<<10)), nil, nil
		})
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Starts a child process that sleeps, and returns its pid."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprint(cmd.Process.Pid)), nil, nil
		})
	type progArgs struct {
		Steps int `json:"steps"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress steps, then returns."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progArgs) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := range in.Steps {
				if tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i+1)})
				}
			}
			return text("done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Logs n messages."},
		func(ctx context.Context, req *mcp.CallToolRequest, in nArgs) (*mcp.CallToolResult, any, error) {
			for i := range in.N {
				req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "test", Data: fmt.Sprintf("message %d", i)})
			}
			return text("logged"), nil, nil
		})
	type sleepArgs struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps ms milliseconds, or until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sleepArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				st.cancelled.Add(1)
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cancelled", Description: "Counts the sleeps cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(st.cancelled.Load())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Ends the server in the middle of the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			if outOfProcess {
				fmt.Fprintln(os.Stderr, "test-upstream: crashing on purpose")
				os.Exit(3)
			}
			go req.Session.Close()
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Writes what is not JSON-RPC to stdout."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			if outOfProcess {
				os.Stdout.WriteString("this is not JSON-RPC\n")
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}}})
			if err != nil {
				return nil, nil, err
			}
			return text("model said: " + res.Content.(*mcp.TextContent).Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample_in_result", Description: "Asks the client's model within its result (multi round-trip)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["q"].(*mcp.CreateMessageWithToolsResult); ok && req.Params.RequestState == "asked" {
				return text("model said: " + r.Content[0].(*mcp.TextContent).Text), nil, nil
			}
			return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"q": &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}}}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "elicit", Description: "Asks the user."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: in.Text,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)})
			if err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("user said: %s %v", res.Action, res.Content["answer"])), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, " ")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds a tool named by its text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: in.Text}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
				return text("new"), nil, nil
			})
			return text("added"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Says resource test://r/0 changed."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://r/0"})
			return text("touched"), nil, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"]}}}}, nil
		})
	for i := range 25 {
		uri := fmt.Sprintf("test://r/%d", i)
		s.AddResource(&mcp.Resource{URI: uri, Name: fmt.Sprintf("r%d", i), MIMEType: "text/plain"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "resource " + uri}}}, nil
			})
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "template " + req.Params.URI}}}, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// runUpstream serves the Go upstream over stdio until stdin closes.
func runUpstream() {
	var st upstreamState
	if err := newUpstream(&st, true).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test-upstream:", err)
	}
}
