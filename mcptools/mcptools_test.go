package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded/driver"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcpset"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// run is the test's own data: runs of a job, newest first.
type run struct {
	ID      int64  `json:"id"`
	Status  string `json:"status"`
	Started int64  `json:"started"`
	Log     string `json:"log"`
}

// runs holds runs sorted newest first (Started, then ID, descending), and
// changes between the pages of a walk.
type runs struct {
	mu     sync.Mutex
	all    []run
	next   int64
	churns int
}

func newRuns(n int) *runs {
	r := &runs{}
	for range n {
		r.add(int64(n) - r.next)
	}
	return r
}

// add adds a run started at started, and returns its id.
func (r *runs) add(started int64) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	status := []string{"ok", "ok", "failed"}[r.next%3]
	r.all = append(r.all, run{ID: r.next, Status: status, Started: started,
		Log: fmt.Sprintf("run %d: %s", r.next, strings.Repeat("step done; ", 30))})
	slices.SortFunc(r.all, func(a, b run) int {
		if a.Started != b.Started {
			return int(b.Started - a.Started)
		}
		return int(b.ID - a.ID)
	})
	return fmt.Sprint(r.next)
}

// remove removes the run at index i, and returns its id.
func (r *runs) remove(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.all[i].ID
	r.all = slices.Delete(r.all, i, i+1)
	return fmt.Sprint(id)
}

// ids are the ids of the runs with status ("" for all), in order.
func (r *runs) ids(status string) []string {
	var out []string
	for _, x := range r.matching(status) {
		out = append(out, fmt.Sprint(x.ID))
	}
	return out
}

func (r *runs) matching(status string) []run {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []run
	for _, x := range r.all {
		if status == "" || x.Status == status {
			out = append(out, x)
		}
	}
	return out
}

// source is the runs with status, paged by offset or by their keys.
func (r *runs) source(status string) bounded.Source[run] {
	return bounded.FromSlice(r.matching(status)).WithKeys(func(x run) []any { return []any{x.Started, x.ID} }, true, true)
}

// churn changes the runs as other writers would between two pages: one
// run before all, one after all (the first three times: a walk must end),
// and one removed from the middle. It returns the ids it removed.
func (r *runs) churn() (removed []string) {
	r.mu.Lock()
	first, last, n := r.all[0].Started, r.all[len(r.all)-1].Started, len(r.all)
	r.churns++
	r.mu.Unlock()
	r.add(first + 1)
	if r.churns <= 3 {
		r.add(last - 1)
	}
	return []string{r.remove(n / 2)}
}

// runArgs are the arguments of the runs tools.
type runArgs struct {
	Status string `json:"status,omitempty" jsonschema:"only runs with this status"`
}

// folderArgs are folder_notes' arguments.
type folderArgs struct {
	Folder string `json:"folder" jsonschema:"the folder, e.g. a"`
}

var base = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a server with every kind of bounded tool, over runs and a
// store of notes.
type fixture struct {
	runs   *runs
	notes  *memrepo.Store
	server *mcp.Server
	*mcptoolstest.Client
}

// runLimits are the limits of the runs tools.
var runLimits = bounded.Limits{Default: 10, Max: 50}

// newFixture serves 40 runs and 30 notes: runs (by offset), runs_by_page,
// runs_by_cursor (the zero Paging), runs_by_status (its own input schema),
// small_runs (a budget of 20,000 characters), folder_notes (a store's
// pages) and the tool set of package tools over the notes.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{runs: newRuns(40), notes: memrepo.New()}
	ctx := context.Background()
	for i := range 30 {
		folder := []string{"a", "b"}[i%2]
		n := ports.Note{ID: fmt.Sprintf("%s/note-%02d", folder, i), Title: fmt.Sprintf("Note %d", i),
			Content: strings.Repeat(fmt.Sprintf("line of note %d\n", i), 5), Tags: []string{"t"},
			CreatedAt: base, UpdatedAt: base.Add(-time.Duration(i) * time.Hour)}
		if err := f.notes.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0.0.1"}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	handler := func(_ context.Context, _ *mcp.CallToolRequest, in runArgs) (bounded.Source[run], error) {
		if in.Status == "explode" {
			return nil, errors.New("the run index is offline")
		}
		return f.runs.source(in.Status), nil
	}
	for _, c := range []struct {
		name   string
		paging bounded.Paging
		budget bounded.Budget
	}{
		{"runs", bounded.ByOffset, bounded.Budget{}},
		{"runs_by_page", bounded.ByPage, bounded.Budget{}},
		{"runs_by_cursor", 0, bounded.Budget{}}, // the zero Paging: by cursor
		{"small_runs", bounded.ByOffset, bounded.Budget{MaxChars: 20_000}},
	} {
		mcptools.AddTool(server, &mcp.Tool{Name: c.name, Description: "Lists the job's runs, newest first."},
			mcptools.Options[run]{Limits: runLimits, Paging: c.paging, Budget: c.budget}, handler)
	}
	// runs_by_status brings its own schema: an enumeration with a default.
	mcptools.AddTool(server, &mcp.Tool{Name: "runs_by_status", Description: "Lists the runs of one status.",
		InputSchema: &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			Properties: map[string]*jsonschema.Schema{"status": {Type: "string", Enum: []any{"ok", "failed"}, Default: json.RawMessage(`"failed"`)}}}},
		mcptools.Options[run]{Limits: runLimits},
		func(_ context.Context, _ *mcp.CallToolRequest, in runArgs) (bounded.Source[run], error) {
			if in.Status == "" {
				return nil, errors.New("the default status was not applied")
			}
			return f.runs.source(in.Status), nil
		})
	mcptools.AddPagedTool(server, &mcp.Tool{Name: "folder_notes", Description: "Lists the notes of a folder, latest first."},
		mcptools.Options[ports.NoteRef]{Limits: ports.ListNotesLimits},
		func(ctx context.Context, _ *mcp.CallToolRequest, in folderArgs, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return f.notes.ListNotes(ctx, ports.ListFilter{Folder: in.Folder}, p)
		})
	set, err := tools.New(tools.Config{Notes: f.notes, Knowledge: f.notes, History: f.notes, Code: f.notes, Budget: mcptools.ClientBudget(bounded.Budget{})})
	if err != nil {
		t.Fatal(err)
	}
	mcpset.Add(server, set)
	f.server = server
	f.Client = mcptoolstest.Serve(t, server)
	return f
}

