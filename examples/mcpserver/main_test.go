package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/boundedkit/bounded"
)

// codeTree writes a small tree for search_code: 6 Go files of 90 lines.
func codeTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 6 {
		var b strings.Builder
		for l := range 90 {
			fmt.Fprintf(&b, "// file %d line %d: parse the token and check the budget\n", i, l)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// inProcess connects the SDK's client to the server through in-memory
// transports.
func inProcess(t *testing.T, cfg config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server, closeStore, err := newServer(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeStore() })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connect(t, ct)
}

func connect(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "0.0.1"}, nil)
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// subprocess builds the server and runs it as a stdio subprocess, as an
// MCP client would.
func subprocess(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return connect(t, &mcp.CommandTransport{Command: cmd})
}

type envelope struct {
	Results    []json.RawMessage  `json:"results"`
	Pagination bounded.PageInfo   `json:"pagination"`
	Truncated  bool               `json:"truncated"`
	Truncation bounded.Truncation `json:"truncation"`
	Hint       string             `json:"hint"`
	Next       json.RawMessage    `json:"next"`
	// ContentMetadata is get_note's line window.
	ContentMetadata *bounded.WindowInfo `json:"contentMetadata"`
}

// callTool calls a tool with raw JSON arguments and decodes the envelope
// in its text content.
func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) (envelope, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s(%s): %d content parts, want 1", name, args, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s(%s): tool error: %s", name, args, text)
	}
	var env envelope
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s(%s): not an envelope: %v\n%.1000s", name, args, err, text)
	}
	return env, text
}

// key identifies a result.
func key(t *testing.T, raw json.RawMessage) string {
	var r struct {
		ID, Name, SourceID, FilePath string
		StartLine                    int
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.FilePath != "" {
		return fmt.Sprintf("%s:%d", r.FilePath, r.StartLine)
	}
	return r.ID + r.Name + r.SourceID
}

// walk follows next from args to the last page, checking each response
// against the budget and its hint against next, and returns the keys of
// every result and the number of responses cut by the budget.
func walk(t *testing.T, cs *mcp.ClientSession, name, args string, budget int) (keys []string, cuts int) {
	t.Helper()
	for calls := 0; ; calls++ {
		if calls > 300 {
			t.Fatalf("%s: no end after 300 calls", name)
		}
		env, text := callTool(t, cs, name, args)
		if budget > 0 && utf8.RuneCountInString(text) > budget {
			t.Fatalf("%s(%s): %d characters, over the budget %d", name, args, utf8.RuneCountInString(text), budget)
		}
		for _, r := range env.Results {
			keys = append(keys, key(t, r))
		}
		if env.Truncated {
			cuts++
		}
		if env.Next == nil {
			if env.Pagination.HasMore {
				t.Fatalf("%s(%s): hasMore without next", name, args)
			}
			return keys, cuts
		}
		if !strings.Contains(env.Hint, "call "+name+"(") {
			t.Fatalf("%s(%s): hint %q names no next call", name, args, env.Hint)
		}
		args = string(env.Next)
	}
}

func exactlyOnce(t *testing.T, what string, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, k := range got {
		seen[k]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s: %q came %d times", what, k, n)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

var wantTools = []string{"get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "find_broken_links",
	"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes",
	"search_knowledge", "get_response_history", "search_code"}

// checkTools lists the tools and checks their input schemas.
func checkTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "arguments in next") {
		t.Errorf("the server's instructions do not say how to continue: %q", ins)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		schema, ok := tl.InputSchema.(map[string]any)
		if !ok || schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("%s: input schema %v", tl.Name, tl.InputSchema)
			continue
		}
		props := schema["properties"].(map[string]any)
		var paging []string
		switch {
		case props["page"] != nil:
			paging = []string{"page", "pageSize", "offset"}
		case props["limit"] != nil:
			paging = []string{"limit", "offset"}
		default:
			paging = []string{"maxLines", "lineOffset"}
		}
		for _, name := range append(paging, "budget") {
			p, _ := props[name].(map[string]any)
			if p["type"] != "integer" || p["minimum"] == nil || p["maximum"] == nil || p["default"] == nil {
				t.Errorf("%s: argument %s: %v; want an integer with minimum, maximum and default", tl.Name, name, p)
			}
		}
		if tl.Description == "" || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v", tl.Name, tl.Description, tl.Annotations)
		}
	}
	want := slices.Sorted(slices.Values(wantTools)) // the SDK lists tools by name
	if !slices.Equal(names, want) {
		t.Errorf("tools:\ngot  %q\nwant %q", names, want)
	}
}

