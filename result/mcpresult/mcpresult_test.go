package mcpresult_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

// Record is one of the 30,000 records a tool returns.
type Record struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Records is list_records' structured output.
type Records struct {
	Records []Record `json:"records"`
}

func records() Records {
	rs := make([]Record, 30_000)
	for i := range rs {
		rs[i] = Record{ID: i, Name: fmt.Sprintf("record %d", i), Email: fmt.Sprintf("r%d@example.com", i)}
	}
	return Records{rs}
}

// newServer returns a server written without bounded: list_records (a
// typed tool, structured output), dump (JSON in text), and small; plus an
// mcptools tool and one marked bounded.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "records"}, nil)
	all := records()
	mcp.AddTool(s, &mcp.Tool{Name: "list_records", Description: "Lists every record."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, Records, error) {
			return nil, all, nil
		})
	dump, _ := json.Marshal(all.Records)
	s.AddTool(&mcp.Tool{Name: "dump", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(dump)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "raw_dump", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: mcp.Meta{mcpresult.MetaBounded: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(dump)}}}, nil
		})
	mcptools.AddTool(s, &mcp.Tool{Name: "page_records", Description: "Pages the records."},
		mcptools.Options[Record]{Limits: bounded.Limits{Default: 2000, Max: 5000}, Budget: bounded.Budget{MaxChars: 500_000}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (bounded.Source[Record], error) {
			return bounded.FromSlice(all.Records), nil
		})
	return s
}

// connect serves s in process and returns a client session to it.
func connect(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

var budget = bounded.ClaudeCode()

// caller calls a tool: a session's CallTool, or a host Client's.
type caller func(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error)

// text returns the texts of a result's content, and their characters.
func text(res *mcp.CallToolResult) ([]string, int) {
	var out []string
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
			n += utf8.RuneCountInString(tc.Text)
		}
	}
	return out, n
}

// walkRecords calls tool, then read_result by next alone to the end, and
// checks that every record came once, in order, each answer within the
// budget.
func walkRecords(t testing.TB, call caller, tool, pointer string) (reads int) {
	t.Helper()
	ctx := context.Background()
	res, err := call(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", tool, err, res)
	}
	texts, chars := text(res)
	if chars > budget.LimitChars() {
		t.Fatalf("%s: %d characters, over %d", tool, chars, budget.LimitChars())
	}
	if len(texts) != 2 || !strings.Contains(texts[1], "read_result(") {
		t.Fatalf("%s: no note: %q", tool, texts)
	}
	var rep result.Report
	raw, _ := json.Marshal(res.Meta[mcpresult.MetaReport])
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Handle == "" {
		t.Fatalf("report: %s %v", raw, err)
	}
	// The preview's records.
	var got []Record
	var preview []byte
	if res.StructuredContent != nil {
		preview, _ = json.Marshal(res.StructuredContent)
		if preview[0] == '{' {
			var rs Records
			if err := json.Unmarshal(preview, &rs); err != nil {
				t.Fatal(err)
			}
			got = rs.Records
		}
	} else {
		json.Unmarshal([]byte(texts[0]), &got)
	}
	if len(got) == 0 || len(got) >= 30_000 {
		t.Fatalf("preview holds %d records", len(got))
	}
	next := rep.Next
	for next != nil {
		reads++
		var args map[string]any
		raw, _ := next.MarshalJSON()
		json.Unmarshal(raw, &args)
		if p, _ := args["pointer"].(string); p != pointer {
			t.Fatalf("read %d: pointer %q", reads, p)
		}
		res, err := call(ctx, &mcp.CallToolParams{Name: "read_result", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("read %s: %v %v", raw, err, res)
		}
		texts, chars := text(res)
		if chars > budget.LimitChars() {
			t.Fatalf("read %s: %d characters, over %d", raw, chars, budget.LimitChars())
		}
		var env struct {
			Results []Record     `json:"results"`
			Next    bounded.Args `json:"next"`
		}
		if err := json.Unmarshal([]byte(texts[0]), &env); err != nil {
			t.Fatal(err)
		}
		got = append(got, env.Results...)
		next = env.Next
	}
	want := records().Records
	if len(got) != len(want) {
		t.Fatalf("%d records read, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	return reads
}

func serve() *mcp.Server {
	s := newServer()
	mcpresult.Serve(s, result.New(result.NewMemory(result.Quota{}), result.Options{}), mcpresult.Options{Budget: budget,
		Tools: map[string]mcpresult.Tool{"skipped": {Skip: true}}})
	return s
}

func TestServeInProcess(t *testing.T) {
	cs := connect(t, serve())
	for _, tc := range []struct{ tool, pointer string }{{"list_records", "/records"}, {"dump", ""}} {
		t.Run(tc.tool, func(t *testing.T) {
			reads := walkRecords(t, cs.CallTool, tc.tool, tc.pointer)
			t.Logf("%s: %d reads", tc.tool, reads)
		})
	}
}

func TestLeftAlone(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, serve())
	for _, tool := range []string{"raw_dump", "page_records"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tool, err, res)
		}
		if _, cut := res.Meta[mcpresult.MetaReport]; cut {
			t.Errorf("%s was bounded", tool)
		}
		if _, chars := text(res); chars < budget.LimitChars() {
			t.Errorf("%s: %d characters: its own result, larger than the budget, is expected", tool, chars)
		}
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "read_result") {
		t.Errorf("tools: %v", names)
	}
}

