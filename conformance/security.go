package conformance

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// The cursor checks: a cursor can never be turned into a read of another
// method's (another tool's) data.
//
//   - Every paged method of every port rejects any cursor it did not
//     issue with [bounded.ErrInvalidCursor] and returns no items: garbage,
//     offsets, JSON that names another tool, SQL, invalid UTF-8, 64 KB of
//     text.
//   - With Harness.Cursors, cursors forged with valid checksums but keys
//     no item can have are refused, or read as memrepo reads them (see
//     checkForgedKeys).
//   - With Harness.Cursors, the NextCursor of each method's first page is
//     replayed against every other method (of every port): each must
//     reject it with bounded.ErrInvalidCursor. A cursor is bound to the
//     method and query that issued it.
//
// Subtests are named "Cursors/<method>/<cursor>", "Cursors/keys/<method>"
// and "Cursors/replay/...".

// cursorProbe is one paged method with fixed arguments, over
// [cursorFixture].
type cursorProbe struct {
	name string
	port port
	// scope is the cursor scope of the method's query, as memrepo issues
	// its cursors (see ports.Scope).
	scope string
	// fetch reads a page and returns, for each item, its sort keys in the
	// method's ports.Order.
	fetch func(ctx context.Context, s Store, p bounded.Page) (keys [][]any, info bounded.PageInfo, err error)
}

func probe[T any](name string, p port, scope string, o ports.Order[T], f func(ctx context.Context, s Store, pg bounded.Page) (bounded.Paged[T], error)) cursorProbe {
	return cursorProbe{name: name, port: p, scope: scope, fetch: func(ctx context.Context, s Store, pg bounded.Page) ([][]any, bounded.PageInfo, error) {
		res, err := f(ctx, s, pg)
		var keys [][]any
		for _, it := range res.Items {
			keys = append(keys, o.Keys(it))
		}
		return keys, res.Page, err
	}}
}

// cursorProbes are every paged method of every port, each with arguments
// whose answer over cursorFixture has at least two items.
func cursorProbes() []cursorProbe {
	links := func(i int, cat string) cursorProbe {
		return probe("NoteLinks-"+cat, notesPort, ports.NoteLinksScopes("c/0")[i], ports.BySourcePosition,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
				return noteLinksQuery(cat, "c/0").fetch(ctx, s, p)
			})
	}
	byLinks := ports.LinkQuery{HasLinksTo: []string{"c/0"}}
	exact := ports.NodeQuery{Queries: []string{"entity"}}
	fuzzy := ports.NodeQuery{Queries: []string{"entity"}, Mode: ports.Fuzzy, Threshold: 0.1}
	code := ports.CodeQuery{Query: "parse token"}
	return []cursorProbe{
		probe("ListNotes", notesPort, ports.Scope("ListNotes", "", ""), ports.ByUpdatedDesc,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.ListNotes(ctx, ports.ListFilter{}, p)
			}),
		probe("SearchNotes", notesPort, ports.Scope("SearchNotes", "note"), ports.SearchNotesOrder("note"),
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.SearchNotes(ctx, "note", p)
			}),
		probe("SearchByLinks", notesPort, byLinks.Scope(), ports.ByUpdatedDesc,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.SearchByLinks(ctx, byLinks, p)
			}),
		probe("FindBrokenLinks", notesPort, ports.Scope("FindBrokenLinks"), ports.BySourcePosition,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
				return s.Notes.FindBrokenLinks(ctx, p)
			}),
		links(0, "internal"), links(1, "external"), links(2, "incoming"),
		probe("Backlinks", notesPort, ports.Scope("Backlinks", "c/0"), ports.ByUpdatedDesc,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.Backlinks(ctx, "c/0", p)
			}),
		probe("Children", notesPort, ports.Scope("Children", "c/0"), ports.ByTitle,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.Children(ctx, "c/0", p)
			}),
		probe("Parents", notesPort, ports.Scope("Parents", "c/5"), ports.ByTitle,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return s.Notes.Parents(ctx, "c/5", p)
			}),
		probe("Descendants", notesPort, ports.Scope("Descendants", "c/0", "0"), ports.ByDepth,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
				return s.Notes.Descendants(ctx, "c/0", 0, p)
			}),
		probe("RelatedNotes", notesPort, ports.Scope("RelatedNotes", "c/0"), ports.ByRelatedScore,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.Related], error) {
				return s.Notes.RelatedNotes(ctx, "c/0", p)
			}),
		probe("SearchNodes-exact", knowledgePort, exact.Scope(), ports.NodeOrder(exact.Mode),
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
				return s.Knowledge.SearchNodes(ctx, exact, p)
			}),
		probe("SearchNodes-fuzzy", knowledgePort, fuzzy.Scope(), ports.NodeOrder(fuzzy.Mode),
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
				return s.Knowledge.SearchNodes(ctx, fuzzy, p)
			}),
		probe("ResponseHistory", historyPort, ports.Scope("ResponseHistory", "ep"), ports.ByStartedDesc,
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.RunView], error) {
				return s.History.ResponseHistory(ctx, "ep", p)
			}),
		probe("SearchCode", codePort, code.Scope(), ports.SearchCodeOrder(code),
			func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
				return s.Code.SearchCode(ctx, code, p)
			}),
	}
}

