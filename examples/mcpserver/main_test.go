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
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tokenizer"
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

// inProcess serves cfg in memory to the SDK's client once its data is
// loaded, and returns the client and the server's store. Without -db or
// -pg, the database is in a temporary folder of t.
func inProcess(t *testing.T, cfg config) (*mcptoolstest.Client, *opened) {
	t.Helper()
	if cfg.db == "" && cfg.pg == "" {
		cfg.db = filepath.Join(t.TempDir(), "b.db")
	}
	srv := newTestServer(t, cfg)
	<-srv.load.done
	if err := srv.load.importErr; err != nil {
		t.Fatal(err)
	}
	return mcptoolstest.Serve(t, srv.mcp), srv.st
}

// newTestServer starts the server of cfg, stopped when the test ends.
func newTestServer(t *testing.T, cfg config) *server {
	t.Helper()
	srv, err := newServer(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// build builds the server into a temporary directory of t.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		// As the tests are built: the packages are built already.
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// start runs the server bin as a stdio subprocess, as an MCP client
// would, with env added to the environment, and connects to it once it
// says on stderr that its data is loaded.
func start(t *testing.T, bin string, env []string, args ...string) *mcptoolstest.Client {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr := newLines("mcpserver: loading done")
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	c := mcptoolstest.Connect(t, &mcp.CommandTransport{Command: cmd})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	select {
	case <-stderr.seen:
	case <-ctx.Done():
		t.Fatalf("the server did not load its data: %v", ctx.Err())
	}
	return c
}

// lines collects what a process writes, and closes seen when a line
// holding want has come.
type lines struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
	done bool
}

func newLines(want string) *lines { return &lines{want: want, seen: make(chan struct{})} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.done && strings.Contains(l.buf.String(), l.want+"\n") {
		l.done = true
		close(l.seen)
	}
	return len(p), nil
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// key identifies a result of any tool.
func key(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		ID                  json.RawMessage
		Name, SourceID      string
		Category            string
		FilePath            string
		StartLine, Position int
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case r.FilePath != "":
		return fmt.Sprintf("%s:%d", r.FilePath, r.StartLine)
	case r.SourceID != "":
		return fmt.Sprintf("%s %s %d", r.SourceID, r.Category, r.Position)
	case r.Name != "":
		return r.Name
	}
	return string(r.ID)
}

func keys(t *testing.T, results []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		out = append(out, key(t, r))
	}
	return out
}

var wantTools = []string{"get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "find_broken_links",
	"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes",
	"search_knowledge", "get_response_history", "search_code", "list_deploys"}

// checkTools checks the tools listed (their schemas compiled when the
// client connected): paging arguments with their bounds, the size hint of
// a response of chars characters, and read-only annotations. It logs the
// size of tools/list.
func checkTools(t *testing.T, c *mcptoolstest.Client, chars int) {
	t.Helper()
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range c.Tools {
			if !yield(name) {
				return
			}
		}
	})
	if want := slices.Sorted(slices.Values(wantTools)); !slices.Equal(names, want) {
		t.Errorf("tools:\ngot  %q\nwant %q", names, want)
	}
	for _, name := range names {
		tl := c.Tools[name]
		props, _ := tl.InputSchema.(map[string]any)["properties"].(map[string]any)
		var paging []string
		switch {
		case props["page"] != nil:
			paging = []string{"page", "pageSize", "offset"}
		case props["limit"] != nil:
			paging = []string{"limit", "offset"}
		default:
			paging = []string{"maxLines", "lineOffset"}
		}
		// Sizes have a minimum, a maximum and a default; offsets a minimum
		// (their default is 0); budgets a minimum and a maximum.
		for _, arg := range append(paging, "budget", "budgetTokens") {
			p, _ := props[arg].(map[string]any)
			size := arg == "limit" || arg == "pageSize" || arg == "maxLines"
			offset := arg == "offset" || arg == "page" || arg == "lineOffset"
			if p["type"] != "integer" || p["minimum"] == nil || !offset && p["maximum"] == nil || size && p["default"] == nil {
				t.Errorf("%s: argument %s: %v; want an integer with a minimum, and a maximum and default as its kind has", name, arg, p)
			}
		}
		if got := tl.Meta[mcptools.MetaMaxResultSizeChars]; got != float64(chars) {
			t.Errorf("%s: _meta %s %v, want %d", name, mcptools.MetaMaxResultSizeChars, got, chars)
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s: no output schema", name)
		}
	}
	res, err := c.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var schemas int
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.OutputSchema)
		schemas += len(b)
	}
	o200k, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d tools, %d bytes, %d o200k tokens; output schemas %d bytes", len(res.Tools), len(list), o200k.CountTokens(string(list)), schemas)
}

