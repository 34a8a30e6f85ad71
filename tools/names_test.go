package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// helpVault is a vault shaped like Obsidian's help: languages as top
// folders, no index notes but one (en/Plugins), the same note name in
// several languages, notes named as parents; and one entity per note, for
// the fuzzy index.
func helpVault(t *testing.T, s store) {
	t.Helper()
	notes := []ports.Note{
		{ID: "Home", Title: "Home", Content: "home\n"},
		{ID: "en/Plugins", Title: "Plugins index", Content: "the plugins\n"},
		{ID: "en/Plugins/Canvas", Title: "Canvas", Content: "canvas in en\n", Links: []ports.Link{{Target: "en/Plugins/Core plugins/Backlinks"}}},
		{ID: "en/Plugins/Core plugins/Backlinks", Title: "Backlinks", Content: "backlinks\n", Parents: []string{"Home"}},
		{ID: "en/Plugins/Core plugins/Graph view", Title: "Graph view", Content: "graph\n", Links: []ports.Link{{Target: "en/Plugins/Canvas"}}},
		{ID: "ja/プラグイン/Canvas", Title: "Canvas", Content: "canvas in ja\n"},
		{ID: "ko/플러그인/Canvas", Title: "Canvas", Content: "canvas in ko\n"},
	}
	for _, n := range notes {
		putNote(t, s, n)
		if err := s.PutEntity(context.Background(), ports.Entity{Name: n.ID, Type: "note", UpdatedAt: base}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoteNames checks that every tool taking a note id takes what a link
// takes, on memrepo, SQLite and Postgres: a basename, a path in other case
// or with ".md" resolve as links do, and the hint and next call say so; an
// ambiguous name lists its candidates; a name naming nothing suggests the
// closest; a folder where a note is needed says so.
func TestNoteNames(t *testing.T) {
	for _, a := range adapterStores {
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			helpVault(t, s)
			set, err := tools.New(tools.Config{Notes: s, Knowledge: s, Budget: quiet})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ tool, args, want string }{
				{"get_note", `{"id":"en/plugins/canvas"}`, "en/Plugins/Canvas"},
				{"get_note", `{"id":"/en/Plugins/Canvas.md"}`, "en/Plugins/Canvas"},
				{"get_note", `{"id":"graph view"}`, "en/Plugins/Core plugins/Graph view"},
				{"get_note_links", `{"id":"core plugins/graph view"}`, "en/Plugins/Canvas"},
				{"get_related_notes", `{"id":"graph view"}`, "en/Plugins/Canvas"},
				{"get_children", `{"id":"plugins"}`, "en/Plugins/Canvas"},
				{"get_parents", `{"id":"BACKLINKS"}`, "Home"},
				{"get_descendants", `{"id":"core plugins"}`, "en/Plugins/Core plugins/Backlinks"},
				{"get_backlinks", `{"id":"backlinks"}`, "en/Plugins/Canvas"},
			} {
				env, _ := call(t, set, c.tool, c.args)
				if !slices.ContainsFunc(env.Results, func(r json.RawMessage) bool { return bytes.Contains(r, []byte(`"`+c.want+`"`)) }) {
					t.Errorf("%s(%s): results %.300s, want one with %q", c.tool, c.args, env.Results, c.want)
				}
				if !strings.Contains(env.Hint, "resolved, as a link does, to") {
					t.Errorf("%s(%s): the hint does not say the id was resolved: %q", c.tool, c.args, env.Hint)
				}
			}
			// A walk by next goes on with the id resolved.
			env, _ := call(t, set, "get_children", `{"id":"EN/PLUGINS","limit":1}`)
			if !bytes.Contains(env.Next, []byte(`"id":"en/Plugins"`)) {
				t.Errorf("get_children(EN/PLUGINS): next %s, want the id resolved", env.Next)
			}

			env, _ = call(t, set, "get_notes", `{"ids":["Home","canvas","ja/プラグイン/canvas","Canvs","en"]}`)
			var got []string
			for _, r := range env.Results {
				var it struct {
					ID      string
					Missing bool
				}
				if err := json.Unmarshal(r, &it); err != nil {
					t.Fatal(err)
				}
				got = append(got, it.ID+map[bool]string{true: " missing"}[it.Missing])
			}
			want := []string{"Home", "canvas missing", "ja/プラグイン/Canvas", "Canvs missing", "en missing"}
			if !slices.Equal(got, want) {
				t.Errorf("get_notes by names: %q, want %q", got, want)
			}
			for _, say := range []string{`"canvas" names 3 notes equally`, `"en" is the folder "en"`} {
				if !strings.Contains(env.Hint, say) {
					t.Errorf("get_notes: the hint does not say %q: %q", say, env.Hint)
				}
			}

			env, _ = call(t, set, "search_by_links", `{"hasLinksTo":["canvas","Graph View","missing-note"]}`)
			if !strings.Contains(env.Hint, `"Graph View" resolved, as a link does, to "en/Plugins/Core plugins/Graph view"`) ||
				!strings.Contains(env.Hint, `"canvas" names 3 notes equally`) {
				t.Errorf("search_by_links: the hint does not say what the names name: %q", env.Hint)
			}

			for _, c := range []struct {
				tool, args string
				is         error
				says       []string
			}{
				{"get_note", `{"id":"Canvas"}`, ports.ErrAmbiguous,
					[]string{`"Canvas" names 3 notes equally`, `"en/Plugins/Canvas", "ja/プラグイン/Canvas", "ko/플러그인/Canvas"`}},
				{"get_children", `{"id":"canvas"}`, ports.ErrAmbiguous, []string{`names 3 notes equally`}},
				{"get_note", `{"id":"Canvs"}`, ports.ErrNotFound, []string{"closest names", `"en/Plugins/Canvas"`}},
				{"get_note", `{"id":"en/Plugins/Core plugins"}`, ports.ErrNotFound,
					[]string{`"en/Plugins/Core plugins" is a folder, not a note: get_children(id="en/Plugins/Core plugins")`}},
				{"get_note_links", `{"id":"core plugins"}`, ports.ErrNotFound, []string{"is a folder, not a note"}},
				{"get_parents", `{"id":"zz/nothing here"}`, ports.ErrNotFound, []string{"no note or folder has that name"}},
			} {
				_, err := set.Call(t.Context(), c.tool, json.RawMessage(c.args))
				if !errors.Is(err, c.is) {
					t.Errorf("%s(%s): error %v, want one matching %v", c.tool, c.args, err, c.is)
					continue
				}
				for _, say := range c.says {
					if !strings.Contains(err.Error(), say) {
						t.Errorf("%s(%s): the error does not say %q: %v", c.tool, c.args, say, err)
					}
				}
			}
		})
	}
}