// noteIDs are the ids of folder's notes, latest first, as JSON strings.
func (f *fixture) noteIDs(t *testing.T, folder string) []string {
	t.Helper()
	var ids []string
	for n, err := range bounded.All(context.Background(), bounded.Page{Limit: ports.ListNotesLimits.Max}, func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return f.notes.ListNotes(ctx, ports.ListFilter{Folder: folder}, p)
	}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, mustJSON(n.ID))
	}
	return ids
}

// churnNotes changes folder a's notes between two pages: one note newer
// than all, one older than all (the first three times), and one of the
// middle deleted.
func (f *fixture) churnNotes(t *testing.T, i int) (removed []string) {
	t.Helper()
	ctx := context.Background()
	put := []ports.Note{{ID: fmt.Sprintf("a/new-%02d", i), Title: "New", UpdatedAt: base.Add(time.Duration(i+1) * time.Hour)}}
	if i <= 3 {
		put = append(put, ports.Note{ID: fmt.Sprintf("a/old-%02d", i), Title: "Old", UpdatedAt: base.Add(-time.Duration(100+i) * time.Hour)})
	}
	for _, n := range put {
		n.CreatedAt = base
		if err := f.notes.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ids := f.noteIDs(t, "a")
	var victim string
	if err := json.Unmarshal([]byte(ids[len(ids)/2]), &victim); err != nil {
		t.Fatal(err)
	}
	if err := f.notes.DeleteNote(ctx, victim); err != nil {
		t.Fatal(err)
	}
	return []string{ids[len(ids)/2]}
}

var setTools = []string{"get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "find_broken_links",
	"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes",
	"search_knowledge", "get_response_history", "search_code"}

// TestListTools: every tool is listed with an input schema that has the
// paging arguments with their bounds and defaults, an output schema, and
// the size hint of its budget; both schemas compile.
func TestListTools(t *testing.T) {
	f := newFixture(t)
	want := append([]string{"runs", "runs_by_page", "runs_by_cursor", "small_runs", "runs_by_status", "folder_notes"}, setTools...)
	if got := slices.Sorted(maps.Keys(f.Tools)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("tools:\ngot  %q\nwant %q", got, slices.Sorted(slices.Values(want)))
	}
	for _, c := range []struct {
		tool, limit string
		limits      bounded.Limits
		chars       int
		own         []string
	}{
		{"runs", "limit", runLimits, 45_000, []string{"status"}},
		{"runs_by_page", "pageSize", runLimits, 45_000, []string{"status"}},
		{"runs_by_cursor", "limit", runLimits, 45_000, []string{"status"}},
		{"small_runs", "limit", runLimits, 18_000, []string{"status"}},
		{"runs_by_status", "limit", runLimits, 45_000, []string{"status"}},
		{"folder_notes", "limit", ports.ListNotesLimits, 45_000, []string{"folder"}},
	} {
		tl := f.Tools[c.tool]
		schema := tl.InputSchema.(map[string]any)
		props := schema["properties"].(map[string]any)
		var names []string
		for name := range props {
			names = append(names, name)
		}
		wantNames := append(slices.Clone(c.own), c.limit, "offset", "cursor", "budget", "budgetTokens")
		if c.limit == "pageSize" {
			wantNames = append(wantNames, "page")
		}
		if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(wantNames))) {
			t.Errorf("%s: arguments %q, want %q", c.tool, slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(wantNames)))
		}
		for _, b := range []struct {
			arg           string
			min, max, def float64
		}{
			{c.limit, 1, float64(c.limits.Max), float64(c.limits.Default)},
			{"offset", 0, bounded.MaxOffset, 0},
			{"budget", tools.MinBudget, float64(c.chars), float64(c.chars)},
			{"budgetTokens", tools.MinBudgetTokens, float64(c.chars) / 2.8, float64(c.chars) / 2.8},
		} {
			p := props[b.arg].(map[string]any)
			got := []any{p["type"], p["minimum"], p["maximum"], p["default"]}
			want := []any{"integer", b.min, float64(int(b.max)), float64(int(b.def))}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s: type, minimum, maximum, default %v, want %v", c.tool, b.arg, got, want)
			}
		}
		if got := tl.Meta[mcptools.MetaMaxResultSizeChars]; got != float64(c.chars) {
			t.Errorf("%s: _meta %s %v, want %d", c.tool, mcptools.MetaMaxResultSizeChars, got, c.chars)
		}
	}
	for _, name := range setTools {
		tl := f.Tools[name]
		if got := tl.Meta[mcptools.MetaMaxResultSizeChars]; got != float64(45_000) {
			t.Errorf("%s: _meta %s %v, want 45000", name, mcptools.MetaMaxResultSizeChars, got)
		}
		if out := string(mustJSON(tl.OutputSchema)); !strings.Contains(out, `"required":["results","pagination","truncation"]`) {
			t.Errorf("%s: output schema %s, want an envelope's keys required", name, out)
		}
	}
	// The output schemas are short: tools/list sends one a tool.
	for name, tl := range f.Tools {
		if n := len(mustJSON(tl.OutputSchema)); n > 700 {
			t.Errorf("%s: output schema of %d bytes: %s", name, n, mustJSON(tl.OutputSchema))
		}
	}
}