// checkEveryTool calls every tool once.
func checkEveryTool(t *testing.T, c *mcptoolstest.Client) {
	t.Helper()
	calls := map[string]string{
		"get_note": `{"id":"projects/atlas/design","maxLines":5}`, "get_notes": `{"ids":["Home","Inbox"]}`,
		"list_notes": `{"limit":3}`, "search_notes": `{"query":"the","limit":3}`, "search_by_links": `{"hasLinksTo":["Home"],"limit":3}`,
		"find_broken_links": `{}`, "get_note_links": `{"id":"Home","limit":3}`, "get_backlinks": `{"id":"Home","limit":3}`,
		"get_children": `{"id":"journal"}`, "get_parents": `{"id":"projects/atlas/design"}`, "get_descendants": `{"id":"projects"}`,
		"get_related_notes": `{"id":"projects/atlas/design","limit":3}`, "search_knowledge": `{"query":"atlas"}`,
		"get_response_history": `{"endpointId":"billing-api"}`, "search_code": `{"query":"parse token","limit":2}`,
		"list_deploys": `{"service":"web","status":"failed"}`,
	}
	for _, name := range wantTools {
		env, _ := c.Call(name, calls[name])
		if len(env.Results) == 0 {
			t.Errorf("%s(%s): no results", name, calls[name])
		}
	}
}

// walks are a walk by next of every paged tool under a tight budget,
// against one read of the whole set: whole reads it all, paged walks it
// in small pages, within budget characters, cut at least once when cut is
// set.
var walks = []struct {
	tool, whole, paged string
	budget, want       int
	cut                bool
}{
	{"get_notes", `{"ids":["Home","Inbox","people/ada","people/grace","people/linus","journal"],"limit":100}`, `{"ids":["Home","Inbox","people/ada","people/grace","people/linus","journal"],"budget":2500}`, 2500, 6, true},
	{"list_notes", `{"limit":200,"detail":"concise"}`, `{"detail":"concise","budget":1200}`, 1200, 30, true},
	{"search_notes", `{"query":"the","limit":100}`, `{"query":"the","limit":4,"budget":2000}`, 2000, 21, true},
	{"search_by_links", `{"hasLinksTo":["Home"],"limit":200}`, `{"hasLinksTo":["Home"],"budget":3000}`, 3000, 21, true},
	{"find_broken_links", `{"limit":200}`, `{"limit":1,"budget":1000}`, 1000, 1, false},
	{"get_note_links", `{"id":"Home","limit":200}`, `{"id":"Home","budget":1500}`, 1500, 33, true},
	{"get_backlinks", `{"id":"Home","limit":200}`, `{"id":"Home","budget":2500}`, 2500, 21, true},
	{"get_children", `{"id":"journal","limit":200}`, `{"id":"journal","limit":2,"budget":1000}`, 1000, 5, false},
	{"get_parents", `{"id":"projects/atlas/design","limit":200}`, `{"id":"projects/atlas/design","limit":1,"budget":1000}`, 1000, 1, false},
	// A cursor costs tokens: at 1,000 characters (357 tokens) a note of
	// depth 2 fits only clipped by offset, not by cursor.
	{"get_descendants", `{"id":"projects","limit":200}`, `{"id":"projects","limit":3,"budget":1100}`, 1100, 0, true},
	{"get_related_notes", `{"id":"projects/atlas/design","limit":200}`, `{"id":"projects/atlas/design","budget":2000}`, 2000, 26, true},
	{"search_knowledge", `{"query":"a","pageSize":1000,"detail":"concise"}`, `{"query":"a","budget":2500}`, 2500, 0, true},
	{"get_response_history", `{"endpointId":"orders-api"}`, `{"endpointId":"orders-api","limit":10,"budget":2500}`, 2500, 30, true},
	{"search_code", `{"query":"parse token budget","limit":50,"detail":"concise","budget":40000}`, `{"query":"parse token budget","detail":"concise","budget":2000}`, 2000, 18, true},
	{"list_deploys", `{"limit":100}`, `{"limit":9,"budget":1200}`, 1200, 60, true},
	{"list_deploys", `{"status":"failed","limit":100}`, `{"status":"failed","limit":3}`, 0, 8, false},
}