// checkWalks walks whole result sets by following next, by page size and
// under budgets, against one read of each set.
func checkWalks(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	// The demo vault: 30 notes, 21 linking to Home.
	all, _ := walk(t, cs, "list_notes", `{"limit":200,"detail":"concise"}`, 0)
	if len(all) != 30 {
		t.Fatalf("list_notes: %d notes, want the demo vault's 30", len(all))
	}
	for _, size := range []int{1, 4, 7} {
		got, _ := walk(t, cs, "list_notes", fmt.Sprintf(`{"limit":%d,"detail":"concise"}`, size), 0)
		exactlyOnce(t, fmt.Sprintf("list_notes by %d", size), got, all)
	}
	got, cuts := walk(t, cs, "list_notes", `{"detail":"concise","budget":1200}`, 1200)
	exactlyOnce(t, "list_notes within 1,200 characters", got, all)
	if cuts == 0 {
		t.Error("list_notes within 1,200 characters: no response was cut")
	}

	linking, _ := walk(t, cs, "search_by_links", `{"hasLinksTo":["Home"],"limit":200}`, 0)
	if len(linking) != 21 {
		t.Errorf("search_by_links: %d notes link to Home, want 21", len(linking))
	}
	got, cuts = walk(t, cs, "search_by_links", `{"hasLinksTo":["Home"],"budget":3000}`, 3000)
	exactlyOnce(t, "search_by_links within 3,000 characters", got, linking)
	if cuts == 0 {
		t.Error("search_by_links within 3,000 characters: no response was cut")
	}

	// search_knowledge by 0-based page numbers, then cut by a budget and
	// continued by offset.
	entities, _ := walk(t, cs, "search_knowledge", `{"query":"a","pageSize":1000,"detail":"concise"}`, 0)
	if len(entities) < 20 {
		t.Fatalf("search_knowledge: %d entities", len(entities))
	}
	env, _ := callTool(t, cs, "search_knowledge", `{"query":"a","pageSize":7,"detail":"concise"}`)
	if want := `pages remain: call search_knowledge(query="a", detail="concise", page=1, pageSize=7) for the next.`; !strings.Contains(env.Hint, want) {
		t.Errorf("search_knowledge hint %q does not contain %q", env.Hint, want)
	}
	got, _ = walk(t, cs, "search_knowledge", `{"query":"a","pageSize":7,"detail":"concise"}`, 0)
	exactlyOnce(t, "search_knowledge by pages of 7", got, entities)
	got, cuts = walk(t, cs, "search_knowledge", `{"query":"a","budget":2500}`, 2500)
	exactlyOnce(t, "search_knowledge within 2,500 characters", got, entities)
	if cuts == 0 {
		t.Error("search_knowledge within 2,500 characters: no response was cut")
	}

	// Response history: 30 runs, 10 a call at most, bodies clipped.
	runs, _ := walk(t, cs, "get_response_history", `{"endpointId":"orders-api"}`, 0)
	if len(runs) != 30 || runs[0] != "orders-api-030" {
		t.Errorf("get_response_history: %d runs, first %q", len(runs), runs[0])
	}
	got, cuts = walk(t, cs, "get_response_history", `{"endpointId":"orders-api","limit":10,"budget":2500}`, 2500)
	exactlyOnce(t, "get_response_history within 2,500 characters", got, runs)
	if cuts == 0 {
		t.Error("get_response_history within 2,500 characters: no response was cut")
	}

	// Code search, most similar first, within a budget.
	chunks, _ := walk(t, cs, "search_code", `{"query":"parse token budget","limit":50,"detail":"concise","budget":40000}`, 0)
	if len(chunks) != 18 {
		t.Errorf("search_code: %d chunks, want 18 (6 files × 3)", len(chunks))
	}
	got, cuts = walk(t, cs, "search_code", `{"query":"parse token budget","detail":"concise","budget":2000}`, 2000)
	exactlyOnce(t, "search_code within 2,000 characters", got, chunks)
	if cuts == 0 {
		t.Error("search_code within 2,000 characters: no response was cut")
	}

	// A long note, window by window.
	env, _ = callTool(t, cs, "get_note", `{"id":"areas/engineering/incident-log","maxLines":100}`)
	if m := env.ContentMetadata; m == nil || m.TotalLines != 826 || m.ReturnedLines != 100 || m.NextOffset != 100 {
		t.Errorf("get_note window: %+v", env.ContentMetadata)
	}
}

