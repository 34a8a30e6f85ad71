package tools_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// quiet is a budget whose cuts are not logged: the tests make many.
var quiet = bounded.Budget{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}

func newSet(t testing.TB, mode tools.Mode) *tools.Set {
	t.Helper()
	s := fixtures(t)
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Mode: mode, Budget: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// envelope is the decoded response of a tool.
type envelope struct {
	Results         []json.RawMessage   `json:"results"`
	Pagination      bounded.PageInfo    `json:"pagination"`
	Truncated       bool                `json:"truncated"`
	Truncation      bounded.Truncation  `json:"truncation"`
	Hint            string              `json:"hint"`
	Next            json.RawMessage     `json:"next"`
	NextKeeps       []string            `json:"nextKeeps"`
	ContentMetadata *bounded.WindowInfo `json:"contentMetadata"`
}

// resolvedHint is env's hint with its references written out, as an agent
// reads them: <pagination.nextCursor> as the page's next cursor, and
// name=<as before> as the value of the argument name of the call args.
func resolvedHint(t testing.TB, env envelope, args string) string {
	t.Helper()
	h := strings.ReplaceAll(env.Hint, "<pagination.nextCursor>", strconv.Quote(env.Pagination.NextCursor))
	for _, a := range orderedArgs(t, json.RawMessage(args)) {
		r := bounded.Call{}.Render(bounded.Args{a})
		h = strings.ReplaceAll(h, a.Name+"=<as before>", r[1:len(r)-1])
	}
	return h
}

func call(t testing.TB, set *tools.Set, name, args string) (envelope, []byte) {
	t.Helper()
	out, err := set.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s(%s): response is not an envelope: %v\n%.2000s", name, args, err, out)
	}
	return env, out
}

// keyOf identifies a result: its id, name, link or chunk.
func keyOf(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		ID, Name, SourceID, Target, Category, FilePath string
		Position                                       *int
		StartLine                                      int
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case r.SourceID != "":
		pos := -1
		if r.Position != nil {
			pos = *r.Position
		}
		return fmt.Sprintf("%s%s#%d>%s", r.Category, r.SourceID, pos, r.Target)
	case r.FilePath != "":
		return fmt.Sprintf("%s:%d", r.FilePath, r.StartLine)
	case r.Name != "":
		return r.Name
	}
	return r.ID
}

func keys(t testing.TB, env envelope) []string {
	var out []string
	for _, r := range env.Results {
		out = append(out, keyOf(t, r))
	}
	return out
}

func TestNew(t *testing.T) {
	s := fixtures(t)
	if _, err := tools.New(tools.Config{Notes: s, Mode: "secret"}); !errors.Is(err, ports.ErrInvalidQuery) {
		t.Errorf("unknown mode: got %v, want ports.ErrInvalidQuery", err)
	}
	if _, err := tools.New(tools.Config{Notes: s, Budget: bounded.Budget{MaxChars: 500}}); !errors.Is(err, bounded.ErrInvalidBudget) {
		t.Errorf("budget under the minimum: got %v, want bounded.ErrInvalidBudget", err)
	}
	if _, err := tools.New(tools.Config{Notes: s, Budget: bounded.Budget{MaxTokens: 100}}); !errors.Is(err, bounded.ErrInvalidBudget) {
		t.Errorf("token budget under the minimum: got %v, want bounded.ErrInvalidBudget", err)
	}
	set, err := tools.New(tools.Config{History: s})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range set.Tools() {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"get_response_history"}) {
		t.Errorf("a set with only History lists %v", names)
	}
	if _, err := set.Call(context.Background(), "get_note", nil); !errors.Is(err, tools.ErrUnknownTool) {
		t.Errorf("call of a tool not in the set: got %v, want ErrUnknownTool", err)
	}
	full := newSet(t, tools.Balanced)
	names = names[:0]
	for _, tl := range full.Tools() {
		names = append(names, tl.Name)
	}
	want := []string{"get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "find_broken_links",
		"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes",
		"search_knowledge", "get_response_history", "search_code"}
	if !slices.Equal(names, want) {
		t.Errorf("tools:\ngot  %v\nwant %v", names, want)
	}
}