// checkWalks walks every paged tool to its end by next, by offset (or page
// number) and, for the tools that take a cursor, by cursor from the
// first page's nextCursor on: every result once, in order.
func checkWalks(t *testing.T, c *mcptoolstest.Client) {
	t.Helper()
	for _, w := range walks {
		whole, _ := c.Walk(w.tool, w.whole, 0, nil)
		all := keys(t, whole)
		if w.want > 0 && len(all) != w.want || len(all) < 1 {
			t.Errorf("%s(%s): %d results, want %d", w.tool, w.whole, len(all), w.want)
		}
		got, cuts := c.Walk(w.tool, w.paged, w.budget, nil)
		mcptoolstest.ExactlyOnce(t, w.tool+" by offset", keys(t, got), all)
		if w.cut && cuts == 0 {
			t.Errorf("%s(%s): no response was cut", w.tool, w.paged)
		}
		if c.Tools[w.tool].InputSchema.(map[string]any)["properties"].(map[string]any)["cursor"] == nil {
			continue
		}
		got, _ = c.WalkByCursor(w.tool, w.paged, w.budget, nil)
		mcptoolstest.ExactlyOnce(t, w.tool+" by cursor", keys(t, got), all)
	}
	// A long note, window by window.
	env, _ := c.Call("get_note", `{"id":"areas/engineering/incident-log","maxLines":100}`)
	if m := env.ContentMetadata; m == nil || m.TotalLines != 826 || m.ReturnedLines != 100 || m.NextOffset != 100 {
		t.Errorf("get_note window: %+v", env.ContentMetadata)
	}
}

// checkErrors checks that bad arguments come back as tool errors naming
// the argument, which an agent can read and correct.
func checkErrors(t *testing.T, c *mcptoolstest.Client) {
	t.Helper()
	for _, e := range []struct{ tool, args, want string }{
		{"list_notes", `{"limit":-1}`, `argument "limit": -1 is below the minimum 1`},
		{"search_knowledge", `{"query":"a","pageSize":2.5}`, `argument "pageSize": 2.5 is not a whole number`},
		{"get_note", `{"id":"nope"}`, `not found`},
		{"get_notes", `{"ids":["a"],"colour":"red"}`, `argument "colour": unknown argument`},
		{"list_notes", `{"cursor":"gQEAAAAAAAAAAA"}`, `omit cursor to start`},
		{"list_deploys", `{"limit":-1}`, `argument "limit": -1 is below the minimum 1`},
		{"list_deploys", `{"service":7}`, `argument "service": 7 is an integer, want a string`},
		{"list_deploys", `{"colour":"red"}`, `argument "colour": unknown argument`},
		{"list_deploys", `{"cursor":"gQEAAAAAAAAAAA"}`, `argument "cursor": not a cursor this tool returned, or altered: pass pagination.nextCursor as it came, with the same arguments, or omit cursor to start over`},
		{"list_deploys", `{"budget":5}`, `argument "budget": 5 is below the minimum 1000`},
	} {
		if got := c.Error(e.tool, e.args); !strings.Contains(got, e.want) {
			t.Errorf("%s(%s): %q; want an error containing %q", e.tool, e.args, got, e.want)
		}
	}
	env, _ := c.Call("list_deploys", `{"status":"failed","limit":2}`)
	foreign := fmt.Sprintf(`{"status":"succeeded","cursor":%q}`, env.Pagination.NextCursor)
	if got := c.Error("list_deploys", foreign); !strings.Contains(got, "the cursor belongs to another query") {
		t.Errorf("list_deploys(%s): %q; want the cursor named another query's", foreign, got)
	}
	// A limit over the maximum is clamped and said so, not rejected.
	for _, l := range []struct {
		tool string
		max  int
	}{{"list_notes", 200}, {"list_deploys", 100}} {
		res := c.Raw(l.tool, `{"limit":5000}`)
		if out := mcptoolstest.Text(res); res.IsError || !strings.Contains(out, fmt.Sprintf(`"limit":%d,`, l.max)) || !strings.Contains(out, `"clamped":true,"requestedLimit":5000`) {
			t.Errorf("%s(limit 5000): %.300s; want clamped to %d", l.tool, out, l.max)
		}
	}
}

