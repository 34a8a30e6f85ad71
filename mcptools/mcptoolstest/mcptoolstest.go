// Package mcptoolstest checks a server of bounded tools through the
// official MCP SDK's client: every schema compiles, every result passes
// its tool's output schema and carries the same envelope as text and as
// structuredContent, and following next walks a result set to its end
// within the budget.
//
//	c := mcptoolstest.Serve(t, server)
//	env, _ := c.Call("list_runs", `{"status":"failed"}`)
//	results, cuts := c.Walk("list_runs", `{"budget":2000}`, 2000, nil)
//	results, cuts = c.WalkByCursor("list_runs", `{"budget":2000}`, 2000, insertAndDelete)
package mcptoolstest

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
)

// Client is the SDK's client connected to a server, with the server's
// tools and their schemas, compiled. Its methods fail the test on a
// protocol error.
type Client struct {
	T       testing.TB
	Session *mcp.ClientSession
	// Tools are the server's tools by name, as tools/list gave them.
	Tools map[string]*mcp.Tool
	in    map[string]*jsonschema.Resolved
	out   map[string]*jsonschema.Resolved
}

// Serve serves server in memory and connects a client to it; both close
// when the test ends.
func Serve(t testing.TB, server *mcp.Server) *Client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return Connect(t, ct)
}

// Connect connects a client over transport (an mcp.CommandTransport, say),
// lists the tools and compiles their input and output schemas, failing
// the test when one is missing or does not compile. The session closes
// when the test ends.
func Connect(t testing.TB, transport mcp.Transport) *Client {
	t.Helper()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcptoolstest", Version: "0.0.1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c := &Client{T: t, Session: cs, Tools: map[string]*mcp.Tool{}, in: map[string]*jsonschema.Resolved{}, out: map[string]*jsonschema.Resolved{}}
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		c.Tools[tl.Name] = tl
		c.in[tl.Name] = compile(t, tl.Name+" input", tl.InputSchema)
		c.out[tl.Name] = compile(t, tl.Name+" output", tl.OutputSchema)
	}
	return c
}

// compile compiles a schema as a client receives it.
func compile(t testing.TB, what string, schema any) *jsonschema.Resolved {
	t.Helper()
	if schema == nil {
		t.Fatalf("%s schema: none", what)
	}
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s schema: %v\n%s", what, err, b)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("%s schema does not compile: %v\n%s", what, err, b)
	}
	return r
}

// Envelope is a bounded response as an agent reads it.
type Envelope struct {
	Results         []json.RawMessage   `json:"results"`
	Pagination      bounded.PageInfo    `json:"pagination"`
	Truncated       bool                `json:"truncated"`
	Truncation      bounded.Truncation  `json:"truncation"`
	Hint            string              `json:"hint"`
	Next            json.RawMessage     `json:"next"`
	NextKeeps       []string            `json:"nextKeeps"`
	ContentMetadata *bounded.WindowInfo `json:"contentMetadata"`
}

// NextArgs is the JSON arguments of the call after env, the response to a
// call with args: the arguments env's next keeps (nextKeeps), as args had
// them, then next.
func NextArgs(t testing.TB, env Envelope, args string) string {
	t.Helper()
	if len(env.NextKeeps) == 0 {
		return string(env.Next)
	}
	var given, next bounded.Args
	if err := json.Unmarshal([]byte(args), &given); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(env.Next, &next); err != nil {
		t.Fatal(err)
	}
	var out bounded.Args
	for _, a := range given {
		if slices.Contains(env.NextKeeps, a.Name) {
			out = append(out, a)
		}
	}
	b, err := append(out, next...).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Raw calls a tool with the JSON arguments args and returns its result,
// which must have one content part.
func (c *Client) Raw(name, args string) *mcp.CallToolResult {
	c.T.Helper()
	res, err := c.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		c.T.Fatalf("%s(%s): protocol error %v, want a tool result", name, args, err)
	}
	if len(res.Content) != 1 {
		c.T.Fatalf("%s(%s): %d content parts, want 1", name, args, len(res.Content))
	}
	return res
}