// TestCallEveryTool calls every tool once: each answers with an envelope
// that passes its output schema, the same JSON as text and as
// structuredContent.
func TestCallEveryTool(t *testing.T) {
	f := newFixture(t)
	calls := map[string]string{
		"runs": `{"status":"failed","limit":3}`, "runs_by_page": `{"page":1,"pageSize":4}`, "runs_by_cursor": `{}`,
		"small_runs": `{"budget":1500}`, "runs_by_status": `{}`, "folder_notes": `{"folder":"b","limit":2}`,
		"get_note": `{"id":"a/note-00","maxLines":2}`, "get_notes": `{"ids":["a/note-00","b/note-01"]}`,
		"list_notes": `{"limit":3}`, "search_notes": `{"query":"note"}`, "search_by_links": `{"hasLinksTo":["a/note-00"]}`,
		"find_broken_links": `{}`, "get_note_links": `{"id":"a/note-00"}`, "get_backlinks": `{"id":"a/note-00"}`,
		"get_children": `{"id":"a/note-00"}`, "get_parents": `{"id":"a/note-00"}`, "get_descendants": `{"id":"a/note-00"}`,
		"get_related_notes": `{"id":"a/note-00"}`, "search_knowledge": `{"query":"x"}`,
		"get_response_history": `{"endpointId":"api"}`, "search_code": `{"query":"parse"}`,
	}
	for name := range f.Tools {
		args, ok := calls[name]
		if !ok {
			t.Errorf("%s: no call in this test", name)
			continue
		}
		env, _ := f.Call(name, args)
		if env.Pagination.Limit == 0 && env.ContentMetadata == nil {
			t.Errorf("%s(%s): no pagination: %+v", name, args, env)
		}
	}
	// The default of runs_by_status' own schema reached the handler.
	env, _ := f.Call("runs_by_status", `{}`)
	if got, want := env.Pagination.Total, len(f.runs.ids("failed")); got != want {
		t.Errorf("runs_by_status(): %d runs, want the %d failed ones", got, want)
	}
	// A limit over the maximum is clamped and said so, not refused.
	for _, c := range []struct {
		tool, args string
		max        int
	}{
		{"runs", `{"limit":5000}`, runLimits.Max},
		{"runs_by_page", `{"pageSize":5000}`, runLimits.Max},
		{"folder_notes", `{"folder":"a","limit":5000}`, ports.ListNotesLimits.Max},
	} {
		res := f.Raw(c.tool, c.args)
		want := fmt.Sprintf(`"limit":%d,`, c.max)
		if out := mcptoolstest.Text(res); res.IsError || !strings.Contains(out, `"clamped":true,"requestedLimit":5000`) || !strings.Contains(out, want) {
			t.Errorf("%s(%s): %.400s; want clamped to %d", c.tool, c.args, out, c.max)
		}
	}
}

// TestHintAndNext: next repeats the arguments as the call gave them, in
// their order, with the budgets; the hint names the same call. Tools of
// the zero Paging (runs_by_cursor, folder_notes) continue by cursor.
func TestHintAndNext(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		tool, args, next, hint string
	}{
		{"runs", `{"status":"ok","limit":5}`, `{"status":"ok","offset":5,"limit":5}`, `call runs(status="ok", offset=5, limit=5)`},
		{"runs", `{"budget":30000,"status":"ok"}`, `{"budget":30000,"status":"ok","offset":10}`, `call runs(budget=30000, status="ok", offset=10)`},
		{"runs_by_page", `{"pageSize":10,"status":"ok"}`, `{"status":"ok","page":1}`, `call runs_by_page(status="ok", page=1)`},
	} {
		env, _ := f.Call(c.tool, c.args)
		if string(env.Next) != c.next || !strings.Contains(env.Hint, c.hint) {
			t.Errorf("%s(%s): next %s, hint %q; want %s and %q", c.tool, c.args, env.Next, env.Hint, c.next, c.hint)
		}
	}
	for _, c := range []struct{ tool, args, arg string }{
		{"runs_by_cursor", `{"status":"ok","limit":5}`, "status"},
		{"folder_notes", `{"folder":"a","limit":3}`, "folder"},
	} {
		env, _ := f.Call(c.tool, c.args)
		var next map[string]any
		if err := json.Unmarshal(env.Next, &next); err != nil || env.Pagination.NextCursor == "" || next["cursor"] != env.Pagination.NextCursor || next[c.arg] == nil || next["offset"] != nil || !strings.Contains(env.Hint, "cursor=") {
			t.Errorf("%s(%s): next %s, hint %q; want %s and the cursor %q", c.tool, c.args, env.Next, env.Hint, c.arg, env.Pagination.NextCursor)
		}
		second, _ := f.Call(c.tool, mcptoolstest.NextArgs(t, env, c.args))
		if !strings.Contains(second.Hint, "showing 6-10") && !strings.Contains(second.Hint, "showing 4-6") {
			t.Errorf("%s: the second page's hint %q does not name its range", c.tool, second.Hint)
		}
	}
}

