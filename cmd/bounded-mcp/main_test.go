package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case roleUpstream:
			runUpstream()
			os.Exit(0)
		case roleProxy:
			os.Exit(runMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// inMemory dials a server in this process; each dial is a new session.
func inMemory(s *mcp.Server) dialer {
	return func(ctx context.Context) (mcp.Transport, *process, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, nil, err
		}
		return ct, nil, nil
	}
}

// testConfig is the config of a proxy in process, snapshots in memory.
func testConfig(dial dialer) config {
	return config{
		dial:        dial,
		profiles:    profile.Default(),
		tools:       map[string]toolPolicy{},
		bounder:     result.New(result.NewMemory(result.Quota{}), result.Options{}),
		callTimeout: 30 * time.Second,
		backoff:     50 * time.Millisecond,
		logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// startProxy starts a proxy in process, closed when t ends.
func startProxy(t testing.TB, cfg config) *proxy {
	t.Helper()
	p, err := newProxy(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}

// connect connects a client named name to the proxy's server in process.
func connect(t testing.TB, s *mcp.Server, name string, opts *mcp.ClientOptions, so *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, ct, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// legacyProtocol is the protocol a client with a session speaks.
var legacyProtocol = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// caller calls a tool.
type caller func(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error)

// texts returns the texts of a result's text blocks.
func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

// checkFits fails t unless res keeps to prof: characters and tokens as
// its budget counts them (the structured content once, when a text block
// mirrors it), lines and bytes.
func checkFits(t testing.TB, what string, prof profile.Profile, res *mcp.CallToolResult) {
	t.Helper()
	ts := texts(res)
	var all []string
	mirrored := false
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		for _, s := range ts {
			if s == string(b) {
				mirrored = true
			}
		}
		if !mirrored {
			all = append(all, string(b))
		}
	}
	all = append(all, ts...)
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			all = append(all, l.URI+l.Name+l.Title+l.Description)
		}
	}
	chars, tokens := 0, 0
	for _, s := range all {
		chars += utf8.RuneCountInString(s)
		tokens += prof.Budget.CountTokens(s)
	}
	if chars > prof.Budget.LimitChars() || tokens > prof.Budget.LimitTokens() || !prof.Fits(ts...) {
		lines := 0
		for _, s := range ts {
			lines += strings.Count(s, "\n") + 1
		}
		t.Fatalf("%s: %d characters, %d tokens, %d lines, %d bytes: over %s", what, chars, tokens, lines, len(strings.Join(ts, "")), prof.Describe())
	}
}

// report returns the report of a bounded result, or nil when it passed
// whole.
func report(t testing.TB, res *mcp.CallToolResult) *result.Report {
	t.Helper()
	v, ok := res.Meta[mcpresult.MetaReport]
	if !ok {
		return nil
	}
	raw, _ := json.Marshal(v)
	var rep result.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report %s: %v", raw, err)
	}
	return &rep
}

// marker is the visible marker of a clipped text.
var marker = regexp.MustCompile(`…\[truncated [0-9,]+ chars\]$`)

// read is what a walk read of one value: its elements, or its text.
type read struct {
	items []json.RawMessage
	text  string
}

// walk follows next from the bounded result res to the end, each answer
// within prof, and returns what it read by JSON Pointer, and the reads.
// A read that repeats one made before fails t.
func walk(t testing.TB, call caller, prof profile.Profile, res *mcp.CallToolResult) (map[string]*read, int) {
	t.Helper()
	rep := report(t, res)
	if rep == nil {
		return nil, 0
	}
	if rep.Handle == "" {
		t.Fatalf("the snapshot was not kept: %s", rep.NotKept)
	}
	got := map[string]*read{}
	seen := map[string]bool{}
	next := rep.Next
	reads := 0
	for next != nil {
		reads++
		raw, _ := next.MarshalJSON()
		if seen[string(raw)] {
			t.Fatalf("read %s repeats", raw)
		}
		seen[string(raw)] = true
		var args map[string]any
		json.Unmarshal(raw, &args)
		ans, err := call(context.Background(), &mcp.CallToolParams{Name: result.DefaultReadTool, Arguments: args})
		if err != nil || ans.IsError {
			t.Fatalf("read_result(%s): %v %v", raw, err, texts(ans))
		}
		checkFits(t, "read_result("+string(raw)+")", prof, ans)
		var env struct {
			Results []json.RawMessage `json:"results"`
			Next    bounded.Args      `json:"next"`
			Content *struct{}         `json:"contentMetadata"`
		}
		if err := json.Unmarshal([]byte(texts(ans)[0]), &env); err != nil {
			t.Fatalf("answer of %s: %v", raw, err)
		}
		ptr, _ := args["pointer"].(string)
		r := got[ptr]
		if r == nil {
			r = &read{}
			got[ptr] = r
		}
		_, lineRead := args["lineOffset"]
		_, charRead := args["charOffset"]
		if env.Content != nil || lineRead || charRead {
			var s string
			if len(env.Results) != 1 || json.Unmarshal(env.Results[0], &s) != nil {
				t.Fatalf("text answer of %s: %.200s", raw, texts(ans)[0])
			}
			if env.Next != nil {
				s = marker.ReplaceAllString(s, "")
			}
			r.text += s
		} else {
			r.items = append(r.items, env.Results...)
		}
		next = env.Next
	}
	return got, reads
}

