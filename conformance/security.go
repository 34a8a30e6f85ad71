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
//   - With Harness.Cursors, the NextCursor of each method's first page is
//     replayed against every other method (of every port): each must
//     reject it with bounded.ErrInvalidCursor. A cursor is bound to the
//     method and query that issued it.
//
// Subtests are named "Cursors/<method>/<cursor>" and "Cursors/replay/...".

// cursorProbe is one paged method with fixed arguments, over
// [cursorFixture].
type cursorProbe struct {
	name  string
	port  port
	fetch func(ctx context.Context, s Store, p bounded.Page) (items int, info bounded.PageInfo, err error)
}

func probe[T any](name string, p port, f func(ctx context.Context, s Store, pg bounded.Page) (bounded.Paged[T], error)) cursorProbe {
	return cursorProbe{name: name, port: p, fetch: func(ctx context.Context, s Store, pg bounded.Page) (int, bounded.PageInfo, error) {
		res, err := f(ctx, s, pg)
		return len(res.Items), res.Page, err
	}}
}

// cursorProbes are every paged method of every port, each with arguments
// whose answer over cursorFixture has at least two items.
func cursorProbes() []cursorProbe {
	links := func(cat string) cursorProbe {
		return probe("NoteLinks-"+cat, notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
			return noteLinksQuery(cat, "c/0").fetch(ctx, s, p)
		})
	}
	return []cursorProbe{
		probe("ListNotes", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.ListNotes(ctx, ports.ListFilter{}, p)
		}),
		probe("SearchNotes", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.SearchNotes(ctx, "note", p)
		}),
		probe("SearchByLinks", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.SearchByLinks(ctx, ports.LinkQuery{HasLinksTo: []string{"c/0"}}, p)
		}),
		probe("FindBrokenLinks", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
			return s.Notes.FindBrokenLinks(ctx, p)
		}),
		links("internal"), links("external"), links("incoming"),
		probe("Backlinks", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.Backlinks(ctx, "c/0", p)
		}),
		probe("Children", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.Children(ctx, "c/0", p)
		}),
		probe("Parents", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Notes.Parents(ctx, "c/5", p)
		}),
		probe("Descendants", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
			return s.Notes.Descendants(ctx, "c/0", 0, p)
		}),
		probe("RelatedNotes", notesPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.Related], error) {
			return s.Notes.RelatedNotes(ctx, "c/0", p)
		}),
		probe("SearchNodes-exact", knowledgePort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
			return s.Knowledge.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"entity"}}, p)
		}),
		probe("SearchNodes-fuzzy", knowledgePort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
			return s.Knowledge.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"entity"}, Mode: ports.Fuzzy, Threshold: 0.1}, p)
		}),
		probe("ResponseHistory", historyPort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.RunView], error) {
			return s.History.ResponseHistory(ctx, "ep", p)
		}),
		probe("SearchCode", codePort, func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
			return s.Code.SearchCode(ctx, ports.CodeQuery{Query: "parse token"}, p)
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
		st, _ = s.fill(t, st, fx)
		for _, p := range probes {
			t.Run(p.name, func(t TB) {
				for _, c := range forgedCursors() {
					for _, off := range []int{0, 1} {
						page := bounded.Page{Limit: 1, Offset: off, Cursor: c.cursor}
						n, _, err := p.fetch(t.Context(), st, page)
						switch {
						case err == nil:
							t.Errorf("%s(cursor %s, offset %d): accepted a cursor no store issued and returned %d items; want an error wrapping %q",
								p.name, c.name, off, n, bounded.ErrInvalidCursor)
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
					n, _, err := to.fetch(ctx, st, bounded.Page{Limit: 1, Cursor: info.NextCursor})
					switch {
					case err == nil:
						t.Errorf("%s accepted the cursor of %s and returned %d items: a cursor must only continue the query that issued it", to.name, from.name, n)
					case !errors.Is(err, bounded.ErrInvalidCursor):
						t.Errorf("%s given the cursor of %s: error %q does not wrap %q", to.name, from.name, err, bounded.ErrInvalidCursor)
					}
				}
			}
		})
	})
}
