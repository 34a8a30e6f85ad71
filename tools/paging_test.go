package tools_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// TestNextByCursorByDefault follows next through a tool of each paging
// form, on memrepo, SQLite and Postgres: list_notes and get_backlinks
// continue by cursor, get_response_history by offset, search_knowledge by
// page number, each under OffsetHints by offset (search_knowledge by
// page). Every hint names the range it shows, and every walk reads each
// result once.
func TestNextByCursorByDefault(t *testing.T) {
	ctx := context.Background()
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			putNote(t, s, ports.Note{ID: "Home", Title: "Home"})
			for i := range 25 {
				id := fmt.Sprintf("n/%02d", i)
				putNote(t, s, ports.Note{ID: id, Title: id, Links: []ports.Link{{Target: "Home"}}, UpdatedAt: base.Add(-time.Duration(i) * time.Hour)})
				if err := s.PutEntity(ctx, ports.Entity{Name: "entity-" + id, Type: "t", UpdatedAt: base}); err != nil {
					t.Fatal(err)
				}
				if err := s.RecordRun(ctx, ports.Run{ID: fmt.Sprintf("run-%02d", i), EndpointID: "ep", StartedAt: base.Add(time.Duration(i) * time.Minute), Status: "ok"}); err != nil {
					t.Fatal(err)
				}
			}
			for _, offsetHints := range []bool{false, true} {
				set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Budget: quiet, OffsetHints: offsetHints})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					tool, args string
					by         string // the argument next continues by, by default
				}{
					{"list_notes", `{"folder":"n","limit":10}`, "cursor"},
					{"get_backlinks", `{"id":"Home","limit":10}`, "cursor"},
					{"get_response_history", `{"endpointId":"ep","limit":10}`, "offset"},
					{"search_knowledge", `{"query":"entity","pageSize":10}`, "page"},
				} {
					by := c.by
					if offsetHints && by == "cursor" {
						by = "offset"
					}
					at := fmt.Sprintf("%s(%s), OffsetHints %v", c.tool, c.args, offsetHints)
					var seen []string
					args := c.args
					for i := 0; ; i++ {
						if i > 5 {
							t.Fatalf("%s: no end after 5 calls", at)
						}
						env, _ := call(t, set, c.tool, args)
						seen = append(seen, keys(t, env)...)
						if want := fmt.Sprintf("showing %d-%d", 10*i+1, min(10*i+10, 25)); !strings.Contains(env.Hint, want) {
							t.Errorf("%s: page %d: hint %q, want it to say %q", at, i, env.Hint, want)
						}
						if env.Next == nil {
							break
						}
						next := orderedArgs(t, env.Next)
						if _, ok := next.Get(by); !ok {
							t.Fatalf("%s: page %d: next %s, want it to continue by %s", at, i, env.Next, by)
						}
						if !strings.Contains(env.Hint, " "+by+"=") && !strings.Contains(env.Hint, "("+by+"=") {
							t.Errorf("%s: page %d: hint %q, want the next call by %s", at, i, env.Hint, by)
						}
						args = nextArgs(t, env, args)
					}
					if len(seen) != 25 || len(slices.Compact(slices.Clone(seen))) != 25 {
						t.Errorf("%s: walked %d results (%q), want 25 once each", at, len(seen), seen)
					}
				}
			}
		})
	}
}

// TestToolPaging: Tool.Paging is the form each tool continues by.
func TestToolPaging(t *testing.T) {
	s := fixtures(t)
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bounded.Paging{
		"list_notes": bounded.ByCursor, "get_backlinks": bounded.ByCursor, "search_code": bounded.ByCursor,
		"get_response_history": bounded.ByOffset, "get_notes": bounded.ByOffset, "get_note_links": bounded.ByOffset,
		"search_knowledge": bounded.ByPage,
	}
	for _, tl := range set.Tools() {
		if w, ok := want[tl.Name]; ok && tl.Paging != w {
			t.Errorf("%s: Paging %d, want %d", tl.Name, tl.Paging, w)
		}
	}
}