// Text is a result's text: its one content part.
func Text(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

// Call calls a tool and returns its envelope and text. The arguments must
// pass the tool's input schema, and the call must succeed with a result
// that passes the output schema, whose structuredContent is the text's
// JSON, an envelope of no other keys, within its truncation.limitChars.
func (c *Client) Call(name, args string) (Envelope, string) {
	c.T.Helper()
	var a any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		c.T.Fatalf("%s(%s): %v", name, args, err)
	}
	if in := c.in[name]; in == nil {
		c.T.Fatalf("%s: no such tool", name)
	} else if err := in.Validate(a); err != nil {
		c.T.Errorf("%s(%s): the arguments fail the input schema: %v", name, args, err)
	}
	res := c.Raw(name, args)
	out := Text(res)
	if res.IsError {
		c.T.Fatalf("%s(%s): tool error: %s", name, args, out)
	}
	if err := c.out[name].Validate(res.StructuredContent); err != nil {
		c.T.Errorf("%s(%s): the result fails the output schema: %v\n%.2000s", name, args, err, out)
	}
	var fromText any
	if err := json.Unmarshal([]byte(out), &fromText); err != nil {
		c.T.Fatalf("%s(%s): the text is not JSON: %v", name, args, err)
	}
	if !reflect.DeepEqual(fromText, res.StructuredContent) {
		c.T.Errorf("%s(%s): structuredContent differs from the text:\n%v\n%s", name, args, res.StructuredContent, out)
	}
	var env Envelope
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		c.T.Fatalf("%s(%s): not an envelope: %v\n%.1000s", name, args, err, out)
	}
	if n := utf8.RuneCountInString(out); n > env.Truncation.LimitChars {
		c.T.Errorf("%s(%s): %d characters, over its limit %d", name, args, n, env.Truncation.LimitChars)
	}
	return env, out
}

// Error calls a tool that must fail with a tool error (isError), and
// returns the error's text.
func (c *Client) Error(name, args string) string {
	c.T.Helper()
	res := c.Raw(name, args)
	if !res.IsError {
		c.T.Errorf("%s(%s): %.300s; want a tool error", name, args, Text(res))
	}
	return Text(res)
}

// Walk calls a tool with args, then with each response's next until one
// has none, calling between (when set) after each response that has
// one, and returns the results in order and the number of responses a
// budget cut. Each response must be within budget characters (when
// budget > 0), have next when it has more, and a hint naming the call.
// A walk of over 500 calls fails.
func (c *Client) Walk(name, args string, budget int, between func()) (results []json.RawMessage, cuts int) {
	c.T.Helper()
	for calls := 0; ; calls++ {
		if calls > 500 {
			c.T.Fatalf("%s: no end after 500 calls", name)
		}
		env, cut := c.step(name, args, budget)
		results = append(results, env.Results...)
		if cut {
			cuts++
		}
		if env.Next == nil {
			return results, cuts
		}
		if between != nil {
			between()
		}
		args = NextArgs(c.T, env, args)
	}
}

// WalkByCursor is [Client.Walk] by cursor from the first response on: it
// calls the tool with args, then with args and the response's nextCursor
// (as an agent paging deep or over changing data does), and follows next
// from there. The first response must have a nextCursor when it has next.
func (c *Client) WalkByCursor(name, args string, budget int, between func()) (results []json.RawMessage, cuts int) {
	c.T.Helper()
	env, cut := c.step(name, args, budget)
	if cut {
		cuts++
	}
	if env.Next == nil {
		return env.Results, cuts
	}
	if env.Pagination.NextCursor == "" {
		c.T.Fatalf("%s(%s): next without a nextCursor", name, args)
	}
	if between != nil {
		between()
	}
	rest, n := c.Walk(name, WithArg(c.T, args, "cursor", env.Pagination.NextCursor), budget, between)
	return append(env.Results, rest...), cuts + n
}

// step is one call of a walk: its envelope, and whether a budget cut it.
func (c *Client) step(name, args string, budget int) (Envelope, bool) {
	c.T.Helper()
	env, out := c.Call(name, args)
	if n := utf8.RuneCountInString(out); budget > 0 && n > budget {
		c.T.Fatalf("%s(%s): %d characters, over the budget %d", name, args, n, budget)
	}
	switch {
	case env.Next == nil && env.Pagination.HasMore:
		c.T.Fatalf("%s(%s): hasMore without next", name, args)
	case env.Next != nil && !strings.Contains(env.Hint, "call "+name+"("):
		c.T.Errorf("%s(%s): hint %q names no next call", name, args, env.Hint)
	}
	return env, env.Truncation.Reason != ""
}

// WithArg returns the JSON object args with the argument name set to v,
// after the others.
func WithArg(t testing.TB, args, name string, v any) string {
	t.Helper()
	var a bounded.Args
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		t.Fatal(err)
	}
	out := bounded.Args{}
	for _, arg := range a {
		if arg.Name != name {
			out = append(out, arg)
		}
	}
	b, err := json.Marshal(append(out, bounded.Arg{Name: name, Value: v}))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ExactlyOnce checks the keys a walk returned against want, the keys of
// the items there throughout the walk, in order: no key twice, and those
// of want once each, in want's order. Other keys (items written during
// the walk) may come or not.
func ExactlyOnce(t testing.TB, what string, got, want []string) {
	t.Helper()
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
	}
	seen := map[string]int{}
	var kept []string
	for _, g := range got {
		if seen[g]++; seen[g] == 2 {
			t.Errorf("%s: %q came twice", what, g)
		}
		if wanted[g] {
			kept = append(kept, g)
		}
	}
	if !slices.Equal(kept, want) {
		t.Errorf("%s: of the results there throughout,\ngot  %q\nwant %q", what, kept, want)
	}
}