// churn writes between the pages of a walk, through the store st as
// another writer would: a deploy and a note newer than all, one older
// than all (the first three times: a walk must end), and a deploy and a
// note of the middle deleted. It returns the keys deleted.
func churn(t *testing.T, st *opened, i int) (deleted []string) {
	t.Helper()
	ctx := context.Background()
	newest, oldest := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	add := []Deploy{{ID: int64(1000 + i), Service: "web", Version: "2.0.0", Status: "succeeded", Started: newest.Add(time.Duration(i) * time.Hour)}}
	notes := []ports.Note{{ID: fmt.Sprintf("new/%02d", i), Title: "New", Content: "links [[Home]]", Links: []ports.Link{{Target: "Home"}},
		CreatedAt: newest, UpdatedAt: newest.Add(time.Duration(i) * time.Hour)}}
	if i <= 3 {
		add = append(add, Deploy{ID: int64(2000 + i), Service: "web", Version: "0.1.0", Status: "succeeded", Started: oldest.Add(-time.Duration(i) * time.Hour)})
		notes = append(notes, ports.Note{ID: fmt.Sprintf("old/%02d", i), Title: "Old", Content: "links [[Home]]", Links: []ports.Link{{Target: "Home"}},
			CreatedAt: oldest, UpdatedAt: oldest.Add(-time.Duration(i) * time.Hour)})
	}
	if _, err := st.db.NewInsert().Model(&add).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := st.db.NewSelect().Model((*Deploy)(nil)).Column("id").Order("started DESC", "id DESC").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	victim := ids[len(ids)/2]
	if _, err := st.db.NewDelete().Model((*Deploy)(nil)).Where("id = ?", victim).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if err := st.store.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := st.store.Backlinks(ctx, "Home", bounded.Page{Limit: ports.BacklinksLimits.Max})
	if err != nil {
		t.Fatal(err)
	}
	note := refs.Items[len(refs.Items)/2].ID
	if err := st.store.DeleteNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	return []string{fmt.Sprint(victim), mustJSON(note)}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkWrites walks list_deploys, list_notes and get_backlinks by cursor,
// under tight budgets, while st's deploys and notes change between pages:
// every result there throughout comes once, in order. It changes the
// data: run it last.
func checkWrites(t *testing.T, c *mcptoolstest.Client, st *opened) {
	t.Helper()
	churns := 0
	for _, w := range []struct{ tool, whole, paged string }{
		{"list_deploys", `{"limit":100}`, `{"limit":9,"budget":1500}`},
		{"list_notes", `{"limit":200}`, `{"limit":4,"budget":1500}`},
		{"get_backlinks", `{"id":"Home","limit":200}`, `{"id":"Home","limit":4,"budget":1500}`},
	} {
		before, _ := c.Walk(w.tool, w.whole, 0, nil)
		deleted := map[string]bool{}
		between := func() {
			churns++
			for _, k := range churn(t, st, churns) {
				deleted[k] = true
			}
		}
		got, cuts := c.WalkByCursor(w.tool, w.paged, 1500, between)
		throughout := slices.DeleteFunc(keys(t, before), func(k string) bool { return deleted[k] })
		mcptoolstest.ExactlyOnce(t, w.tool+" by cursor under writes", keys(t, got), throughout)
		if cuts == 0 {
			t.Errorf("%s(%s): no response was cut", w.tool, w.paged)
		}
	}
}

// checkLongLine reads a note whose line of 65,316 characters is longer
// than any response, following next (with its charOffset) under a
// small budget and the default one: every character arrives.
func checkLongLine(t *testing.T, c *mcptoolstest.Client, st *opened) {
	t.Helper()
	var b strings.Builder
	for i := range 7 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	var long []rune
	for len(long) < 65_316 {
		long = append(long, []rune(`日本語のテキストと"引用" and ASCII `)...)
	}
	b.WriteString(string(long[:65_316]) + "\nline 8\n")
	note := ports.Note{ID: "wide", Title: "Wide", Content: b.String(), CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	if err := st.store.PutNote(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"id":"wide","budget":3000}`, `{"id":"wide"}`} {
		budget := 0
		fmt.Sscanf(args, `{"id":"wide","budget":%d}`, &budget)
		var read strings.Builder
		for calls := 0; args != ""; calls++ {
			if calls > 200 {
				t.Fatal("get_note: no end after 200 calls")
			}
			env, out := c.Call("get_note", args)
			if n := utf8.RuneCountInString(out); budget > 0 && n > budget {
				t.Fatalf("get_note(%s): %d characters, over the budget %d", args, n, budget)
			}
			var n struct {
				Content     *string
				ContentClip *bounded.ClipInfo
				NextLines   json.RawMessage
			}
			if len(env.Results) != 1 || json.Unmarshal(env.Results[0], &n) != nil || n.Content == nil {
				t.Fatalf("get_note(%s): %.500s", args, out)
			}
			text := *n.Content
			if n.ContentClip != nil {
				text = text[:strings.LastIndex(text, "…[truncated ")]
			}
			if text == "" {
				t.Fatalf("get_note(%s): none of the note's text: %.500s", args, out)
			}
			read.WriteString(text)
			args = string(env.Next)
		}
		if read.String() != note.Content {
			t.Errorf("budget %d: read %d characters of the note's %d", budget, utf8.RuneCountInString(read.String()), utf8.RuneCountInString(note.Content))
		}
	}
}

func TestInProcess(t *testing.T) {
	c, st := inProcess(t, config{db: filepath.Join(t.TempDir(), "b.db"), code: codeTree(t), mode: "balanced"})
	checkAll(t, c, st)
}

// checkAll runs every check on the demo server c, whose store st is.
func checkAll(t *testing.T, c *mcptoolstest.Client, st *opened) {
	t.Helper()
	checkTools(t, c, 45_000)
	checkEveryTool(t, c)
	checkWalks(t, c)
	checkErrors(t, c)
	checkLongLine(t, c, st)
	checkWrites(t, c, st)
}

// TestSubprocess runs the built server over stdio, as an MCP client does,
// and writes to its SQLite database from this process between pages.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := build(t)
	code := codeTree(t)
	t.Run("demo", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "b.db")
		c := start(t, bin, nil, "-db", db, "-code", code)
		st, err := open(context.Background(), config{db: db}, source{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.close()
		checkAll(t, c, st)
	})
	t.Run("MAX_MCP_OUTPUT_TOKENS", func(t *testing.T) {
		c := start(t, bin, []string{mcptools.EnvMaxOutputTokens + "=2000"}, "-db", filepath.Join(t.TempDir(), "b.db"), "-code", "-")
		checkMaxTokens(t, c, 1800, 45_000) // 2,000 with the default margin
	})
}

// checkMaxTokens checks that every tool allows tokens tokens and chars
// characters, in its schema, its _meta and its responses.
func checkMaxTokens(t *testing.T, c *mcptoolstest.Client, tokens, chars int) {
	t.Helper()
	for name, tl := range c.Tools {
		props := tl.InputSchema.(map[string]any)["properties"].(map[string]any)
		if got := props["budgetTokens"].(map[string]any)["maximum"]; got != float64(tokens) {
			t.Errorf("%s: budgetTokens maximum %v, want %d", name, got, tokens)
		}
		if got := tl.Meta[mcptools.MetaMaxResultSizeChars]; got != float64(chars) {
			t.Errorf("%s: _meta %s %v, want %d", name, mcptools.MetaMaxResultSizeChars, got, chars)
		}
	}
	for _, call := range [][2]string{{"list_deploys", `{"limit":100}`}, {"list_notes", `{"limit":200}`}} {
		env, _ := c.Call(call[0], call[1])
		if tr := env.Truncation; tr.LimitTokens != tokens || tr.EstimatedTokens > tokens || tr.LimitChars != chars || tr.Reason != bounded.ReasonTokenLimit {
			t.Errorf("%s(%s): truncation %+v; want cut at %d tokens", call[0], call[1], tr, tokens)
		}
	}
}

// TestMaxOutputTokens: with -budget, whose margin is 1, the limit is
// MAX_MCP_OUTPUT_TOKENS itself.
func TestMaxOutputTokens(t *testing.T) {
	t.Setenv(mcptools.EnvMaxOutputTokens, "2000")
	c, _ := inProcess(t, config{code: "-", mode: "balanced", budget: 30_000})
	checkMaxTokens(t, c, 2000, 30_000)
}

func TestPrivateMode(t *testing.T) {
	c, _ := inProcess(t, config{code: codeTree(t), mode: "private"})
	for _, call := range []struct{ tool, args string }{
		{"get_note", `{"id":"projects/atlas/design"}`},
		{"search_knowledge", `{"query":"atlas"}`},
		{"get_response_history", `{"endpointId":"orders-api"}`},
		{"search_code", `{"query":"parse token"}`},
	} {
		_, text := c.Call(call.tool, call.args)
		for _, s := range []string{"Pages of 100 items", "Atlas is the new storage service", `"orders":`, "line 1: parse"} {
			if strings.Contains(text, s) {
				t.Errorf("private %s returns content %q", call.tool, s)
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
		t.Skip("BOUNDED_PG_DSN is not set: set it to a Postgres database, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
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

	c, st := inProcess(t, config{pg: u.String(), code: codeTree(t), mode: "balanced"})
	checkTools(t, c, 45_000)
	checkWalks(t, c)
	checkLongLine(t, c, st)
	checkWrites(t, c, st)

	// A generated vault, in a schema of its own.
	q.Set("search_path", schema+"_names")
	u.RawQuery = q.Encode()
	if _, err := admin.Exec("CREATE SCHEMA " + schema + "_names"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + "_names CASCADE"); err != nil {
			t.Errorf("drop schema %s_names: %v", schema, err)
		}
	})
	dir, _ := genVault(t, vaultNotes())
	c, _ = inProcess(t, config{pg: u.String(), vault: dir, code: "-", mode: "balanced"})
	checkNames(t, c)
}

// TestPagingFlags walks through a server started without flags and with
// -offset-hints: next continues by cursor (search_knowledge by page), or
// by offset, and every walk returns every result once.
func TestPagingFlags(t *testing.T) {
	for _, offsetHints := range []bool{false, true} {
		args := []string{"-code", "-"}
		if offsetHints {
			args = append(args, "-offset-hints")
		}
		cfg, err := parseFlags(args, io.Discard)
		if err != nil || cfg.offsetHints != offsetHints {
			t.Fatalf("parseFlags(%q): %+v, %v", args, cfg, err)
		}
		c, _ := inProcess(t, cfg)
		for _, w := range []struct{ tool, whole, paged, by string }{
			{"list_notes", `{"limit":200,"detail":"concise"}`, `{"limit":3,"detail":"concise"}`, "cursor"},
			{"search_knowledge", `{"query":"a","pageSize":1000,"detail":"concise"}`, `{"query":"a","pageSize":4,"detail":"concise"}`, "page"},
			{"list_deploys", `{"limit":100}`, `{"limit":7,"budget":1500}`, "cursor"},
		} {
			by := w.by
			if offsetHints && by == "cursor" {
				by = "offset"
			}
			env, _ := c.Call(w.tool, w.paged)
			if !strings.Contains(string(env.Next), `"`+by+`":`) {
				t.Errorf("%v: %s next %s: want it by %s", args, w.tool, env.Next, by)
			}
			all, _ := c.Walk(w.tool, w.whole, 0, nil)
			got, _ := c.Walk(w.tool, w.paged, 0, nil)
			if len(all) < 5 {
				t.Errorf("%s: %d results", w.tool, len(all))
			}
			mcptoolstest.ExactlyOnce(t, w.tool+" by "+by, keys(t, got), keys(t, all))
		}
	}
}

// TestSaysItIsWaiting: run as a person would run it, with nothing on
// stdin, the server says on stderr that it serves MCP on stdin and stdout
// and waits for a client.
func TestSaysItIsWaiting(t *testing.T) {
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-db", filepath.Join(t.TempDir(), "b.db"), "-code", "-"}, &stderr)
	if err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("run: %v", err)
	}
	if !strings.Contains(stderr.String(), "waiting for a client") {
		t.Errorf("stderr %q does not say the server waits for a client", stderr.String())
	}
}