// TestOffsetOnlySource: a tool of the zero Paging whose source pages only
// by offset continues by offset.
func TestOffsetOnlySource(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	runs := newRuns(25)
	mcptools.AddTool(server, &mcp.Tool{Name: "runs"}, mcptools.Options[run]{Limits: runLimits},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[run], error) {
			return bounded.FromFunc(func(_ context.Context, r driver.Request) ([]run, int, error) {
				all := runs.matching("")
				return all[min(r.Offset, len(all)):min(r.Offset+r.Limit, len(all))], len(all), nil
			}), nil
		})
	cl := mcptoolstest.Serve(t, server)
	env, _ := cl.Call("runs", `{}`)
	if string(env.Next) != `{"offset":10}` || !strings.Contains(env.Hint, "call runs(offset=10)") {
		t.Errorf("next %s, hint %q; want offset 10", env.Next, env.Hint)
	}
	results, _ := cl.Walk("runs", `{}`, 0, nil)
	mcptoolstest.ExactlyOnce(t, "runs by offset", ids(t, results), runs.ids(""))
}

// TestWalks follows next to the end under tight budgets, by offset, page
// number and cursor: every result once, in order. Under writes between
// pages (runs added before and after all, one removed), a walk by cursor
// sees every result that was there throughout once, in order.
func TestWalks(t *testing.T) {
	for _, c := range []struct {
		name, tool, args string
		budget           int
		// cursor switches to the first page's nextCursor, as an agent
		// paging deep or over changing data does.
		cursor, churn bool
		status        string
	}{
		{name: "offset", tool: "runs", args: `{"limit":7}`},
		{name: "offset, budget", tool: "runs", args: `{"budget":2500}`, budget: 2500},
		{name: "offset, budgetTokens", tool: "runs", args: `{"budgetTokens":700}`, budget: 2500},
		{name: "filtered, budget", tool: "runs", args: `{"status":"failed","budget":1500}`, budget: 1500, status: "failed"},
		{name: "page", tool: "runs_by_page", args: `{"pageSize":6}`},
		{name: "page, budget", tool: "runs_by_page", args: `{"pageSize":6,"budget":1500}`, budget: 1500},
		{name: "cursor next", tool: "runs_by_cursor", args: `{"limit":6,"budget":2000}`, budget: 2000},
		{name: "cursor next, writes", tool: "runs_by_cursor", args: `{"limit":6,"budget":2000}`, budget: 2000, churn: true},
		{name: "offset tool by cursor, writes", tool: "runs", args: `{"status":"ok","limit":6,"budget":2000}`, budget: 2000, cursor: true, churn: true, status: "ok"},
		{name: "page tool by cursor, writes", tool: "runs_by_page", args: `{"pageSize":8,"budget":1200}`, budget: 1200, cursor: true, churn: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.runs.ids(c.status)
			gone := map[string]bool{}
			var between func()
			if c.churn {
				between = func() {
					for _, id := range f.runs.churn() {
						gone[id] = true
					}
				}
			}
			walk := f.Walk
			if c.cursor {
				walk = f.WalkByCursor
			}
			results, cuts := walk(c.tool, c.args, c.budget, between)
			got := ids(t, results)
			throughout := slices.DeleteFunc(before, func(id string) bool { return gone[id] })
			mcptoolstest.ExactlyOnce(t, c.name, got, throughout)
			if !c.churn && len(got) != len(before) {
				t.Errorf("%d results, want %d", len(got), len(before))
			}
			if c.budget > 0 && cuts == 0 {
				t.Errorf("no response was cut by the budget %d", c.budget)
			}
		})
	}
}

