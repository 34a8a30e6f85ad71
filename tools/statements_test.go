package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
	"github.com/uptrace/bun"
)

// statementCounter is a bun query hook counting the statements a database
// runs (BEGIN and COMMIT included).
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *statementCounter) AfterQuery(context.Context, *bun.QueryEvent) { c.n.Add(1) }

// countStatements adds a counting hook to the database of a SQL store.
func countStatements(t *testing.T, s store) *statementCounter {
	t.Helper()
	withDB, ok := s.(interface{ DB() bun.IDB })
	if !ok {
		t.Fatalf("%T has no DB method", s)
	}
	db, ok := withDB.DB().(*bun.DB)
	if !ok {
		t.Fatalf("%T's DB is a %T, not a *bun.DB", s, withDB.DB())
	}
	c := &statementCounter{}
	//lint:ignore SA1019 the store already holds db; WithQueryHook would return a copy it never sees
	db.AddQueryHook(c)
	return c
}

// hierarchyNotes is a vault where every listed note has a parent and
// children: 60 notes top/NN (the most recently updated, titled "Top NN"),
// each a child of root and of the folder top, with 3 children top/NN/cK,
// whose content has front matter and several lines for the snippets.
func hierarchyNotes() []ports.Note {
	notes := []ports.Note{{ID: "root", Title: "Root", Content: "the root\n", UpdatedAt: base}}
	for i := range 60 {
		top := fmt.Sprintf("top/%02d", i)
		notes = append(notes, ports.Note{ID: top, Title: fmt.Sprintf("Top %02d", i), Content: "top note\n",
			Parents: []string{"root"}, UpdatedAt: base.Add(time.Duration(100+i) * time.Hour)})
		for k := range 3 {
			notes = append(notes, ports.Note{ID: fmt.Sprintf("%s/c%d", top, k), Title: fmt.Sprintf("Child %d of %02d", k, i),
				Content:   fmt.Sprintf("---\ntags: [x]\n---\n\nChild %d of top %02d.\n%s", k, i, strings.Repeat("A line of the child.\n", 40)),
				Parents:   []string{top},
				UpdatedAt: base.Add(time.Duration(i) * time.Minute)})
		}
	}
	return notes
}

// perResult is a store whose batched hierarchy methods call the paged
// methods once per note, as the tools expanded context before the batched
// methods existed: the reference the batched answers must equal byte for
// byte.
type perResult struct{ store }

func (s perResult) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	return emulate(ids, func(id string) (bounded.Paged[ports.NoteRef], error) {
		return s.Parents(ctx, id, bounded.Page{Limit: perNote})
	})
}

func (s perResult) DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (ports.Batch[ports.Descendant], error) {
	return emulate(ids, func(id string) (bounded.Paged[ports.Descendant], error) {
		return s.Descendants(ctx, id, maxDepth, bounded.Page{Limit: perNote})
	})
}

func (s perResult) NoteHeads(ctx context.Context, ids []string, maxLines int) (ports.GetNotesResult, error) {
	var res ports.GetNotesResult
	for batch := range slices.Chunk(ids, ports.MaxGetNotes) {
		r, err := s.GetNotes(ctx, batch, bounded.Window{MaxLines: maxLines})
		if err != nil {
			return ports.GetNotesResult{}, err
		}
		res.Notes = append(res.Notes, r.Notes...)
		res.Missing = append(res.Missing, r.Missing...)
	}
	return res, nil
}

func (s perResult) ContextOf(ctx context.Context, ids []string, q ports.ContextQuery) (ports.NoteContext, error) {
	return ports.ReadContext(ctx, s, ids, q)
}

func emulate[T any](ids []string, page func(id string) (bounded.Paged[T], error)) (ports.Batch[T], error) {
	var b ports.Batch[T]
	for _, id := range ports.Distinct(ids) {
		p, err := page(id)
		if err != nil {
			b.Missing = append(b.Missing, id)
			continue
		}
		b.Lists = append(b.Lists, ports.NoteList[T]{ID: id, Items: p.Items, Total: p.Page.Total})
	}
	return b, nil
}

// TestContextStatements checks that the hierarchy context of a page costs
// one statement on the SQL adapters (ContextOf), whatever the page's size,
// and that the responses equal, byte for byte, those of context read one
// result at a time. In Balanced mode a page of 10 to 50 results gets one
// level of children with their snippets, a smaller page its parents too.
func TestContextStatements(t *testing.T) {
	cases := []struct {
		tool, args string
		context    int  // statements beyond those of the page itself
		parents    bool // the results get their parents
	}{
		{"list_notes", `{"limit":50}`, 1, false},
		{"list_notes", `{"limit":5}`, 1, true},
		{"search_notes", `{"query":"top"}`, 1, false},
		{"search_notes", `{"query":"top","limit":50}`, 1, false},
		{"search_notes", `{"query":"top","limit":9}`, 1, true},
	}
	for _, a := range adapterStores {
		if a.name == "memrepo" {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			for _, n := range hierarchyNotes() {
				if err := s.PutNote(t.Context(), n); err != nil {
					t.Fatal(err)
				}
			}
			counter := countStatements(t, s)
			newSet := func(st store) *tools.Set {
				set, err := tools.New(tools.Config{Notes: st, Knowledge: st, History: st, Code: st, Budget: quiet, Mode: tools.Balanced})
				if err != nil {
					t.Fatal(err)
				}
				return set
			}
			batched, oneByOne := newSet(s), newSet(perResult{s})
			call := func(set *tools.Set, tool, args string) ([]byte, int) {
				t.Helper()
				before := counter.n.Load()
				out, err := set.Call(t.Context(), tool, json.RawMessage(args))
				if err != nil {
					t.Fatalf("%s(%s): %v", tool, args, err)
				}
				return out, int(counter.n.Load() - before)
			}
			for _, c := range cases {
				concise := strings.TrimSuffix(c.args, "}") + `,"detail":"concise"}`
				_, page := call(batched, c.tool, concise)
				out, all := call(batched, c.tool, c.args)
				if got := all - page; got != c.context {
					t.Errorf("%s(%s): %d statements for the context (%d in all, %d for the page alone), want %d",
						c.tool, c.args, got, all, page, c.context)
				}
				if !bytes.Contains(out, []byte(`"children":[{`)) || !bytes.Contains(out, []byte(`"snippet":"Child`)) {
					t.Errorf("%s(%s): no children with snippets in the response:\n%.1000s", c.tool, c.args, out)
				}
				// The parents of top/NN: root, named, and the folder top.
				if c.parents && !bytes.Contains(out, []byte(`{"id":"top","title":"top","folder":true}`)) {
					t.Errorf("%s(%s): no folder among the parents:\n%.1000s", c.tool, c.args, out)
				}
				want, old := call(oneByOne, c.tool, c.args)
				if !bytes.Equal(out, want) {
					t.Errorf("%s(%s): the response differs from context read one result at a time:\nbatched:    %.2000s\none by one: %.2000s", c.tool, c.args, out, want)
				}
				t.Logf("%s(%s): %d statements (%d for the page), %d when read one result at a time", c.tool, c.args, all, page, old)
			}
		})
	}
}