func TestHostClient(t *testing.T) {
	cs := connect(t, newServer()) // a server without bounded
	c := mcpresult.NewClient(cs, result.New(result.NewMemory(result.Quota{}), result.Options{}), "user-1",
		mcpresult.Options{Budget: budget})
	if c.ReadTool().Name != "read_result" {
		t.Fatal(c.ReadTool().Name)
	}
	walkRecords(t, c.CallTool, "dump", "")
}

func TestReadErrors(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	b := result.New(result.NewMemory(result.Quota{}), result.Options{Now: func() time.Time { return now }})
	s := newServer()
	mcpresult.Serve(s, b, mcpresult.Options{Budget: budget})
	cs := connect(t, s)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dump", Arguments: map[string]any{"q": 1}})
	if err != nil {
		t.Fatal(err)
	}
	handle := res.Meta[mcpresult.MetaReport].(map[string]any)["handle"].(string)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
		at   time.Duration
	}{
		{"no handle", map[string]any{}, "takes handle", 0},
		{"unknown argument", map[string]any{"handle": handle, "x": 1}, "takes handle", 0},
		{"bad pointer", map[string]any{"handle": handle, "pointer": "x"}, "not a JSON Pointer", 0},
		{"missing pointer", map[string]any{"handle": handle, "pointer": "/99999999"}, "has no", 0},
		{"tampered", map[string]any{"handle": handle[:len(handle)-2] + "AA"}, "not one this server gave", 0},
		{"expired", map[string]any{"handle": handle}, `call dump with arguments {"q":1} again`, 2 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = time.Now().Add(tc.at)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_result", Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			texts, _ := text(res)
			if !res.IsError || !strings.Contains(strings.Join(texts, ""), tc.want) {
				t.Errorf("got %v %q, want an error saying %q", res.IsError, texts, tc.want)
			}
		})
	}
}

func TestResource(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, serve())
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dump"})
	if err != nil {
		t.Fatal(err)
	}
	// The link a client follows.
	link, ok := res.Content[len(res.Content)-1].(*mcp.ResourceLink)
	if !ok || link.URI != res.Meta[mcpresult.MetaReport].(map[string]any)["resource"] {
		t.Fatalf("no resource link to the whole result: %v", res.Content)
	}
	uri := link.URI
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(records().Records)
	if rr.Contents[0].Text != string(want) {
		t.Errorf("resource holds %d bytes, want %d", len(rr.Contents[0].Text), len(want))
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri + "x"}); err == nil {
		t.Error("a resource of an unknown handle read")
	}
}

// serverEnv makes the test binary a stdio server.
const serverEnv = "BOUNDED_MCPRESULT_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		if err := serve().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestServeStdio(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	walkRecords(t, cs.CallTool, "list_records", "/records")
}