// TestWalkStorePages walks a store's own pages (AddPagedTool) and the
// tool set's list_notes by cursor while notes are added and deleted.
func TestWalkStorePages(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"folder_notes", `{"folder":"a","limit":3,"budget":1100}`},
		{"list_notes", `{"limit":4,"budget":1500}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			f := newFixture(t)
			folder := "a"
			if c.tool == "list_notes" {
				folder = ""
			}
			before := f.noteIDs(t, folder)
			gone := map[string]bool{}
			churns := 0
			between := func() {
				churns++
				for _, id := range f.churnNotes(t, churns) {
					gone[id] = true
				}
			}
			results, _ := f.WalkByCursor(c.tool, c.args, 0, between)
			got := ids(t, results)
			throughout := slices.DeleteFunc(before, func(id string) bool { return gone[id] })
			mcptoolstest.ExactlyOnce(t, c.tool, got, throughout)
			if churns < 3 {
				t.Errorf("%d pages: the walk was too short to test writes", churns+1)
			}
		})
	}
}

// TestLongLine reads a note whose line is longer than any response by
// following next (and its charOffset): every character arrives.
func TestLongLine(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	b.WriteString("# Wide\n")
	for b.Len() < 20_000 {
		b.WriteString("ünïcode and ASCII, \"quoted\" ")
	}
	b.WriteString("\nlast line\n")
	note := ports.Note{ID: "wide", Title: "Wide", Content: b.String(), CreatedAt: base, UpdatedAt: base}
	if err := f.notes.PutNote(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	args := `{"id":"wide","budget":2000}`
	var read strings.Builder
	for calls := 0; args != ""; calls++ {
		if calls > 100 {
			t.Fatal("no end after 100 calls")
		}
		env, _ := f.Call("get_note", args)
		var n struct {
			Content     string
			ContentClip *bounded.ClipInfo
			NextLines   json.RawMessage
		}
		if len(env.Results) != 1 || json.Unmarshal(env.Results[0], &n) != nil {
			t.Fatalf("get_note(%s): %+v", args, env)
		}
		if n.ContentClip != nil {
			n.Content = n.Content[:strings.LastIndex(n.Content, "…[truncated ")]
		}
		read.WriteString(n.Content)
		args = string(env.Next)
	}
	if read.String() != note.Content {
		t.Errorf("read %d bytes of the note's %d", read.Len(), len(note.Content))
	}
}

// TestBadArguments: every bad argument is a tool result with isError
// and a message naming what to change, never a protocol error.
func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	okCursor := func(args string) string {
		env, _ := f.Call("runs", args)
		return env.Pagination.NextCursor
	}
	for _, c := range []struct{ tool, args, want string }{
		{"runs", `{"limit":-1}`, `argument "limit": -1 is below the minimum 1`},
		{"runs", `{"limit":2.5}`, `argument "limit": 2.5 is not a whole number`},
		{"runs", `{"limit":"ten"}`, `argument "limit": "ten" is a string, want an integer`},
		{"runs", `{"offset":-3}`, `argument "offset": -3 is below the minimum 0`},
		{"runs", `{"offset":1e300}`, `argument "offset": 1e300 is over the maximum 9007199254740991`},
		{"runs", `{"colour":"red"}`, `argument "colour": unknown argument`},
		{"runs", `{"status":3}`, `argument "status": 3 is an integer, want a string`},
		{"runs", `{"status":"explode"}`, `runs: the run index is offline`},
		{"runs", `[1,2]`, `arguments: want a JSON object, not [1,2]`},
		{"runs", `{"limit":1,"limit":2}`, `argument "limit": given twice`},
		{"runs", `{"budget":10}`, `argument "budget": 10 is below the minimum 1000`},
		{"runs", `{"budgetTokens":true}`, `argument "budgetTokens": true is a boolean, want an integer`},
		{"runs", `{"cursor":7}`, `argument "cursor": 7 is an integer, want a string`},
		{"runs", fmt.Sprintf(`{"cursor":%q,"offset":3}`, okCursor(`{}`)), `a cursor excludes offset and page`},
		{"runs", `{"cursor":"gQEAAAAAAAAAAA"}`, `argument "cursor": not a cursor this tool returned, or altered: pass pagination.nextCursor as it came, with the same arguments, or omit cursor to start over`},
		{"runs", `{"cursor":"not base64!"}`, `omit cursor to start over`},
		{"runs", fmt.Sprintf(`{"status":"failed","cursor":%q}`, okCursor(`{"status":"ok"}`)), `argument "cursor": the cursor belongs to another query: it works only with the arguments of the call that returned it. Call again with those, or omit cursor to start over`},
		{"runs_by_cursor", fmt.Sprintf(`{"cursor":%q}`, okCursor(`{}`)), `the cursor belongs to another query`},
		{"runs_by_page", `{"page":1,"offset":3}`, `argument "offset": give page or offset, not both`},
		{"runs_by_page", `{"page":-1}`, `argument "page": -1 is below the minimum 0`},
		{"runs_by_status", `{"status":"lost"}`, `argument "status": "lost" is not one of "ok", "failed"`},
		{"folder_notes", `{}`, `argument "folder": missing: it is required`},
		{"folder_notes", `{"folder":null}`, `argument "folder": missing: it is required`},
		{"list_notes", `{"limit":-1}`, `argument "limit": -1 is below the minimum 1`},
		{"list_notes", `{"cursor":"gQEAAAAAAAAAAA"}`, `list_notes: argument "cursor": not a cursor`},
		{"list_notes", `{"cursor":"gQEAAAAAAAAAAA"}`, `omit cursor to start`},
		{"get_note", `{"id":"nope"}`, `not found`},
	} {
		if got := f.Error(c.tool, c.args); !strings.Contains(got, c.want) {
			t.Errorf("%s(%s): %q, want it to contain %q", c.tool, c.args, got, c.want)
		}
	}
}

// TestMaxOutputTokens: MAX_MCP_OUTPUT_TOKENS lowers the token budget of
// every tool, its own and the set's; a value that is not a positive
// integer is ignored.
func TestMaxOutputTokens(t *testing.T) {
	for _, c := range []struct {
		env        string
		wantTokens int // in the schema of runs
	}{
		{"", 16_071},
		{"1500", 1350},
		{" 1500 ", 1350},
		{"100000", 16_071}, // over the budget's own: no change
		{"many", 16_071},
		{"-5", 16_071},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(mcptools.EnvMaxOutputTokens, c.env)
			f := newFixture(t)
			props := f.Tools["runs"].InputSchema.(map[string]any)["properties"].(map[string]any)
			if got := props["budgetTokens"].(map[string]any)["maximum"]; got != float64(c.wantTokens) {
				t.Errorf("runs: budgetTokens maximum %v, want %d", got, c.wantTokens)
			}
			env, _ := f.Call("runs", `{"limit":50}`)
			if env.Truncation.LimitTokens != c.wantTokens || env.Truncation.EstimatedTokens > c.wantTokens {
				t.Errorf("runs: truncation %+v; want limitTokens %d", env.Truncation, c.wantTokens)
			}
			if c.wantTokens < 16_071 && env.Truncation.Reason != bounded.ReasonTokenLimit {
				t.Errorf("runs: 50 runs in %d tokens not cut: %+v", c.wantTokens, env.Truncation)
			}
			// The set's tools, built on ClientBudget: the same limit.
			env, _ = f.Call("list_notes", `{"limit":30}`)
			if env.Truncation.LimitTokens > c.wantTokens || env.Truncation.EstimatedTokens > c.wantTokens {
				t.Errorf("list_notes: truncation %+v; want at most %d tokens", env.Truncation, c.wantTokens)
			}
		})
	}
}

// TestMaxOutputTokensUnworkable: a MAX_MCP_OUTPUT_TOKENS no response
// fits in is raised to the smallest budget that answers, and one that is
// not a positive integer is ignored; either is logged once, and every
// tool answers.
func TestMaxOutputTokensUnworkable(t *testing.T) {
	for _, c := range []struct {
		env, log   string
		wantTokens int // the limit of runs
	}{
		{"1", "leaves 0 tokens", tools.MinBudgetTokens},
		{"100", "leaves 90 tokens", tools.MinBudgetTokens},
		{"380", "leaves 342 tokens", tools.MinBudgetTokens},
		{"abc", `"abc" is not a positive integer`, 16_071},
		{"-5", `"-5" is not a positive integer`, 16_071},
		{"0", `"0" is not a positive integer`, 16_071},
		{"1e3", `"1e3" is not a positive integer`, 16_071},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(mcptools.EnvMaxOutputTokens, c.env)
			logs := &logRecorder{}
			prev := slog.Default()
			slog.SetDefault(slog.New(logs))
			t.Cleanup(func() { slog.SetDefault(prev) })

			f := newFixture(t)
			for _, call := range []struct{ tool, args string }{
				{"runs", `{"limit":50}`}, {"runs_by_cursor", `{"limit":50}`}, {"runs_by_page", `{"pageSize":50}`},
				{"folder_notes", `{"folder":"a","limit":20}`}, {"list_notes", `{"limit":30}`}, {"get_note", `{"id":"a/note-00"}`},
			} {
				if res := f.Raw(call.tool, call.args); res.IsError {
					t.Errorf("%s(%s): %s; want an answer", call.tool, call.args, mcptoolstest.Text(res))
					continue
				}
				env, _ := f.Call(call.tool, call.args)
				if env.Truncation.LimitTokens > c.wantTokens || len(env.Results) == 0 {
					t.Errorf("%s(%s): %d results, truncation %+v; want some within %d tokens", call.tool, call.args, len(env.Results), env.Truncation, c.wantTokens)
				}
			}
			env, _ := f.Call("runs", `{"limit":50}`)
			if env.Truncation.LimitTokens != c.wantTokens {
				t.Errorf("runs: limitTokens %d, want %d", env.Truncation.LimitTokens, c.wantTokens)
			}
			// A set whose budget did not pass through ClientBudget: mcpset.Add
			// lowers each call's budgetTokens, no lower than the minimum.
			set, err := tools.New(tools.Config{Notes: f.notes})
			if err != nil {
				t.Fatal(err)
			}
			server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
			mcpset.Add(server, set)
			env, _ = mcptoolstest.Serve(t, server).Call("list_notes", `{"limit":30}`)
			if env.Truncation.LimitTokens > c.wantTokens || len(env.Results) == 0 {
				t.Errorf("list_notes of a set: %d results, truncation %+v; want some within %d tokens", len(env.Results), env.Truncation, c.wantTokens)
			}
			if got := logs.messages(); len(got) != 1 || !strings.HasPrefix(got[0], "WARN "+mcptools.ErrMaxOutputTokens.Error()) || !strings.Contains(got[0], c.log) {
				t.Errorf("logged %q; want one warning saying %q", got, c.log)
			}
		})
	}
}

// TestMaxOutputTokensSetBudget: a set built on a budget the variable does
// not lower still answers within its limit: mcpset.Add lowers each call's
// budgetTokens, and next carries it on.
func TestMaxOutputTokensSetBudget(t *testing.T) {
	t.Setenv(mcptools.EnvMaxOutputTokens, "1500")
	store := memrepo.New()
	for i := range 30 {
		n := ports.Note{ID: fmt.Sprintf("n/%02d", i), Title: strings.Repeat("A title ", 20), CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Hour)}
		if err := store.PutNote(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	set, err := tools.New(tools.Config{Notes: store}) // the default budget: 16,071 tokens
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcpset.Add(server, set)
	c := mcptoolstest.Serve(t, server)
	for _, args := range []string{`{"limit":30}`, `{"limit":30,"budgetTokens":9000}`, `{"limit":30,"budgetTokens":1000}`} {
		env, _ := c.Call("list_notes", args)
		limit := 1350
		if strings.Contains(args, "1000") {
			limit = 1000
		}
		if env.Truncation.LimitTokens > limit || env.Truncation.Reason == "" {
			t.Errorf("list_notes(%s): truncation %+v; want a cut at most %d tokens", args, env.Truncation, limit)
		}
		if !strings.Contains(string(env.Next), fmt.Sprintf(`"budgetTokens":%d`, limit)) {
			t.Errorf("list_notes(%s): next %s; want budgetTokens %d", args, env.Next, limit)
		}
	}
	if got := c.Error("list_notes", `{"budgetTokens":"x"}`); !strings.Contains(got, `argument "budgetTokens"`) {
		t.Errorf("budgetTokens \"x\": %q", got)
	}

	// A set built on ClientBudget keeps its own limit: 1,500 with a
	// margin of 1, which mcpset.Add does not lower again.
	set, err = tools.New(tools.Config{Notes: store, Budget: mcptools.ClientBudget(bounded.Budget{Margin: 1})})
	if err != nil {
		t.Fatal(err)
	}
	server = mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcpset.Add(server, set)
	env, _ := mcptoolstest.Serve(t, server).Call("list_notes", `{"limit":30}`)
	if env.Truncation.LimitTokens != 1500 || env.Next == nil || strings.Contains(string(env.Next), "budgetTokens") {
		t.Errorf("list_notes: truncation %+v, next %s; want cut at 1500 tokens, no budgetTokens added", env.Truncation, env.Next)
	}
}

// TestClientBudget: the budget MAX_MCP_OUTPUT_TOKENS leaves.
func TestClientBudget(t *testing.T) {
	for _, c := range []struct {
		env        string
		b          bounded.Budget
		wantTokens int
	}{
		{"", bounded.Budget{}, 16_071},
		{"2000", bounded.Budget{}, 1800},
		{"2000", bounded.Budget{MaxTokens: 1000}, 900},
		{"2000", bounded.Budget{Margin: 1}, 2000},
		{"25000", bounded.ClaudeCode(), 22_500},
		{"8000", bounded.ClaudeCode(), 7200},
		{"0", bounded.Budget{}, 16_071},
		{"2e3", bounded.Budget{}, 16_071},
		{"99999999999999999999999", bounded.Budget{}, 16_071},
		// Under the minimum: raised to it, or to b's own limit if lower.
		{"1", bounded.Budget{}, tools.MinBudgetTokens},
		{"100", bounded.Budget{}, tools.MinBudgetTokens},
		{"100", bounded.Budget{Margin: 0.37}, tools.MinBudgetTokens},
		{"100", bounded.Budget{Margin: 1}, tools.MinBudgetTokens},
		{"100", bounded.Budget{MaxTokens: 300}, 270},
		{"100", bounded.Budget{Margin: 2}, 0}, // invalid: as it came
	} {
		t.Setenv(mcptools.EnvMaxOutputTokens, c.env)
		if got := mcptools.ClientBudget(c.b).LimitTokens(); got != c.wantTokens {
			t.Errorf("MAX_MCP_OUTPUT_TOKENS=%q, %+v: %d tokens, want %d", c.env, c.b, got, c.wantTokens)
		}
	}
}

// TestLoadClientBudget: a value ClientBudget ignores or raises is an
// error matching ErrMaxOutputTokens, with the budget ClientBudget
// returns.
func TestLoadClientBudget(t *testing.T) {
	for _, c := range []struct {
		env, want  string // want "": no error
		wantTokens int
	}{
		{"", "", 16_071},
		{"1500", "", 1350},
		{"100000", "", 16_071},
		{"1", "1 leaves 0 tokens after the margin, under the minimum 350: the limit is 350 tokens", 350},
		{"100", "100 leaves 90 tokens after the margin, under the minimum 350: the limit is 350 tokens", 350},
		{"abc", `"abc" is not a positive integer: it is ignored`, 16_071},
		{"-5", `"-5" is not a positive integer: it is ignored`, 16_071},
		{"1e3", `"1e3" is not a positive integer: it is ignored`, 16_071},
		{strings.Repeat("9x", 1<<20), `"9x9x9x9x9x9x9x9x9x9x9x9x9x9x9x9x9x9x9x9... is not a positive integer: it is ignored`, 16_071},
	} {
		t.Setenv(mcptools.EnvMaxOutputTokens, c.env)
		b, err := mcptools.LoadClientBudget(bounded.Budget{})
		if got := b.LimitTokens(); got != c.wantTokens {
			t.Errorf("MAX_MCP_OUTPUT_TOKENS=%.20q: %d tokens, want %d", c.env, got, c.wantTokens)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("MAX_MCP_OUTPUT_TOKENS=%.20q: %v, want no error", c.env, err)
		case c.want != "" && (!errors.Is(err, mcptools.ErrMaxOutputTokens) || !strings.HasSuffix(fmt.Sprint(err), c.want)):
			t.Errorf("MAX_MCP_OUTPUT_TOKENS=%.20q: %v, want ErrMaxOutputTokens ending %q", c.env, err, c.want)
		}
	}
}