// checkWhole fails t unless the preview res and what a walk read make up
// orig, the result the upstream gave, byte for byte: each cut value's
// shown part and read part, in order, are the original value.
func checkWhole(t testing.TB, orig, res *mcp.CallToolResult, got map[string]*read) {
	t.Helper()
	rep := report(t, res)
	if rep == nil {
		if !equalResults(orig, res) {
			t.Fatal("a result that passed whole differs from the upstream's")
		}
		return
	}
	for _, c := range rep.Cuts {
		want := valueAt(t, orig, c.Pointer, false)
		shown := valueAt(t, res, c.Pointer, true)
		r := got[c.Pointer]
		if r == nil {
			t.Fatalf("cut %q (%s, %d of %d) was not read", c.Pointer, c.Kind, c.Kept, c.Total)
		}
		switch c.Kind {
		case result.CutString:
			var w, s string
			json.Unmarshal(want, &w)
			json.Unmarshal(shown, &s)
			s = marker.ReplaceAllString(s, "")
			if s+r.text != w {
				t.Fatalf("cut %q: shown %d and read %d characters differ from the %d of the original", c.Pointer,
					utf8.RuneCountInString(s), utf8.RuneCountInString(r.text), utf8.RuneCountInString(w))
			}
		case result.CutArray:
			var w, s []json.RawMessage
			json.Unmarshal(want, &w)
			json.Unmarshal(shown, &s)
			all := append(s, r.items...)
			if len(all) != len(w) {
				t.Fatalf("cut %q: %d shown and %d read, want %d", c.Pointer, len(s), len(r.items), len(w))
			}
			for i := range w {
				if !bytes.Equal(compact(all[i]), compact(w[i])) {
					t.Fatalf("cut %q: element %d is %.100s, want %.100s", c.Pointer, i, all[i], w[i])
				}
			}
		default:
			t.Fatalf("cut %q of kind %s", c.Pointer, c.Kind)
		}
	}
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	json.Compact(&out, b)
	return out.Bytes()
}

func equalResults(a, b *mcp.CallToolResult) bool {
	ja, _ := json.Marshal(a.Content)
	jb, _ := json.Marshal(b.Content)
	sa, _ := json.Marshal(a.StructuredContent)
	sb, _ := json.Marshal(b.StructuredContent)
	return bytes.Equal(ja, jb) && bytes.Equal(compact(sa), compact(sb))
}

// valueAt returns the JSON value at ptr in res: in its structured
// content (under /structuredContent when it has text blocks too), or
// (for /content/i/text...) in a text block, parsed as JSON past the text;
// "" in a result of one text block is that text.
func valueAt(t testing.TB, res *mcp.CallToolResult, ptr string, preview bool) json.RawMessage {
	t.Helper()
	var doc any
	ts := texts(res)
	switch {
	case strings.HasPrefix(ptr, "/structuredContent"):
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &doc)
		ptr = strings.TrimPrefix(ptr, "/structuredContent")
	case strings.HasPrefix(ptr, "/content/"):
		rest := strings.TrimPrefix(ptr, "/content/")
		idx, tail, _ := strings.Cut(rest, "/")
		i, _ := strconv.Atoi(idx)
		txt := res.Content[i].(*mcp.TextContent).Text
		tail = strings.TrimPrefix(tail, "text")
		if tail == "" {
			b, _ := json.Marshal(txt)
			return b
		}
		if err := json.Unmarshal([]byte(txt), &doc); err != nil {
			t.Fatalf("%q: block %d is not JSON: %v", ptr, i, err)
		}
		ptr = tail
	case res.StructuredContent != nil:
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &doc)
	case ptr == "" && (len(ts) == 1 || preview && len(ts) == 2):
		b, _ := json.Marshal(ts[0])
		return b
	default:
		if err := json.Unmarshal([]byte(ts[0]), &doc); err != nil {
			t.Fatalf("%q: no JSON to look in", ptr)
		}
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			doc = v[i]
		default:
			t.Fatalf("%q: %q inside a scalar", ptr, tok)
		}
	}
	b, _ := json.Marshal(doc)
	return b
}

// walkWhole calls a tool through call, checks the result within prof and
// every read within readProf, walks it to the end, and checks the whole
// against orig, the upstream's own result. It returns the reads.
func walkWhole(t testing.TB, call caller, prof, readProf profile.Profile, orig *mcp.CallToolResult, params *mcp.CallToolParams) int {
	t.Helper()
	// The SDK's client adds to the _meta of the params it sends.
	own := *params
	own.Meta = maps.Clone(params.Meta)
	res, err := call(context.Background(), &own)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", params.Name, err, res)
	}
	checkFits(t, params.Name, prof, res)
	got, reads := walk(t, call, readProf, res)
	checkWhole(t, orig, res, got)
	return reads
}

// errText returns the text of an isError result, or fails t.
func errText(t testing.TB, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("protocol error %v, want an isError result", err)
	}
	if !res.IsError {
		t.Fatalf("want an isError result, got %.200q", texts(res))
	}
	return strings.Join(texts(res), " ")
}

func mustCall(t testing.TB, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s(%v): %v %v", name, args, err, res)
	}
	return strings.Join(texts(res), "\n")
}