func TestArguments(t *testing.T) {
	set := newSet(t, tools.Balanced)
	for _, c := range []struct {
		tool, args string
		want       []error // every one must match
		arg        string  // the argument the message names; "" for none
	}{
		{"list_notes", `{"limit":-1}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "limit"},
		{"list_notes", `{"limit":0}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "limit"},
		{"list_notes", `{"limit":2.5}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "limit"},
		{"list_notes", `{"limit":"5"}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "limit"},
		{"list_notes", `{"offset":1e20}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "offset"},
		{"list_notes", `{"offset":-3}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "offset"},
		{"list_notes", `{"offset":9007199254740991,"limit":5}`, []error{bounded.ErrInvalidPage}, ""},
		{"list_notes", `{"limt":1}`, []error{tools.ErrInvalidArguments}, "limt"},
		{"list_notes", `{"limit":1,"limit":2}`, []error{tools.ErrInvalidArguments}, "limit"},
		{"list_notes", `[1]`, []error{tools.ErrInvalidArguments}, ""},
		{"list_notes", `"x"`, []error{tools.ErrInvalidArguments}, ""},
		{"list_notes", `{"limit":1} {}`, []error{tools.ErrInvalidArguments}, ""},
		{"list_notes", `{"limit":1`, []error{tools.ErrInvalidArguments}, ""},
		{"list_notes", `{"tag":true}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "tag"},
		{"list_notes", `{"detail":"verbose"}`, []error{tools.ErrInvalidArguments}, "detail"},
		{"list_notes", `{"budget":10}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidBudget}, "budget"},
		{"list_notes", `{"budget":1000.5}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidBudget}, "budget"},
		{"search_knowledge", `{"query":"a","page":1,"offset":3}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "offset"},
		{"search_knowledge", `{"query":"a","pageSize":-1}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "pageSize"},
		{"search_knowledge", `{"query":"a","page":-1}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "page"},
		{"search_knowledge", `{"query":"a","page":0.5}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "page"},
		{"search_knowledge", `{"query":"a","page":9007199254740991}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidPage}, "page"},
		{"search_knowledge", `{"query":"a","threshold":1.5}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "threshold"},
		{"search_knowledge", `{"query":"a","threshold":0}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "threshold"},
		{"search_knowledge", `{"query":"a","mode":"regex"}`, []error{tools.ErrInvalidArguments}, "mode"},
		{"search_knowledge", `{"query":"a","queries":["b"]}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "queries"},
		{"search_knowledge", `{}`, []error{ports.ErrInvalidQuery}, ""},
		{"search_knowledge", `{"queries":["a",1]}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "queries"},
		{"get_note", `{}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "id"},
		{"get_note", `{"id":""}`, []error{ports.ErrInvalidQuery}, ""},
		{"get_note", `{"id":"nope"}`, []error{ports.ErrNotFound}, ""},
		{"get_note", "{\"id\":\"Home\xff\"}", []error{tools.ErrInvalidArguments}, ""},
		{"get_note", `{"id":"Home","maxLines":-3}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidWindow}, "maxLines"},
		{"get_note", `{"id":"Home","lineOffset":1.5}`, []error{tools.ErrInvalidArguments, bounded.ErrInvalidWindow}, "lineOffset"},
		{"get_note", `{"id":"Home","limit":5}`, []error{tools.ErrInvalidArguments}, "limit"},
		{"get_notes", `{"ids":[]}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "ids"},
		{"get_notes", `{"ids":[1]}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "ids"},
		{"get_notes", `{"ids":"Home"}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "ids"},
		{"get_notes", `{"ids":[` + strings.Repeat(`"a",`, 100) + `"a"]}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "ids"},
		{"search_notes", `{"query":"   "}`, []error{ports.ErrInvalidQuery}, ""},
		{"search_by_links", `{}`, []error{ports.ErrInvalidQuery}, ""},
		{"search_by_links", `{"brokenLinks":"yes"}`, []error{tools.ErrInvalidArguments}, "brokenLinks"},
		{"get_descendants", `{"id":"projects","maxDepth":21}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "maxDepth"},
		{"get_descendants", `{"id":"projects","maxDepth":0}`, []error{tools.ErrInvalidArguments, ports.ErrInvalidQuery}, "maxDepth"},
		{"get_note_links", `{"id":"Home","category":"outgoing"}`, []error{tools.ErrInvalidArguments}, "category"},
		{"get_response_history", `{"endpointId":"ep1","limit":1e2}`, nil, ""}, // 100: clamped, not an error
		{"search_code", `{"query":"!!"}`, []error{ports.ErrInvalidQuery}, ""},
	} {
		name := c.tool + " " + c.args
		_, err := set.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v, want no error", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %v", name, c.want)
			continue
		}
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: %v does not match %v", name, err, w)
			}
		}
		var ae *tools.ArgumentError
		switch {
		case c.arg != "" && (!errors.As(err, &ae) || ae.Argument != c.arg || !strings.Contains(err.Error(), `"`+c.arg+`"`)):
			t.Errorf("%s: %v does not name the argument %q", name, err, c.arg)
		case !strings.Contains(err.Error(), c.tool):
			t.Errorf("%s: %v does not name the tool", name, err)
		}
	}
}

func TestAcceptedForms(t *testing.T) {
	set := newSet(t, tools.Balanced)
	for _, args := range []string{``, `null`, `{}`, ` { "limit" : 2.0 } `, `{"limit":2e0,"tag":null}`} {
		env, _ := call(t, set, "list_notes", args)
		if env.Pagination.Total != 31 {
			t.Errorf("list_notes(%s): total %d, want 31", args, env.Pagination.Total)
		}
	}
	env, _ := call(t, set, "list_notes", `{"limit":1000}`)
	if p := env.Pagination; p.Limit != 200 || !p.Clamped || p.RequestedLimit != 1000 || !strings.Contains(env.Hint, "The limit 1,000 is over the maximum; 200 was used.") {
		t.Errorf("limit over the maximum: pagination %+v, hint %q; want clamped to 200 and said so", p, env.Hint)
	}
	env, _ = call(t, set, "list_notes", `{"budget":1000000000}`)
	if env.Truncation.LimitChars != 45000 {
		t.Errorf("budget over the server's: limitChars %d, want 45000", env.Truncation.LimitChars)
	}
	env, out := call(t, set, "list_notes", `{"budget":1500}`)
	if env.Truncation.LimitChars != 1500 || utf8.RuneCount(out) > 1500 || !env.Truncated {
		t.Errorf("budget 1500: limitChars %d, %d characters, truncated %v", env.Truncation.LimitChars, utf8.RuneCount(out), env.Truncated)
	}
}

func TestTools(t *testing.T) {
	set := newSet(t, tools.Balanced)
	for _, c := range []struct {
		tool, args string
		want       []string
		total      int
	}{
		{"get_note", `{"id":"projects/alpha"}`, []string{"projects/alpha"}, 1},
		{"get_notes", `{"ids":["Home","nope","Home","projects"]}`, []string{"Home", "nope", "projects"}, 3},
		{"get_notes", `{"ids":["Home","nope","projects"],"offset":1,"limit":1}`, []string{"nope"}, 3},
		{"list_notes", `{"tag":"work"}`, []string{"projects/alpha", "projects/beta"}, 2},
		{"list_notes", `{"folder":"projects"}`, []string{"projects/alpha", "projects/beta", "projects/alpha/design"}, 3},
		{"list_notes", `{"limit":3}`, []string{"Home", "projects", "projects/alpha"}, 31},
		{"search_notes", `{"query":"BETA"}`, []string{"projects/beta"}, 1},
		{"search_notes", `{"query":"second line"}`, []string{"projects/alpha"}, 1},
		{"search_by_links", `{"hasLinksTo":["Home"],"limit":3}`, []string{"projects", "projects/alpha", "projects/beta"}, 29},
		{"search_by_links", `{"externalDomains":["example.org"]}`, []string{"projects/alpha"}, 1},
		{"search_by_links", `{"brokenLinks":true}`, []string{"projects/alpha", "projects/alpha/design"}, 2},
		{"search_by_links", `{"linkedFrom":["projects/beta"],"hasLinksTo":["missing-note"]}`, []string{"projects/alpha"}, 1},
		{"find_broken_links", `{}`, []string{"projects/alpha#1>missing-note", "projects/alpha/design#0>also-missing"}, 2},
		{"get_note_links", `{"id":"projects/alpha"}`, []string{
			"internalprojects/alpha#0>Home", "internalprojects/alpha#1>missing-note",
			"externalprojects/alpha#2>https://docs.example.org/SECRET-doc", "incomingprojects/beta#1>projects/alpha"}, 4},
		{"get_note_links", `{"id":"projects/alpha","offset":1,"limit":2}`, []string{
			"internalprojects/alpha#1>missing-note", "externalprojects/alpha#2>https://docs.example.org/SECRET-doc"}, 4},
		{"get_note_links", `{"id":"projects/alpha","category":"incoming"}`, []string{"incomingprojects/beta#1>projects/alpha"}, 1},
		{"get_note_links", `{"id":"Home","category":"external","detail":"concise"}`, []string{"externalHome#-1>https://example.com/SECRET-path"}, 1},
		{"get_backlinks", `{"id":"projects/alpha"}`, []string{"projects/beta"}, 1},
		{"get_backlinks", `{"id":"missing-note"}`, []string{"projects/alpha"}, 1},
		{"get_children", `{"id":"projects"}`, []string{"projects/alpha", "projects/beta"}, 2},
		{"get_parents", `{"id":"projects/alpha/design"}`, []string{"projects/alpha"}, 1},
		{"get_descendants", `{"id":"projects"}`, []string{"projects/alpha", "projects/beta", "projects/alpha/design"}, 3},
		{"get_descendants", `{"id":"projects","maxDepth":1}`, []string{"projects/alpha", "projects/beta"}, 2},
		{"get_related_notes", `{"id":"projects/alpha","limit":2}`, []string{"projects/beta", "Home"}, 29},
		{"search_knowledge", `{"queries":["entity-01","entity-02"]}`, []string{"entity-02", "entity-01"}, 2},
		{"search_knowledge", `{"query":"entity-0","pageSize":3}`, []string{"entity-04", "entity-09", "entity-03"}, 10},
		{"search_knowledge", `{"query":"entity-07","mode":"fuzzy","pageSize":1}`, []string{"entity-07"}, 30},
		{"get_response_history", `{"endpointId":"ep1"}`, []string{"run-06", "run-05"}, 7},
		{"get_response_history", `{"endpointId":"nobody"}`, nil, 0},
		{"search_code", `{"query":"handler3 parseToken","limit":2}`, []string{"pkg/file3.go:121", "pkg/file0.go:1"}, 12},
	} {
		name := c.tool + " " + c.args
		env, _ := call(t, set, c.tool, c.args)
		if got := keys(t, env); !slices.Equal(got, c.want) {
			t.Errorf("%s: results\ngot  %q\nwant %q", name, got, c.want)
		}
		if env.Pagination.Total != c.total {
			t.Errorf("%s: total %d, want %d", name, env.Pagination.Total, c.total)
		}
	}
}

func TestSearchKnowledgeHint(t *testing.T) {
	set := newSet(t, tools.Balanced)
	env, _ := call(t, set, "search_knowledge", `{"query":"entity","pageSize":4}`)
	want := `Found 30 results, showing 1-4 (page 1 of 8). 7 pages remain: call search_knowledge(query="entity", page=1, pageSize=4) for the next.`
	if env.Hint != want {
		t.Errorf("hint\ngot  %s\nwant %s", env.Hint, want)
	}
	if string(env.Next) != `{"query":"entity","page":1,"pageSize":4}` {
		t.Errorf("next %s", env.Next)
	}
	// Results sorted by score in fuzzy mode, most similar first.
	env, _ = call(t, set, "search_knowledge", `{"query":"entity-1","mode":"fuzzy","pageSize":30}`)
	var prev float64 = 2
	for _, r := range env.Results {
		var e tools.EntityItem
		if err := json.Unmarshal(r, &e); err != nil {
			t.Fatal(err)
		}
		if e.Score > prev {
			t.Errorf("fuzzy results out of order: %v after %v", e.Score, prev)
		}
		prev = e.Score
	}
}

func TestGetNote(t *testing.T) {
	set := newSet(t, tools.Balanced)
	env, _ := call(t, set, "get_note", `{"id":"projects/alpha"}`)
	var n tools.NoteContentItem
	if err := json.Unmarshal(env.Results[0], &n); err != nil {
		t.Fatal(err)
	}
	if n.Content == nil || *n.Content != "Alpha SECRET-alpha\nsecond line\n" || n.ContentMetadata.TotalLines != 2 || n.NextLines != nil {
		t.Errorf("get_note: %+v", n)
	}
	// Balanced mode, one result: the parent and two levels of children,
	// with snippets.
	if c := n.Context; c == nil || len(c.Parents) != 1 || c.Parents[0].ID != "projects" || !strings.HasPrefix(c.Parents[0].Snippet, "SECRET-projects body\nA line") || !strings.Contains(c.Parents[0].Snippet, "…[truncated") ||
		len(c.Children) != 1 || c.Children[0].ID != "projects/alpha/design" || c.Children[0].Depth != 1 {
		t.Errorf("get_note context: %+v", n.Context)
	}
	if env.ContentMetadata == nil || env.Hint != "" || env.Next != nil {
		t.Errorf("get_note envelope: contentMetadata %v, hint %q, next %s", env.ContentMetadata, env.Hint, env.Next)
	}
	env, _ = call(t, set, "get_note", `{"id":"projects/alpha","detail":"concise"}`)
	if strings.Contains(string(env.Results[0]), "context") || strings.Contains(string(env.Results[0]), "updatedAt") {
		t.Errorf("concise get_note has context or dates: %s", env.Results[0])
	}
}

// TestLineWalk reads long notes by following next, in windows cut by
// small budgets, and checks that every line comes exactly once, in order,
// and that each response's contentMetadata counts the lines it returns. The
// note has hierarchy context around it, which the budget must make room
// for.
func TestLineWalk(t *testing.T) {
	set := newSet(t, tools.Balanced)
	store := fixtures(t)
	for _, c := range []struct {
		id       string
		maxLines int
		budget   int
	}{
		{"Log", 700, 3000},
		{"Log", 0, 45000},
		{"projects/alpha/design", 50, 2000},
		{"projects/alpha/design", 0, 1200},
		{"projects/alpha/design", 3, 1000},
		{"projects", 0, 2000}, // its children's snippets take half the budget
		{"projects", 40, 1500},
	} {
		name := fmt.Sprintf("%s maxLines %d budget %d", c.id, c.maxLines, c.budget)
		var whole string
		for w := (bounded.Window{MaxLines: bounded.MaxWindowLines}); ; {
			part, err := store.GetNote(context.Background(), c.id, w)
			if err != nil {
				t.Fatal(err)
			}
			whole += part.Content
			if w.Offset = part.Window.NextOffset; w.Offset == 0 {
				break
			}
		}
		var text strings.Builder
		args := fmt.Sprintf(`{"id":%q,"budget":%d}`, c.id, c.budget)
		if c.maxLines > 0 {
			args = fmt.Sprintf(`{"id":%q,"maxLines":%d,"budget":%d}`, c.id, c.maxLines, c.budget)
		}
		for calls := 0; ; calls++ {
			if calls > 500 {
				t.Fatalf("%s: no end after 500 calls", name)
			}
			env, out := call(t, set, "get_note", args)
			if n := utf8.RuneCount(out); n > c.budget {
				t.Fatalf("%s: %s: %d characters, over the budget", name, args, n)
			}
			if env.Truncation.Reason == bounded.ReasonSingleResultTooLarge {
				t.Fatalf("%s: %s: the budget clipped the note blindly: %s", name, args, out)
			}
			var n struct {
				Content         string
				ContentClip     *bounded.ClipInfo
				ContentMetadata bounded.WindowInfo
				NextLines       json.RawMessage
			}
			if err := json.Unmarshal(env.Results[0], &n); err != nil {
				t.Fatal(err)
			}
			got := n.Content
			if n.ContentClip != nil {
				got = got[:strings.LastIndex(got, "…[truncated ")]
			}
			lines := strings.Count(got, "\n")
			if !strings.HasSuffix(got, "\n") && got != "" {
				lines++ // a last line without its end: clipped, or the note's last
			}
			// A clipped line goes on at charOffset in the next call: every
			// character comes once.
			if lines != n.ContentMetadata.ReturnedLines || *env.ContentMetadata != n.ContentMetadata {
				t.Fatalf("%s: %s: %d lines returned, contentMetadata %+v, envelope's %+v", name, args, lines, n.ContentMetadata, env.ContentMetadata)
			}
			text.WriteString(got)
			if n.NextLines != nil {
				t.Fatalf("%s: %s: nextLines in the note, want the envelope's next", name, args)
			}
			if env.Next == nil {
				break
			}
			args = string(env.Next)
		}
		if text.String() != whole {
			t.Errorf("%s: reading window by window gave %d bytes, want the note's %d", name, text.Len(), len(whole))
		}
	}
}

// orderedArgs decodes a JSON object into bounded.Args, keeping key order.
func orderedArgs(t testing.TB, raw json.RawMessage) bounded.Args {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out bounded.Args
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, bounded.Arg{Name: k.(string), Value: v})
	}
	return out
}

// walk calls tool with args, then with each response's next until there is
// none, and returns every result's key in order. Each response must fit
// budget (when set), and its hint must name exactly the call in next.
func walk(t testing.TB, set *tools.Set, tool, args string, budget int) (all []string, cuts int) {
	t.Helper()
	for calls := 0; ; calls++ {
		if calls > 500 {
			t.Fatalf("%s: no end after 500 calls", tool)
		}
		env, out := call(t, set, tool, args)
		if budget > 0 && utf8.RuneCount(out) > budget {
			t.Fatalf("%s(%s): %d characters, over the budget %d", tool, args, utf8.RuneCount(out), budget)
		}
		if env.Pagination.Returned != len(env.Results) {
			t.Fatalf("%s(%s): returned %d, %d results", tool, args, env.Pagination.Returned, len(env.Results))
		}
		all = append(all, keys(t, env)...)
		if env.Truncated {
			cuts++
		}
		if env.Next == nil {
			if env.Pagination.HasMore {
				t.Fatalf("%s(%s): hasMore without next", tool, args)
			}
			return all, cuts
		}
		render := bounded.Call{Tool: tool}.Render(orderedArgs(t, json.RawMessage(nextArgs(t, env, args))))
		if !strings.Contains(resolvedHint(t, env, args), "call "+render+" for the next") {
			t.Fatalf("%s(%s): hint %q does not name the next call %s", tool, args, env.Hint, render)
		}
		args = nextArgs(t, env, args)
	}
}

// TestWalkExactlyOnce follows next through every paged tool, by several
// page sizes and under a small budget, and compares the results with one
// read of the whole set: every result exactly once, in order.
func TestWalkExactlyOnce(t *testing.T) {
	for _, offsetHints := range []bool{false, true} {
		t.Run(fmt.Sprintf("offsetHints=%v", offsetHints), func(t *testing.T) {
			s := fixtures(t)
			set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet, OffsetHints: offsetHints})
			if err != nil {
				t.Fatal(err)
			}
			walkEveryTool(t, set, !offsetHints)
		})
	}
}

// walkEveryTool walks every paged tool of set; byCursor says that set
// continues by cursor, whose cut responses carry the cursor three times
// (pagination, hint and next): their smallest budget is a little larger.
func walkEveryTool(t *testing.T, set *tools.Set, byCursor bool) {
	var allIDs []string
	for i := range 25 {
		allIDs = append(allIDs, fmt.Sprintf(`"notes/%02d"`, i))
	}
	for _, c := range []struct {
		tool, args, size string
		max              int
		budget           int // a small budget that cuts pages; 0: 1,200
	}{
		{"list_notes", `{}`, "limit", 200, 0},
		{"search_notes", `{"query":"note"}`, "limit", 100, 0},
		{"search_by_links", `{"hasLinksTo":["Home"]}`, "limit", 200, 0},
		{"find_broken_links", `{}`, "limit", 500, 0},
		{"get_note_links", `{"id":"Home"}`, "limit", 500, 0},
		{"get_note_links", `{"id":"Home","category":"incoming"}`, "limit", 500, 0},
		{"get_backlinks", `{"id":"Home"}`, "limit", 500, 0},
		{"get_children", `{"id":"projects"}`, "limit", 200, 0},
		{"get_descendants", `{"id":"projects"}`, "limit", 500, 0},
		{"get_related_notes", `{"id":"Home"}`, "limit", 200, 0},
		// The ids are repeated in every hint and next: a larger budget.
		{"get_notes", `{"ids":["nope",` + strings.Join(allIDs, ",") + `],"maxLines":1}`, "limit", 100, 2400},
		{"search_knowledge", `{"query":"entity"}`, "pageSize", 1000, 0},
		{"search_knowledge", `{"query":"entity-1","mode":"fuzzy","threshold":0.1}`, "pageSize", 1000, 0},
		{"get_response_history", `{"endpointId":"ep1"}`, "limit", 10, 0},
		{"search_code", `{"query":"parseToken validate"}`, "limit", 50, 0},
	} {
		name := c.tool + " " + c.args
		with := func(extra string) string { return strings.TrimSuffix(c.args, "}") + sep(c.args) + extra + "}" }
		small := cmp.Or(c.budget, 1200)
		tiny := small - 200
		if byCursor {
			tiny = small - 100
		}
		want := map[bool][]string{}
		size := map[bool]int{} // characters of the whole set in one response
		for _, concise := range []bool{false, true} {
			detail := ""
			if concise {
				detail = `"detail":"concise",`
			}
			full, out := call(t, set, c.tool, with(detail+fmt.Sprintf(`"%s":%d`, c.size, c.max)))
			size[concise] = utf8.RuneCount(out)
			if full.Pagination.HasMore || full.Truncated {
				t.Fatalf("%s: one read of the whole set has more", name)
			}
			if want[concise] = keys(t, full); len(want[concise]) < 2 {
				t.Fatalf("%s: only %d results, too few to page", name, len(want[concise]))
			}
		}
		for _, w := range []struct {
			extra   string
			budget  int
			concise bool
		}{
			{fmt.Sprintf(`"%s":1`, c.size), 0, false},
			{fmt.Sprintf(`"%s":2`, c.size), 0, false},
			{fmt.Sprintf(`"%s":3`, c.size), 0, false},
			{fmt.Sprintf(`"%s":7`, c.size), 0, false},
			{fmt.Sprintf(`"budget":%d`, small), small, false},
			{fmt.Sprintf(`"%s":5,"budget":%d`, c.size, small*3/2), small * 3 / 2, false},
			{fmt.Sprintf(`"detail":"concise","budget":%d`, tiny), tiny, true},
		} {
			got, cuts := walk(t, set, c.tool, with(w.extra), w.budget)
			if !slices.Equal(got, want[w.concise]) {
				t.Errorf("%s walked with %s:\ngot  %q\nwant %q", name, w.extra, got, want[w.concise])
			}
			if w.budget > 0 && !strings.Contains(w.extra, c.size) && size[w.concise] > w.budget && cuts == 0 {
				t.Errorf("%s walked with %s: the whole set takes %d characters, yet no response was cut", name, w.extra, size[w.concise])
			}
		}
	}
}

func sep(args string) string {
	if args == "{}" {
		return ""
	}
	return ","
}

// TestBudgetCutContinuesByOffset checks search_knowledge's ByPage walk: a
// budget cut leaves page numbers for offset, and the hint says so.
func TestBudgetCutContinuesByOffset(t *testing.T) {
	set := newSet(t, tools.Balanced)
	env, out := call(t, set, "search_knowledge", `{"query":"entity","pageSize":10,"budget":4000}`)
	if !env.Truncated || env.Truncation.Reason != bounded.ReasonCharacterLimit || utf8.RuneCount(out) > 4000 {
		t.Fatalf("want a cut within 4,000 characters: truncated %v, %+v, %d characters", env.Truncated, env.Truncation, utf8.RuneCount(out))
	}
	n := len(env.Results)
	want := fmt.Sprintf(`{"query":"entity","budget":4000,"offset":%d,"pageSize":10}`, n)
	if string(env.Next) != want || env.Pagination.NextOffset != n {
		t.Errorf("next %s, nextOffset %d; want %s", env.Next, env.Pagination.NextOffset, want)
	}
}

// TestBudgetCutContinuesByCursor checks the paged tools: a response cut
// to fit its budget names the cursor of the cut position
// (pagination.nextCursor) in its next call and its hint, and that call
// continues with the first result cut. get_response_history and
// search_knowledge, and every tool under OffsetHints, continue a cut
// response by offset, and its nextCursor leads to the same results.
func TestBudgetCutContinuesByCursor(t *testing.T) {
	s := fixtures(t)
	for _, c := range []struct {
		tool, args, size string
		max              int
		byCursor         bool // by default
	}{
		{"list_notes", `{}`, "limit", 50, true},
		{"get_backlinks", `{"id":"Home"}`, "limit", 50, true},
		{"search_knowledge", `{"query":"entity"}`, "pageSize", 50, false},
		{"get_response_history", `{"endpointId":"ep1"}`, "limit", 10, false},
		{"search_code", `{"query":"parseToken validate"}`, "limit", 50, true},
	} {
		with := func(extra string) string { return strings.TrimSuffix(c.args, "}") + sep(c.args) + extra + "}" }
		for _, offsetHints := range []bool{false, true} {
			set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet, OffsetHints: offsetHints})
			if err != nil {
				t.Fatal(err)
			}
			cursorHints := c.byCursor && !offsetHints
			whole, _ := call(t, set, c.tool, with(fmt.Sprintf(`"%s":%d,"detail":"concise"`, c.size, c.max)))
			all := keys(t, whole)
			args := with(fmt.Sprintf(`"%s":10,"budget":1500`, c.size))
			env, _ := call(t, set, c.tool, args)
			at := fmt.Sprintf("%s(%s) with OffsetHints %v", c.tool, args, offsetHints)
			n := len(env.Results)
			if !env.Truncated || n == 0 || n >= len(all) || !env.Pagination.HasMore {
				t.Fatalf("%s: %d of %d results, truncated %v: want a cut", at, n, len(all), env.Truncated)
			}
			nc := env.Pagination.NextCursor
			if nc == "" {
				t.Fatalf("%s: a cut page without nextCursor: %+v", at, env.Pagination)
			}
			next := orderedArgs(t, env.Next)
			cur, byCursor := next.Get("cursor")
			_, byOffset := next.Get("offset")
			switch {
			case cursorHints && (cur != nc || byOffset || !strings.Contains(resolvedHint(t, env, args), fmt.Sprintf("cursor=%q", nc))):
				t.Errorf("%s: next %s, hint %q; want both to continue by cursor %q", at, env.Next, env.Hint, nc)
			case !cursorHints && (byCursor || !byOffset):
				t.Errorf("%s: next %s; want it to continue by offset", at, env.Next)
			}
			// The next call, and the cursor whatever the hints, continue
			// with the first result cut.
			for _, follow := range []string{string(env.Next), with(fmt.Sprintf(`"%s":10,"cursor":%q`, c.size, nc))} {
				got, _ := call(t, set, c.tool, follow)
				if ks := keys(t, got); len(ks) == 0 || ks[0] != all[n] || got.Pagination.Offset != n {
					t.Errorf("%s: %s(%s) continues at offset %d with %q; want offset %d, %q", at, c.tool, follow, got.Pagination.Offset, ks, n, all[n])
				}
			}
		}
	}
}

// privateCalls exercise every tool; private mode must return none of the
// fixtures' content from any of them.
var privateCalls = map[string][]string{
	"get_note":             {`{"id":"projects/alpha"}`, `{"id":"Log","maxLines":5}`, `{"id":"Home"}`},
	"get_notes":            {`{"ids":["Home","projects/alpha","Log","nope"]}`},
	"list_notes":           {`{}`, `{"folder":"projects"}`},
	"search_notes":         {`{"query":"note"}`, `{"query":"alpha"}`},
	"search_by_links":      {`{"hasLinksTo":["Home"]}`, `{"externalDomains":["example.com","example.org"]}`, `{"brokenLinks":true}`},
	"find_broken_links":    {`{}`},
	"get_note_links":       {`{"id":"projects/alpha"}`, `{"id":"Home"}`},
	"get_backlinks":        {`{"id":"Home"}`},
	"get_children":         {`{"id":"projects"}`},
	"get_parents":          {`{"id":"projects/alpha"}`},
	"get_descendants":      {`{"id":"projects"}`},
	"get_related_notes":    {`{"id":"projects/alpha"}`, `{"id":"Home"}`},
	"search_knowledge":     {`{"query":"entity"}`, `{"query":"obs-1"}`, `{"query":"entity-1","mode":"fuzzy"}`},
	"get_response_history": {`{"endpointId":"ep1","limit":10}`},
	"search_code":          {`{"query":"parseToken validate"}`},
}

func TestPrivateModeReturnsNoContent(t *testing.T) {
	private, full := newSet(t, tools.Private), newSet(t, tools.Full)
	for _, tl := range private.Tools() {
		cases := privateCalls[tl.Name]
		if len(cases) == 0 {
			t.Errorf("%s: no private-mode case", tl.Name)
		}
		leaked := false
		for _, args := range cases {
			for _, detail := range []string{"", `,"detail":"concise"`} {
				a := args
				if detail != "" {
					a = strings.TrimSuffix(args, "}") + sep(args) + detail[1:] + "}"
				}
				_, out := call(t, private, tl.Name, a)
				if strings.Contains(string(out), secret) {
					t.Errorf("private %s(%s) returns content:\n%.3000s", tl.Name, a, out)
				}
				_, out = call(t, full, tl.Name, a)
				leaked = leaked || strings.Contains(string(out), secret)
			}
		}
		// The fixtures give every tool that returns content some to return
		// in full mode, so the private check above is not vacuous.
		switch tl.Name {
		case "get_note", "get_notes", "list_notes", "search_notes", "search_by_links", "get_note_links", "get_backlinks",
			"get_related_notes", "search_knowledge", "get_response_history", "search_code":
			if !leaked {
				t.Errorf("%s: full mode returned no content either; the private check proves nothing", tl.Name)
			}
		}
	}
	env, _ := call(t, private, "get_note", `{"id":"projects/alpha"}`)
	var n tools.NoteContentItem
	if err := json.Unmarshal(env.Results[0], &n); err != nil {
		t.Fatal(err)
	}
	if n.Content != nil || !slices.Equal(n.Withheld, []string{"content"}) || n.Title != "Alpha" || n.Context != nil {
		t.Errorf("private get_note: %+v; want the title, no content, withheld [content], no context", n)
	}
	env, _ = call(t, private, "get_note_links", `{"id":"projects/alpha"}`)
	var l tools.LinkItem
	if err := json.Unmarshal(env.Results[0], &l); err != nil {
		t.Fatal(err)
	}
	if l.Target != "Home" || !slices.Equal(l.Withheld, []string{"text"}) {
		t.Errorf("private internal link: %+v; want target Home, text withheld", l)
	}
}

func TestContentModes(t *testing.T) {
	// 30 entities with 600-character observations: balanced clips each
	// result's observations to 500 characters for 10-50 results; full keeps
	// them whole up to 100.
	for _, c := range []struct {
		mode    tools.Mode
		clipped bool
	}{{tools.Balanced, true}, {tools.Full, false}} {
		set := newSet(t, c.mode)
		env, _ := call(t, set, "search_knowledge", `{"query":"entity","pageSize":30}`)
		var e tools.EntityItem
		if err := json.Unmarshal(env.Results[0], &e); err != nil {
			t.Fatal(err)
		}
		chars := 0
		for _, o := range e.Observations {
			chars += utf8.RuneCountInString(o)
		}
		if clipped := e.ObservationsTotal > 0; clipped != c.clipped || c.clipped && chars > 500 || !c.clipped && len(e.Observations) != 2 {
			t.Errorf("%s mode, 30 results: %d observations of %d characters, total %d", c.mode, len(e.Observations), chars, e.ObservationsTotal)
		}
		if c.clipped && !strings.Contains(e.Observations[len(e.Observations)-1], "…[truncated") {
			t.Errorf("%s mode: clip without a marker: %q", c.mode, e.Observations)
		}
	}
	// Balanced: context for small pages only.
	set := newSet(t, tools.Balanced)
	env, _ := call(t, set, "list_notes", `{"folder":"projects"}`)
	if !strings.Contains(string(env.Results[0]), `"context"`) {
		t.Errorf("balanced, 3 results: no context: %s", env.Results[0])
	}
	env, _ = call(t, set, "list_notes", `{"limit":60}`)
	for _, r := range env.Results {
		if strings.Contains(string(r), `"parents"`) {
			t.Errorf("balanced, 31 results: parents attached (only children are, 10 to 50 results): %s", r)
		}
	}
	if !strings.Contains(string(env.Results[1]), `"children"`) {
		t.Errorf("balanced, 31 results: no children attached: %s", env.Results[1])
	}
}

func TestSchemas(t *testing.T) {
	set := newSet(t, tools.Balanced)
	for _, tl := range set.Tools() {
		var s struct {
			Type                 string
			Properties           map[string]map[string]any
			Required             []string
			AdditionalProperties *bool
		}
		if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
			t.Fatalf("%s: schema: %v", tl.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema type %q, additionalProperties %v", tl.Name, s.Type, s.AdditionalProperties)
		}
		for _, name := range []string{"budget", "detail"} {
			if s.Properties[name] == nil {
				t.Errorf("%s: no %s argument", tl.Name, name)
			}
		}
		paging := []string{"limit", "offset"}
		if tl.Paging == bounded.ByPage {
			paging = []string{"page", "pageSize", "offset"}
		}
		if tl.Limits == (bounded.Limits{}) {
			paging = []string{"maxLines", "lineOffset"}
		}
		// Sizes have a minimum, a maximum and a default; offsets and page
		// numbers a minimum of 0 (their maximum is every integer's, their
		// default 0); budgets a minimum and a maximum (their default).
		for _, name := range append(paging, "budget") {
			p := s.Properties[name]
			size := name == "limit" || name == "pageSize" || name == "maxLines"
			budget := name == "budget"
			if p == nil || p["type"] != "integer" || p["minimum"] == nil || (size || budget) != (p["maximum"] != nil) || size != (p["default"] != nil) {
				t.Errorf("%s: %s: %v; want an integer with a minimum, and a maximum and default as it is a size, an offset or a budget", tl.Name, name, p)
			}
		}
		if l := tl.Limits; l != (bounded.Limits{}) {
			size := s.Properties[paging[len(paging)-2]]
			if paging[0] == "limit" {
				size = s.Properties["limit"]
			}
			if size["default"] != float64(l.Default) || size["maximum"] != float64(l.Max) {
				t.Errorf("%s: page size default %v, maximum %v; want %d, %d", tl.Name, size["default"], size["maximum"], l.Default, l.Max)
			}
		}
		for _, r := range s.Required {
			if s.Properties[r] == nil {
				t.Errorf("%s: required %q is not a property", tl.Name, r)
			}
		}
	}
}

// TestCursors checks the cursor argument of the paged tools: next calls by
// cursor by default, cursors refused by other tools and with an offset or
// page, and count strategies chosen per tool.
func TestCursors(t *testing.T) {
	s := fixtures(t)
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet,
		Counts: map[string]tools.Count{"search_knowledge": {Mode: bounded.CountCapped, Cap: 5}, "list_notes": {Mode: bounded.CountNone}}})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := call(t, set, "get_backlinks", `{"id":"Home","limit":2}`)
	if env.Pagination.NextCursor == "" || !strings.Contains(string(env.Next), `"cursor":`) || !strings.Contains(env.Hint, "cursor=") {
		t.Fatalf("get_backlinks: next %s, hint %q; want both to continue by cursor", env.Next, env.Hint)
	}
	// A tool that takes no cursor returns none, though its store issues
	// them: its next calls go by offset.
	for _, args := range []string{`{"id":"projects/alpha","category":"internal","limit":1}`, `{"id":"projects/alpha","category":"internal","limit":1,"offset":1}`, `{"id":"projects/alpha","limit":1,"offset":1}`} {
		nl, _ := call(t, set, "get_note_links", args)
		if nl.Pagination.NextCursor != "" || nl.Pagination.PrevCursor != "" || strings.Contains(string(nl.Next), "cursor") {
			t.Errorf("get_note_links(%s): nextCursor %q, prevCursor %q, next %s; want no cursor", args, nl.Pagination.NextCursor, nl.Pagination.PrevCursor, nl.Next)
		}
	}
	// The cursor of one tool is refused by every other, and with offset.
	for _, c := range []struct{ tool, args string }{
		{"list_notes", `{"cursor":%q}`},
		{"get_children", `{"id":"Home","cursor":%q}`},
		{"get_backlinks", `{"id":"projects","cursor":%q}`},
		{"search_knowledge", `{"query":"entity","cursor":%q}`},
	} {
		_, err := set.Call(context.Background(), c.tool, json.RawMessage(fmt.Sprintf(c.args, env.Pagination.NextCursor)))
		if !errors.Is(err, bounded.ErrInvalidCursor) {
			t.Errorf("%s given get_backlinks' cursor: %v; want ErrInvalidCursor", c.tool, err)
		}
	}
	for _, args := range []string{`{"id":"Home","offset":2,"cursor":%q}`} {
		_, err := set.Call(context.Background(), "get_backlinks", json.RawMessage(fmt.Sprintf(args, env.Pagination.NextCursor)))
		if !errors.Is(err, tools.ErrInvalidArguments) || !errors.Is(err, bounded.ErrInvalidCursor) {
			t.Errorf("cursor with offset: %v; want ErrInvalidArguments and ErrInvalidCursor", err)
		}
	}
	_, err = set.Call(context.Background(), "search_knowledge", json.RawMessage(`{"query":"entity","page":1,"cursor":"x"}`))
	if !errors.Is(err, tools.ErrInvalidArguments) {
		t.Errorf("cursor with page: %v; want ErrInvalidArguments", err)
	}
	// Count strategies per tool, reported honestly.
	k, _ := call(t, set, "search_knowledge", `{"query":"entity","pageSize":2}`)
	if k.Pagination.TotalKind != bounded.TotalAtLeast || k.Pagination.Total != 5 || !strings.Contains(k.Hint, "5+") {
		t.Errorf("search_knowledge capped at 5: total %d (%v), hint %q; want 5+ as a lower bound", k.Pagination.Total, k.Pagination.TotalKind, k.Hint)
	}
	l, _ := call(t, set, "list_notes", `{"limit":2}`)
	if l.Pagination.TotalKind != bounded.TotalUnknown || strings.Contains(l.Hint, "Found") || !l.Pagination.HasMore {
		t.Errorf("list_notes without a count: total %d (%v), hint %q; want an unknown total, hasMore, no count in the hint", l.Pagination.Total, l.Pagination.TotalKind, l.Hint)
	}
	all, _ := walk(t, set, "list_notes", `{"limit":3}`, 0)
	whole, _ := call(t, set, "list_notes", `{"limit":200}`)
	if !slices.Equal(all, keys(t, whole)) {
		t.Errorf("list_notes walked by cursor without counts:\ngot  %q\nwant %q", all, keys(t, whole))
	}
	for _, bad := range []map[string]tools.Count{{"get_note": {Mode: bounded.CountNone}}, {"get_notes": {Mode: bounded.CountNone}}, {"get_note_links": {Mode: bounded.CountCapped}}, {"nope": {}}, {"list_notes": {Mode: bounded.CountCapped, Cap: -1}}} {
		if _, err := tools.New(tools.Config{Notes: s, Counts: bad}); err == nil {
			t.Errorf("tools.New with Counts %v: no error", bad)
		}
	}
}