// TestBytesSent measures what the client reads: the envelope once as
// structuredContent and once as the text (a JSON string, escaped), and
// the tools/list of this server.
func TestBytesSent(t *testing.T) {
	f := newFixture(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	wire := &syncBuffer{}
	c := mcptoolstest.Connect(t, &mcp.LoggingTransport{Transport: ct, Writer: wire})
	list := ""
	for l := range strings.Lines(wire.take()) {
		if strings.Contains(l, `"tools":[`) {
			list = strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "read: ")
		}
	}
	env, out := c.Call("runs", `{"limit":20}`)
	if env.Truncated {
		t.Fatal("cut")
	}
	line := ""
	for l := range strings.Lines(wire.take()) {
		if strings.Contains(l, `"structuredContent"`) {
			line = strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "read: ")
		}
	}
	if line == "" || list == "" {
		t.Fatalf("read no tools/call response (%d bytes) or tools/list (%d bytes)", len(line), len(list))
	}
	quoted := len(mustJSON(out)) // the text as a JSON string
	if sent := len(line); sent < len(out)+quoted || sent > len(out)+quoted+300 {
		t.Errorf("tools/call response: %d bytes, want the envelope (%d) and its text (%d) and at most 300 more", sent, len(out), quoted)
	}
	t.Logf("tools/call runs(limit 20): envelope %d bytes, response %d bytes (text %d, structuredContent %d)", len(out), len(line), quoted, len(out))
	t.Logf("tools/list of %d tools: %d bytes", len(c.Tools), len(list))
}