// cursorFixture holds a few items of every port: six notes linked to c/0
// (and to a missing note and a URL), children of c/0, sharing a tag;
// entities, runs and chunks that the probes' queries find.
func cursorFixture() fixture {
	var fx fixture
	for i := range 6 {
		n := ports.Note{ID: fmt.Sprintf("c/%d", i), Title: fmt.Sprintf("Note %d", i), Content: "a note\n", Tags: []string{"shared"},
			Links:     []ports.Link{{Target: "c/0"}, {Target: "gone"}, {Target: "https://example.com/x", External: true}},
			UpdatedAt: Epoch.Add(time.Duration(i) * time.Second)}
		if i > 0 {
			n.Parents = []string{"c/0"}
			if i == 5 {
				n.Parents = []string{"c/0", "c/1", "c/2"}
			}
		}
		fx.notes = append(fx.notes, n)
		fx.entities = append(fx.entities, ports.Entity{Name: fmt.Sprintf("entity %d", i), Type: "t", UpdatedAt: Epoch})
		fx.runs = append(fx.runs, ports.Run{ID: fmt.Sprintf("run-%d", i), EndpointID: "ep", StartedAt: Epoch, Body: "body"})
		fx.chunks = append(fx.chunks, ports.Chunk{ID: fmt.Sprintf("chunk-%d", i), FilePath: "a.go", StartLine: 1, EndLine: 1, Content: "parse(token)"})
	}
	return fx
}

// forgedCursors are cursors no store issued.
func forgedCursors() []struct{ name, cursor string } {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return []struct{ name, cursor string }{
		{"garbage", "x"},
		{"offset", "1"},
		{"base64-offset", base64.StdEncoding.EncodeToString([]byte("1"))},
		{"base64-json-offset", b64(`{"offset":1,"limit":1}`)},
		{"other-tool", b64(`{"tool":"get_response_history","endpointId":"ep","offset":0}`)},
		{"sql", "'; DROP TABLE bounded_notes; --"},
		{"invalid-utf8", "\xff\xfe"},
		{"64KB", strings.Repeat("QUFB", 16<<10)},
	}
}

// runCursorChecks runs the cursor checks on one store holding
// cursorFixture in every port it has.
func (s *suite) runCursorChecks(t TB) {
	t.Run("Cursors", func(t TB) {
		st := s.h.New(t)
		var fx fixture
		var probes []cursorProbe
		for _, p := range cursorProbes() {
			if st.has(p.port) {
				probes = append(probes, p)
			}
		}
		if len(probes) == 0 {
			t.Skipf("%s: the store has no port: skipping the cursor checks", s.store())
		}
		all := cursorFixture()
		if st.has(notesPort) {
			fx.notes = all.notes
		}
		if st.has(knowledgePort) {
			fx.entities = all.entities
		}
		if st.has(historyPort) {
			fx.runs = all.runs
		}
		if st.has(codePort) {
			fx.chunks = all.chunks
		}
		st, ref := s.fill(t, st, fx)
		for _, p := range probes {
			t.Run(p.name, func(t TB) {
				for _, c := range forgedCursors() {
					for _, off := range []int{0, 1} {
						page := bounded.Page{Limit: 1, Offset: off, Cursor: c.cursor}
						keys, _, err := p.fetch(t.Context(), st, page)
						switch {
						case err == nil:
							t.Errorf("%s(cursor %s, offset %d): accepted a cursor no store issued and returned %d items; want an error wrapping %q",
								p.name, c.name, off, len(keys), bounded.ErrInvalidCursor)
						case !errors.Is(err, bounded.ErrInvalidCursor):
							t.Errorf("%s(cursor %s, offset %d): error %q does not wrap %q", p.name, c.name, off, err, bounded.ErrInvalidCursor)
						}
					}
				}
			})
		}
		if !s.h.Cursors {
			return
		}
		t.Run("keys", func(t TB) {
			for _, p := range probes {
				t.Run(p.name, func(t TB) { s.checkForgedKeys(t, p, st, ref) })
			}
		})
		t.Run("replay", func(t TB) {
			ctx := t.Context()
			for _, from := range probes {
				_, info, err := from.fetch(ctx, st, bounded.Page{Limit: 1})
				if err != nil {
					t.Errorf("%s(limit 1): %v", from.name, err)
					continue
				}
				if info.NextCursor == "" && !info.HasMore {
					continue // nothing to continue: no cursor to replay
				}
				if info.NextCursor == "" {
					t.Errorf("%s(limit 1): no NextCursor on a first page of %d items (the harness declares Cursors)", from.name, info.Total)
					continue
				}
				for _, to := range probes {
					if to.name == from.name {
						continue
					}
					keys, _, err := to.fetch(ctx, st, bounded.Page{Limit: 1, Cursor: info.NextCursor})
					switch {
					case err == nil:
						t.Errorf("%s accepted the cursor of %s and returned %d items: a cursor must only continue the query that issued it", to.name, from.name, len(keys))
					case !errors.Is(err, bounded.ErrInvalidCursor):
						t.Errorf("%s given the cursor of %s: error %q does not wrap %q", to.name, from.name, err, bounded.ErrInvalidCursor)
					}
				}
			}
		})
	})
}