// TestFolderHierarchy checks that the hierarchy tools list folders, marked,
// and that an empty answer says why, on memrepo, SQLite and Postgres.
func TestFolderHierarchy(t *testing.T) {
	for _, a := range adapterStores {
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			helpVault(t, s)
			set := noteSet(t, s, bounded.Budget{})
			env, _ := call(t, set, "get_children", `{"id":"en/Plugins"}`)
			if got := resultIDs(t, env); !slices.Equal(got, []string{"en/Plugins/Canvas", "en/Plugins/Core plugins"}) {
				t.Errorf("get_children(en/Plugins): %q", got)
			}
			if !bytes.Contains(env.Results[1], []byte(`"folder":true`)) || bytes.Contains(env.Results[0], []byte(`"folder"`)) {
				t.Errorf("get_children(en/Plugins): the folder is not marked, or the note is: %s", env.Results)
			}
			env, _ = call(t, set, "get_parents", `{"id":"en/Plugins/Canvas"}`)
			if got := resultIDs(t, env); !slices.Equal(got, []string{"en/Plugins"}) {
				t.Errorf("get_parents(en/Plugins/Canvas): %q", got)
			}
			env, _ = call(t, set, "get_descendants", `{"id":"en","maxDepth":2}`)
			if got := resultIDs(t, env); !slices.Equal(got, []string{"en/Plugins", "en/Plugins/Canvas", "en/Plugins/Core plugins"}) {
				t.Errorf("get_descendants(en): %q", got)
			}
			for _, c := range []struct{ tool, args, says string }{
				{"get_children", `{"id":"en/Plugins/Canvas"}`, `"en/Plugins/Canvas" has nothing below it: it is a note, not a folder, and no note names it as its parent.`},
				{"get_parents", `{"id":"Home"}`, `"Home" has no parents: it is at the vault root, and names no parent that exists.`},
				{"get_parents", `{"id":"en"}`, `"en" has no parents`},
			} {
				env, _ := call(t, set, c.tool, c.args)
				if len(env.Results) != 0 || !strings.Contains(env.Hint, c.says) {
					t.Errorf("%s(%s): %d results, hint %q; want none and the hint saying %q", c.tool, c.args, len(env.Results), env.Hint, c.says)
				}
			}
		})
	}
}