// TestCursorScope: a cursor is bound to the tool and the arguments In
// holds, in any order, and not to the budgets, which a walk may change.
func TestCursorScope(t *testing.T) {
	f := newFixture(t)
	env, _ := f.Call("runs", `{"status":"ok","limit":5,"budget":20000}`)
	want := f.runs.ids("ok")[5]
	for _, args := range []string{
		fmt.Sprintf(`{"status":"ok","limit":5,"budget":20000,"cursor":%q}`, env.Pagination.NextCursor),
		fmt.Sprintf(`{"cursor":%q,"limit":5,"status":"ok"}`, env.Pagination.NextCursor),
		fmt.Sprintf(`{"limit":2,"budgetTokens":2000,"cursor":%q,"status":"ok"}`, env.Pagination.NextCursor),
	} {
		next, _ := f.Call("runs", args)
		if got := ids(t, next.Results); len(got) == 0 || got[0] != want {
			t.Errorf("runs(%s): %d results; want the one after the first page, %s", args, len(next.Results), want)
		}
	}
}

// TestAddToolPanics: a tool that cannot serve is refused when it is
// added, as mcp.AddTool refuses one.
func TestAddToolPanics(t *testing.T) {
	type withLimit struct {
		Limit int `json:"limit"`
	}
	src := func(context.Context, *mcp.CallToolRequest, runArgs) (bounded.Source[run], error) { return nil, nil }
	for _, c := range []struct {
		name, want string
		add        func(s *mcp.Server)
	}{
		{"In not a struct", `want an object's schema`, func(s *mcp.Server) {
			mcptools.AddTool(s, &mcp.Tool{Name: "t"}, mcptools.Options[run]{Limits: runLimits},
				func(context.Context, *mcp.CallToolRequest, int) (bounded.Source[run], error) { return nil, nil })
		}},
		{"In with a paging argument", `argument "limit" is a paging argument`, func(s *mcp.Server) {
			mcptools.AddTool(s, &mcp.Tool{Name: "t"}, mcptools.Options[run]{Limits: runLimits},
				func(context.Context, *mcp.CallToolRequest, withLimit) (bounded.Source[run], error) { return nil, nil })
		}},
		{"no limits", `want 1 <= default <= max`, func(s *mcp.Server) {
			mcptools.AddTool(s, &mcp.Tool{Name: "t"}, mcptools.Options[run]{}, src)
		}},
		{"budget under the minimum", `under the minimum 1000`, func(s *mcp.Server) {
			mcptools.AddTool(s, &mcp.Tool{Name: "t"}, mcptools.Options[run]{Limits: runLimits, Budget: bounded.Budget{MaxChars: 900}}, src)
		}},
		{"invalid budget", `Margin 2 is not in (0, 1]`, func(s *mcp.Server) {
			mcptools.AddTool(s, &mcp.Tool{Name: "t"}, mcptools.Options[run]{Limits: runLimits, Budget: bounded.Budget{Margin: 2}}, src)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.Contains(got, c.want) || !strings.Contains(got, `tool "t"`) {
					t.Errorf("panic %q, want one naming the tool and %q", got, c.want)
				}
			}()
			c.add(mcp.NewServer(&mcp.Implementation{Name: "test"}, nil))
		})
	}
}