// checkErrors checks that bad arguments come back as tool errors naming
// the argument, which an agent can read and correct.
func checkErrors(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	for _, c := range []struct{ tool, args, want string }{
		{"list_notes", `{"limit":-1}`, `argument "limit": -1 is below the minimum 1`},
		{"search_knowledge", `{"query":"a","pageSize":2.5}`, `argument "pageSize": 2.5 is not a whole number`},
		{"get_note", `{"id":"nope"}`, `not found`},
		{"get_notes", `{"ids":["a"],"colour":"red"}`, `argument "colour": unknown argument`},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s(%s): protocol error %v, want a tool error", c.tool, c.args, err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("%s(%s): isError %v, %q; want an error containing %q", c.tool, c.args, res.IsError, text, c.want)
		}
	}
	// A limit over the maximum is clamped and said so, not rejected.
	env, _ := callTool(t, cs, "list_notes", `{"limit":5000,"detail":"concise"}`)
	if !env.Pagination.Clamped || env.Pagination.Limit != 200 {
		t.Errorf("limit 5000: %+v; want clamped to 200", env.Pagination)
	}
}

func TestInProcess(t *testing.T) {
	cs := inProcess(t, config{db: filepath.Join(t.TempDir(), "b.db"), code: codeTree(t), mode: "balanced"})
	checkTools(t, cs)
	checkWalks(t, cs)
	checkErrors(t, cs)
}

func TestSubprocess(t *testing.T) {
	cs := subprocess(t, "-db", filepath.Join(t.TempDir(), "b.db"), "-code", codeTree(t))
	checkTools(t, cs)
	checkWalks(t, cs)
	checkErrors(t, cs)
}

func TestPrivateMode(t *testing.T) {
	cs := inProcess(t, config{code: codeTree(t), mode: "private"})
	for _, c := range []struct{ tool, args string }{
		{"get_note", `{"id":"projects/atlas/design"}`},
		{"search_knowledge", `{"query":"atlas"}`},
		{"get_response_history", `{"endpointId":"orders-api"}`},
		{"search_code", `{"query":"parse token"}`},
	} {
		_, text := callTool(t, cs, c.tool, c.args)
		for _, s := range []string{"Pages of 100 items", "Atlas is the new storage service", `"orders":`, "line 1: parse"} {
			if strings.Contains(text, s) {
				t.Errorf("private %s returns content %q", c.tool, s)
			}
		}
	}
}

// TestPostgres serves from Postgres (-pg) in a schema of its own; it needs
// BOUNDED_PG_DSN, as the adapter's tests do.
func TestPostgres(t *testing.T) {
	dsn := os.Getenv("BOUNDED_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("BOUNDED_PG_DSN is not set")
		}
		t.Skip("BOUNDED_PG_DSN is not set")
	}
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	schema := fmt.Sprintf("bounded_mcp_test_%d", time.Now().UnixNano())
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	// Registered first, so run last: after the server's store is closed.
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()

	cs := inProcess(t, config{pg: u.String(), code: codeTree(t), mode: "balanced"})
	checkTools(t, cs)
	checkWalks(t, cs)
}

// TestCursorHints walks list_notes and search_knowledge through a server
// started with -cursor-hints: next continues by cursor, and the walk
// returns every result once.
func TestCursorHints(t *testing.T) {
	cfg, err := parseFlags([]string{"-cursor-hints", "-code", "-"}, io.Discard)
	if err != nil || !cfg.cursorHints {
		t.Fatalf("parseFlags(-cursor-hints): %+v, %v", cfg, err)
	}
	cs := inProcess(t, cfg)
	env, _ := callTool(t, cs, "list_notes", `{"limit":3,"detail":"concise"}`)
	if !strings.Contains(string(env.Next), `"cursor":`) {
		t.Fatalf("list_notes next %s: want a cursor", env.Next)
	}
	for _, c := range []struct{ tool, whole, paged string }{
		{"list_notes", `{"limit":200,"detail":"concise"}`, `{"limit":3,"detail":"concise"}`},
		{"search_knowledge", `{"query":"a","pageSize":1000,"detail":"concise"}`, `{"query":"a","pageSize":4,"detail":"concise"}`},
	} {
		all, _ := walk(t, cs, c.tool, c.whole, 0)
		got, _ := walk(t, cs, c.tool, c.paged, 0)
		if !slices.Equal(all, got) || len(all) < 5 {
			t.Errorf("%s walked by cursor: %d results, the whole set %d:\ngot  %q\nwant %q", c.tool, len(got), len(all), got, all)
		}
	}
}