// TestNameStatements checks what names cost on the SQL stores: an exact
// id no statement more, a name one (ResolveNotes) beside the reads.
func TestNameStatements(t *testing.T) {
	for _, a := range adapterStores {
		if a.name == "memrepo" {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			helpVault(t, s)
			counter := countStatements(t, s)
			set := noteSet(t, s, bounded.Budget{})
			count := func(tool, args string) int {
				t.Helper()
				before := counter.n.Load()
				call(t, set, tool, args)
				return int(counter.n.Load() - before)
			}
			for _, c := range []struct {
				tool, exact, name string
			}{
				{"get_note", `{"id":"en/Plugins/Canvas","detail":"concise"}`, `{"id":"en/plugins/canvas","detail":"concise"}`},
				{"get_children", `{"id":"en/Plugins"}`, `{"id":"en/plugins"}`},
				{"get_parents", `{"id":"en/Plugins/Canvas"}`, `{"id":"EN/PLUGINS/CANVAS"}`},
			} {
				exact, named := count(c.tool, c.exact), count(c.tool, c.name)
				// The name: the read that finds nothing, ResolveNotes, the read.
				if named != 2*exact+1 {
					t.Errorf("%s: %d statements by id, %d by name; want %d by name", c.tool, exact, named, 2*exact+1)
				}
				t.Logf("%s: %d statements by id, %d by name", c.tool, exact, named)
			}
		})
	}
}

// TestImporting checks that a call made while the data is being written
// (Config.Importing) says so: a lower bound for a total, "importing" in
// its pagination, within its budget, on every store.
func TestImporting(t *testing.T) {
	for _, a := range adapterStores {
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			helpVault(t, s)
			importing := true
			set, err := tools.New(tools.Config{Notes: s, Budget: quiet, Importing: func(tool string) bool { return importing && tool != "get_parents" }})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				tool, args string
				kind       bounded.TotalKind
			}{
				{"list_notes", `{"limit":2}`, bounded.TotalAtLeast},
				{"list_notes", `{"limit":2,"budget":1000}`, bounded.TotalAtLeast},
				{"get_children", `{"id":"en/Plugins"}`, bounded.TotalAtLeast},
				{"get_notes", `{"ids":["Home","en/Plugins"]}`, bounded.TotalExact},
				{"get_note", `{"id":"Home"}`, bounded.TotalExact},
			} {
				out, err := set.Call(t.Context(), c.tool, json.RawMessage(c.args))
				if err != nil {
					t.Fatalf("%s(%s): %v", c.tool, c.args, err)
				}
				var env struct {
					Pagination struct {
						bounded.PageInfo
						Importing bool `json:"importing"`
					} `json:"pagination"`
					Truncation bounded.Truncation `json:"truncation"`
				}
				if err := json.Unmarshal(out, &env); err != nil {
					t.Fatalf("%s(%s): %v\n%s", c.tool, c.args, err, out)
				}
				p, tr := env.Pagination, env.Truncation
				if !p.Importing || p.TotalKind != c.kind {
					t.Errorf("%s(%s): pagination %s; want importing and totalKind %v", c.tool, c.args, out, c.kind)
				}
				if n := utf8.RuneCount(out); n != tr.EstimatedChars || n > tr.LimitChars || tr.EstimatedTokens > tr.LimitTokens {
					t.Errorf("%s(%s): %d characters, truncation %+v", c.tool, c.args, n, tr)
				}
			}
			out, _ := set.Call(t.Context(), "get_parents", json.RawMessage(`{"id":"en/Plugins"}`))
			importing = false
			out2, _ := set.Call(t.Context(), "list_notes", json.RawMessage(`{"limit":2}`))
			for _, o := range [][]byte{out, out2} {
				if bytes.Contains(o, []byte("importing")) || bytes.Contains(o, []byte("atLeast")) {
					t.Errorf("a call made with its data written says it is importing: %s", o)
				}
			}
		})
	}
}

func resultIDs(t *testing.T, env envelope) []string {
	t.Helper()
	var ids []string
	for _, r := range env.Results {
		var it struct{ ID string }
		if err := json.Unmarshal(r, &it); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	return ids
}