// celsius encodes itself as a number.
type celsius float64

func (c celsius) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%.1f", float64(c))), nil }

// reading has fields that encode themselves, which the output schema
// allows as they encode.
type reading struct {
	ID    int               `json:"id"`
	At    time.Time         `json:"at"`
	Temp  celsius           `json:"temp"`
	Raw   json.RawMessage   `json:"raw"`
	Next  bounded.Args      `json:"next,omitempty"`
	Kind  bounded.TotalKind `json:"kind"`
	Extra *celsius          `json:"extra,omitempty"`
}

// node is a recursive type: its schema describes it down to itself.
type node struct {
	ID       int    `json:"id"`
	Children []node `json:"children,omitempty"`
}

// TestOutputSchemaItems: a result type's schema is inferred, allowing
// what encodes itself as it encodes; a type inside itself is any value
// there.
func TestOutputSchemaItems(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	readings := []reading{{ID: 1, At: base, Temp: 21.5, Raw: json.RawMessage(`[1,"a"]`), Next: bounded.Args{{Name: "a", Value: 1}}, Kind: bounded.TotalAtLeast, Extra: new(celsius(-3))}}
	mcptools.AddTool(server, &mcp.Tool{Name: "readings"}, mcptools.Options[reading]{Limits: runLimits},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[reading], error) {
			return bounded.FromSlice(readings), nil
		})
	mcptools.AddTool(server, &mcp.Tool{Name: "tree"}, mcptools.Options[node]{Limits: runLimits},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[node], error) {
			return bounded.FromSlice([]node{{ID: 1, Children: []node{{ID: 2}}}}), nil
		})
	cl := mcptoolstest.Serve(t, server)
	for _, c := range []struct{ tool, items string }{
		{"readings", `"properties":{"at":{"type":"string"},"extra":true,"id":{"type":"integer"},"kind":{"enum":["exact","atLeast","unknown"],"type":"string"},"next":{"type":"object"},"raw":true,"temp":true}`},
		{"tree", `"items":{"additionalProperties":false,"properties":{"children":{"items":true,"type":["null","array"]},"id":{"type":"integer"}},"required":["id"],"type":"object"}`},
	} {
		if s := mustJSON(cl.Tools[c.tool].OutputSchema); !strings.Contains(s, c.items) {
			t.Errorf("%s: output schema %s, want %s", c.tool, s, c.items)
		}
		cl.Call(c.tool, `{}`) // the results pass the output schema
	}
}
