package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// notesTests checks every method of ports.Notes; st and ref hold
// Notes(Seed).
func (s *suite) notesTests(t TB, st, ref Store) {
	runMethod(t, s, listNotesMethod(), st, ref)
	runMethod(t, s, searchNotesMethod(), st, ref)
	runMethod(t, s, searchByLinksMethod(), st, ref)
	runMethod(t, s, findBrokenLinksMethod(), st, ref)
	t.Run("NoteLinks", func(t TB) {
		for _, cat := range []string{"internal", "external", "incoming"} {
			runMethod(t, s, noteLinksMethod(cat), st, ref)
		}
		t.Run("separate-pages", func(t TB) { s.noteLinksSeparatePages(t, st, ref) })
	})
	runMethod(t, s, backlinksMethod(), st, ref)
	runMethod(t, s, childrenMethod(), st, ref)
	runMethod(t, s, parentsMethod(), st, ref)
	runMethod(t, s, descendantsMethod(), st, ref)
	runMethod(t, s, relatedNotesMethod(), st, ref)
	t.Run("GetNote", s.getNoteTests)
	t.Run("GetNotes", s.getNotesTests)
	t.Run("Batch", func(t TB) { s.batchTests(t, st, ref) })
	t.Run("ResolveNotes", func(t TB) { s.resolveTests(t, st, ref) })
	t.Run("PutNote", s.putNoteTests)
	t.Run("DeleteNote", s.deleteNoteTests)
}

func noteRefKey(n ports.NoteRef) string       { return n.ID }
func descendantKey(d ports.Descendant) string { return d.ID }
func relatedKey(r ports.Related) string       { return r.ID }
func linkKey(l ports.LinkRef) string          { return fmt.Sprintf("%s#%d", l.SourceID, l.Position) }

// noteQuery is a query of a notes method.
func noteQuery[T any](args bounded.Args, fetch func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[T], error)) query[T] {
	return query[T]{args: args, fetch: func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[T], error) {
		return fetch(ctx, s.Notes, p)
	}}
}

// tiedNotes returns n notes with the ids tieIDs(prefix, n), all with the
// same title and times, each adjusted by f.
func tiedNotes(prefix string, n int, f func(nt *ports.Note)) []ports.Note {
	var out []ports.Note
	for _, id := range tieIDs(prefix, n) {
		nt := ports.Note{ID: id, Title: "Same title", Content: "same content\n", UpdatedAt: Epoch, CreatedAt: Epoch}
		if f != nil {
			f(&nt)
		}
		out = append(out, nt)
	}
	return out
}

// decoyNotes are notes that match no sized query.
func decoyNotes() []ports.Note {
	return []ports.Note{
		{ID: "decoy/1", Title: "Other", Content: "nothing here", UpdatedAt: Epoch, Tags: []string{"other"}, Links: []ports.Link{{Target: "decoy/2"}}},
		{ID: "decoy/2", Title: "Other", Content: "nothing", UpdatedAt: Epoch.Add(-1e9), Links: []ports.Link{{Target: "https://example.com", External: true}}},
		{ID: "tiex/3", Title: "Other", Content: "nothing", UpdatedAt: Epoch},
	}
}

// missingIDCases are requests naming notes that do not exist (ErrNotFound)
// or ids that are no ids at all (ErrNotFound or ErrInvalidQuery: the ports
// leave it open).
func missingIDCases(call func(ctx context.Context, n ports.Notes, id string) error) []errCase {
	return []errCase{
		{"missing-id", func(ctx context.Context, s Store) error { return call(ctx, s.Notes, "no/such/note") }, []error{ports.ErrNotFound}},
		{"missing-parent-id", func(ctx context.Context, s Store) error { return call(ctx, s.Notes, MissingParentID) }, []error{ports.ErrNotFound}},
		{"empty-id", func(ctx context.Context, s Store) error { return call(ctx, s.Notes, "") }, []error{ports.ErrNotFound, ports.ErrInvalidQuery}},
		{"invalid-utf8-id", func(ctx context.Context, s Store) error { return call(ctx, s.Notes, "lit/\xff") }, []error{ports.ErrNotFound, ports.ErrInvalidQuery}},
		{"nul-id", func(ctx context.Context, s Store) error { return call(ctx, s.Notes, "lit/\x00") }, []error{ports.ErrNotFound, ports.ErrInvalidQuery}},
	}
}

func listNotesMethod() method[ports.NoteRef] {
	q := func(f ports.ListFilter) query[ports.NoteRef] {
		var args bounded.Args
		if f.Tag != "" {
			args = append(args, bounded.Arg{Name: "tag", Value: f.Tag})
		}
		if f.Folder != "" {
			args = append(args, bounded.Arg{Name: "folder", Value: f.Folder})
		}
		return noteQuery(args, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.ListNotes(ctx, f, p)
		})
	}
	return method[ports.NoteRef]{
		name: "ListNotes", call: "ListNotes", tool: "list_notes", port: notesPort,
		limits: ports.ListNotesLimits, paging: bounded.ByOffset, key: noteRefKey,
		queries: []query[ports.NoteRef]{
			q(ports.ListFilter{}),
			q(ports.ListFilter{Tag: "work"}),
			q(ports.ListFilter{Tag: "日本語"}),
			q(ports.ListFilter{Tag: "absent"}),
			q(ports.ListFilter{Folder: "projects"}),
			q(ports.ListFilter{Folder: "日本"}),
			q(ports.ListFilter{Folder: "a_b"}),  // not axb/
			q(ports.ListFilter{Folder: "100%"}), // not 1000/
			q(ports.ListFilter{Tag: "Work", Folder: "areas"}),
		},
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := append(tiedNotes("tie/", n, nil), decoyNotes()...)
			return fixture{notes: notes}, q(ports.ListFilter{Folder: "tie"})
		},
	}
}

// searchNotesQueries are the queries SearchNotes is checked with: title
// and content matches, case folding, every script, and characters that
// must match literally.
var searchNotesQueries = []string{
	"plan", "ALPHA", "会议", "🎉", "e\u0301", "שלום", "İstanbul", "STRASSE", "straße",
	"100%", "%", "_", "a_b", "O'Brien", `"hi"`, `C:\path`, `\`, "nothing matches this",
	// Three characters or more, which an index may serve: normalization
	// forms (NFD matches NFD only), scripts without spaces, wildcards and
	// quotes, and queries longer than an index's prefix.
	"cafe\u0301", "\u00e9cole", "東京都", "天気は晴", "ดีครับ", "%_%", `say "hi"`, `c:\path\to`, "İSTANBUL",
	strings.Repeat("0123456789", 10) + "-END", strings.Repeat("0123456789", 10) + "-end!",
}

func searchNotesMethod() method[ports.NoteRef] {
	q := func(text string) query[ports.NoteRef] {
		return noteQuery(bounded.Args{{Name: "query", Value: text}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.SearchNotes(ctx, text, p)
		})
	}
	m := method[ports.NoteRef]{
		name: "SearchNotes", call: "SearchNotes", tool: "search_notes", port: notesPort,
		limits: ports.SearchNotesLimits, paging: bounded.ByOffset, key: noteRefKey,
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) { nt.Title = "The Needle" })
			return fixture{notes: append(notes, decoyNotes()...)}, q("needle")
		},
	}
	for _, text := range searchNotesQueries {
		m.queries = append(m.queries, q(text))
	}
	for _, b := range badQueries() {
		m.errs = append(m.errs, errCase{"query-" + b.name, func(ctx context.Context, s Store) error {
			_, err := s.Notes.SearchNotes(ctx, b.q, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}})
	}
	return m
}

// linkArgs writes a LinkQuery's set criteria as tool arguments.
func linkArgs(lq ports.LinkQuery) bounded.Args {
	var args bounded.Args
	if len(lq.HasLinksTo) > 0 {
		args = append(args, bounded.Arg{Name: "hasLinksTo", Value: lq.HasLinksTo})
	}
	if len(lq.LinkedFrom) > 0 {
		args = append(args, bounded.Arg{Name: "linkedFrom", Value: lq.LinkedFrom})
	}
	if len(lq.ExternalDomains) > 0 {
		args = append(args, bounded.Arg{Name: "externalDomains", Value: lq.ExternalDomains})
	}
	if lq.BrokenLinks {
		args = append(args, bounded.Arg{Name: "brokenLinks", Value: true})
	}
	return args
}

func searchByLinksMethod() method[ports.NoteRef] {
	q := func(lq ports.LinkQuery) query[ports.NoteRef] {
		return noteQuery(linkArgs(lq), func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.SearchByLinks(ctx, lq, p)
		})
	}
	bad := func(name string, lq ports.LinkQuery) errCase {
		return errCase{name, func(ctx context.Context, s Store) error {
			_, err := s.Notes.SearchByLinks(ctx, lq, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}}
	}
	m := method[ports.NoteRef]{
		name: "SearchByLinks", call: "SearchByLinks", tool: "search_by_links", port: notesPort,
		limits: ports.SearchByLinksLimits, paging: bounded.ByOffset, key: noteRefKey,
		queries: []query[ports.NoteRef]{
			q(ports.LinkQuery{HasLinksTo: []string{PopularID}}),
			q(ports.LinkQuery{HasLinksTo: []string{brokenTarget(1), ManyLinksID, "a_b/one"}}),
			q(ports.LinkQuery{LinkedFrom: []string{ManyLinksID, "axb/two", "no/such/note"}}),
			q(ports.LinkQuery{ExternalDomains: []string{"EXAMPLE.com"}}),
			q(ports.LinkQuery{ExternalDomains: []string{"docs.example.com", "例え.jp", "ex%.com"}}),
			q(ports.LinkQuery{BrokenLinks: true}),
			q(ports.LinkQuery{HasLinksTo: []string{PopularID}, ExternalDomains: []string{"example.com"}}),
			q(ports.LinkQuery{LinkedFrom: []string{ManyLinksID}, BrokenLinks: true}),
			q(ports.LinkQuery{HasLinksTo: []string{PopularID, HubID}, LinkedFrom: []string{ManyLinksID}, ExternalDomains: []string{"golang.org", "example.com"}, BrokenLinks: true}),
		},
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) {
				nt.Links = []ports.Link{{Target: "tie/target"}, {Target: "https://example.com", External: true}}
			})
			return fixture{notes: append(notes, decoyNotes()...)}, q(ports.LinkQuery{HasLinksTo: []string{"tie/target"}})
		},
		errs: []errCase{
			bad("no-criterion", ports.LinkQuery{}),
			bad("hasLinksTo-empty", ports.LinkQuery{HasLinksTo: []string{""}}),
			bad("linkedFrom-invalid-utf8", ports.LinkQuery{LinkedFrom: []string{"\xff"}}),
			bad("externalDomains-nul", ports.LinkQuery{ExternalDomains: []string{"example.com\x00"}}),
			bad("hasLinksTo-too-long", ports.LinkQuery{HasLinksTo: []string{strings.Repeat("x", ports.MaxQueryBytes+1)}}),
			bad("hasLinksTo-too-many", ports.LinkQuery{HasLinksTo: make([]string, ports.MaxGetNotes+1)}),
		},
	}
	return m
}

func findBrokenLinksMethod() method[ports.LinkRef] {
	q := noteQuery(nil, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
		return n.FindBrokenLinks(ctx, p)
	})
	return method[ports.LinkRef]{
		name: "FindBrokenLinks", call: "FindBrokenLinks", tool: "find_broken_links", port: notesPort,
		limits: ports.FindBrokenLinksLimits, paging: bounded.ByOffset, key: linkKey,
		queries: []query[ports.LinkRef]{q},
		sized: func(n int) (fixture, query[ports.LinkRef]) {
			// n broken links, three to a note, between working ones.
			notes := decoyNotes()
			for i, id := range tieIDs("tie/", (n+2)/3) {
				nt := ports.Note{ID: id, Title: "Same title", UpdatedAt: Epoch}
				for j := 0; j < 3 && 3*i+j < n; j++ {
					nt.Links = append(nt.Links, ports.Link{Target: "decoy/1"}, ports.Link{Target: fmt.Sprintf("gone/%d", j%2)})
				}
				notes = append(notes, nt)
			}
			return fixture{notes: notes}, q
		},
	}
}

// noteLinksQuery pages one category of NoteLinks(id); the others get
// default pages.
func noteLinksQuery(cat, id string) query[ports.LinkRef] {
	return noteQuery(bounded.Args{{Name: "id", Value: id}, {Name: "category", Value: cat}},
		func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
			var pages ports.NoteLinksPages
			switch cat {
			case "internal":
				pages.Internal = p
			case "external":
				pages.External = p
			default:
				pages.Incoming = p
			}
			nl, err := n.NoteLinks(ctx, id, pages)
			switch cat {
			case "internal":
				return nl.Internal, err
			case "external":
				return nl.External, err
			}
			return nl.Incoming, err
		})
}

// noteLinksMethod is one category of NoteLinks: "internal", "external" or
// "incoming".
func noteLinksMethod(cat string) method[ports.LinkRef] {
	q := func(id string) query[ports.LinkRef] { return noteLinksQuery(cat, id) }
	m := method[ports.LinkRef]{
		name: cat, call: "NoteLinks", tool: "note_links", port: notesPort,
		limits: ports.NoteLinksLimits, paging: bounded.ByOffset, key: linkKey,
		queries: []query[ports.LinkRef]{q(ManyLinksID), q(PopularID), q(HubID), q("cycle/a")},
		sized: func(n int) (fixture, query[ports.LinkRef]) {
			notes := decoyNotes()
			target := ports.Note{ID: "tie/target", Title: "Target", UpdatedAt: Epoch}
			switch cat {
			case "incoming":
				notes = append(notes, tiedNotes("tie/", n, func(nt *ports.Note) {
					nt.Links = []ports.Link{{Target: "https://example.com", External: true}, {Target: "tie/target"}}
				})...)
			default:
				for i, id := range tieIDs("tie/", n) {
					target.Links = append(target.Links,
						ports.Link{Target: id, External: cat == "external"},
						ports.Link{Target: fmt.Sprintf("https://x%d.example.com", i), External: cat != "external"})
				}
			}
			return fixture{notes: append(notes, target)}, q("tie/target")
		},
		errs: missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.NoteLinks(ctx, id, ports.NoteLinksPages{})
			return err
		}),
	}
	return m
}

// noteLinksSeparatePages walks the three categories of NoteLinks at once,
// each with its own page size, comparing every answer with memrepo, and
// checks each category's walk returns its whole answer once.
func (s *suite) noteLinksSeparatePages(t TB, st, ref Store) {
	ctx := t.Context()
	for _, id := range []string{ManyLinksID, PopularID} {
		sizes := [3]int{3, 2, 5}
		var pages [3]bounded.Page
		for i := range pages {
			pages[i].Limit = sizes[i]
		}
		var got [3][]ports.LinkRef
		done := [3]bool{}
		for step := 0; !(done[0] && done[1] && done[2]); step++ {
			req := ports.NoteLinksPages{Internal: pages[0], External: pages[1], Incoming: pages[2]}
			at := fmt.Sprintf("NoteLinks(id=%q, internal=%+v, external=%+v, incoming=%+v)", id, pages[0], pages[1], pages[2])
			if step > 100 {
				t.Fatalf("%s: the walk does not end", at)
			}
			want, err := ref.Notes.NoteLinks(ctx, id, req)
			if err != nil {
				t.Fatalf("%s on memrepo: %v", at, err)
			}
			nl, err := st.Notes.NoteLinks(ctx, id, req)
			if err != nil {
				t.Errorf("%s: %v", at, err)
				return
			}
			norm := func(nl ports.NoteLinks) ports.NoteLinks {
				nl.Internal, nl.External, nl.Incoming = emptyNil(nl.Internal), emptyNil(nl.External), emptyNil(nl.Incoming)
				return nl
			}
			if d := s.diff(norm(want), norm(nl)); d != "" {
				t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
				return
			}
			for i, pg := range []bounded.Paged[ports.LinkRef]{nl.Internal, nl.External, nl.Incoming} {
				if done[i] {
					continue // this category stays on its past-the-end page
				}
				got[i] = append(got[i], pg.Items...)
				if pg.Page.HasMore {
					pages[i].Offset = pg.Page.NextOffset
				} else {
					done[i] = true
					pages[i].Offset = pg.Page.Total + 1
				}
			}
		}
		for i, cat := range []string{"internal", "external", "incoming"} {
			m := noteLinksMethod(cat)
			full, err := fullRead(t, &m, noteLinksQuery(cat, id), st, s.store())
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			exactlyOnce(t, s, fmt.Sprintf("NoteLinks(id=%q) category %s walked with the others", id, cat), linkKey, full, got[i])
		}
	}
}

func backlinksMethod() method[ports.NoteRef] {
	q := func(id string) query[ports.NoteRef] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.Backlinks(ctx, id, p)
		})
	}
	return method[ports.NoteRef]{
		name: "Backlinks", call: "Backlinks", tool: "backlinks", port: notesPort,
		limits: ports.BacklinksLimits, paging: bounded.ByOffset, key: noteRefKey,
		// A popular note, a missing one (its backlinks are broken links),
		// one linking to itself, one with none, and a pattern-like id.
		queries: []query[ports.NoteRef]{q(PopularID), q(brokenTarget(2)), q(ManyLinksID), q("diamond/top"), q("a_b/one")},
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) {
				nt.Links = []ports.Link{{Target: "tie/target"}, {Target: "tie/target", Text: "twice"}}
			})
			return fixture{notes: append(notes, decoyNotes()...)}, q("tie/target")
		},
	}
}

func childrenMethod() method[ports.NoteRef] {
	q := func(id string) query[ports.NoteRef] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.Children(ctx, id, p)
		})
	}
	return method[ports.NoteRef]{
		name: "Children", call: "Children", tool: "children", port: notesPort,
		limits: ports.ChildrenLimits, paging: bounded.ByOffset, key: noteRefKey,
		// Notes, folders (with an index note, nested, of many notes) and
		// a note naming a folder as its parent.
		queries: []query[ports.NoteRef]{q(HubID), q("cycle/b"), q("diamond/top"), q("chain/21"), q("chain/22"),
			q("areas"), q("deep/a"), q("chain")},
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) { nt.Parents = []string{"tie/parent"} })
			notes = append(notes, ports.Note{ID: "tie/parent", Title: "Parent", UpdatedAt: Epoch})
			return fixture{notes: append(notes, decoyNotes()...)}, q("tie/parent")
		},
		errs: missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.Children(ctx, id, bounded.Page{})
			return err
		}),
	}
}

func parentsMethod() method[ports.NoteRef] {
	q := func(id string) query[ports.NoteRef] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return n.Parents(ctx, id, p)
		})
	}
	return method[ports.NoteRef]{
		name: "Parents", call: "Parents", tool: "parents", port: notesPort,
		limits: ports.ParentsLimits, paging: bounded.ByOffset, key: noteRefKey,
		queries: []query[ports.NoteRef]{q(ManyParentsID), q("diamond/bottom"), q("cycle/d"), q(HubID),
			q("deep/a/b/own"), q("deep/x"), q("deep/a/b"), q("areas")},
		sized: func(n int) (fixture, query[ports.NoteRef]) {
			notes := tiedNotes("tie/", n, nil)
			// n existing parents and a missing one.
			child := ports.Note{ID: "tie-child", Title: "Child", UpdatedAt: Epoch, Parents: []string{"missing/one"}}
			for _, nt := range notes {
				child.Parents = append(child.Parents, nt.ID)
			}
			return fixture{notes: append(append(notes, child), decoyNotes()...)}, q("tie-child")
		},
		errs: missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.Parents(ctx, id, bounded.Page{})
			return err
		}),
	}
}

func descendantsMethod() method[ports.Descendant] {
	q := func(id string, depth int) query[ports.Descendant] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}, {Name: "maxDepth", Value: depth}},
			func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
				return n.Descendants(ctx, id, depth, p)
			})
	}
	depthErr := func(depth int) errCase {
		return errCase{fmt.Sprintf("maxDepth=%d", depth), func(ctx context.Context, s Store) error {
			_, err := s.Notes.Descendants(ctx, HubID, depth, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}}
	}
	return method[ports.Descendant]{
		name: "Descendants", call: "Descendants", tool: "descendants", port: notesPort,
		limits: ports.DescendantsLimits, paging: bounded.ByOffset, key: descendantKey,
		queries: []query[ports.Descendant]{
			q(HubID, 1), q(HubID, 2), q(HubID, 0),
			q("chain/00", 0), q("chain/00", ports.MaxDescendantDepth), q("chain/00", ports.MaxDescendantDepth-1),
			q("cycle/a", 0), q("cycle/a", ports.MaxDescendantDepth), q("diamond/top", 0),
			q("deep", 0), q("deep/a", ports.MaxDescendantDepth), q("areas", 1),
		},
		sized: func(n int) (fixture, query[ports.Descendant]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) { nt.Parents = []string{"tie-root"} })
			notes = append(notes, ports.Note{ID: "tie-root", Title: "Root", UpdatedAt: Epoch})
			return fixture{notes: append(notes, decoyNotes()...)}, q("tie-root", 0)
		},
		errs: append(missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.Descendants(ctx, id, 0, bounded.Page{})
			return err
		}), depthErr(-1), depthErr(ports.MaxDescendantDepth+1)),
	}
}

func relatedNotesMethod() method[ports.Related] {
	q := func(id string) query[ports.Related] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.Related], error) {
			return n.RelatedNotes(ctx, id, p)
		})
	}
	return method[ports.Related]{
		name: "RelatedNotes", call: "RelatedNotes", tool: "related_notes", port: notesPort,
		limits: ports.RelatedNotesLimits, paging: bounded.ByOffset, key: relatedKey,
		queries: []query[ports.Related]{q(ManyLinksID), q("cycle/a"), q("lit/percent"), q("chain/05")},
		sized: func(n int) (fixture, query[ports.Related]) {
			notes := tiedNotes("tie/", n, func(nt *ports.Note) { nt.Tags = []string{"shared"} })
			notes = append(notes, ports.Note{ID: "tie-target", Title: "Target", UpdatedAt: Epoch, Tags: []string{"shared", "own"}})
			return fixture{notes: append(notes, decoyNotes()...)}, q("tie-target")
		},
		errs: missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.RelatedNotes(ctx, id, bounded.Page{})
			return err
		}),
	}
}

// getNoteTests checks GetNote: every note with the default window, the
// huge notes walked window by window (the windows must rebuild the content
// byte for byte), windows past the end, and bad input.
func (s *suite) getNoteTests(t TB) {
	fx := fixture{notes: append(Notes(Seed), HugeNotes()...)}
	st, ref := s.open(t, notesPort, fx)
	get := func(t TB, id string, w bounded.Window) (ports.NoteContent, bool) {
		t.Helper()
		at := fmt.Sprintf("GetNote(id=%q, window=%+v)", id, w)
		want, err := ref.Notes.GetNote(t.Context(), id, w)
		if err != nil {
			t.Fatalf("%s on memrepo: %v", at, err)
		}
		got, err := st.Notes.GetNote(t.Context(), id, w)
		if err != nil {
			t.Errorf("%s: %v", at, err)
			return got, false
		}
		if d := s.diff(want, got); d != "" {
			t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
			return got, false
		}
		return got, true
	}
	t.Run("default-window", func(t TB) {
		for _, n := range fx.notes {
			get(t, n.ID, bounded.Window{})
		}
	})
	t.Run("windows", func(t TB) {
		for _, n := range fx.notes {
			if !strings.HasPrefix(n.ID, "big/") && n.ID != HubID && n.ID != "lit/percent" {
				continue
			}
			sizes := []int{0, 1999, bounded.MaxWindowLines, bounded.MaxWindowLines + 1}
			if len(n.Content) < 1000 {
				sizes = append(sizes, 1, 2)
			}
			for _, size := range sizes {
				w := bounded.Window{MaxLines: size}
				var b strings.Builder
				for step := 0; ; step++ {
					if step > 100 {
						t.Fatalf("GetNote(id=%q) windows of %d lines: the walk does not end", n.ID, size)
					}
					nc, ok := get(t, n.ID, w)
					if !ok {
						break
					}
					b.WriteString(nc.Content)
					if nc.Window.NextOffset == 0 {
						if b.String() != n.Content {
							t.Errorf("GetNote(id=%q) windows of %d lines: the %d windows rebuild %d bytes, want the %d bytes of the content", n.ID, size, step+1, b.Len(), len(n.Content))
						}
						break
					}
					w.Offset = nc.Window.NextOffset
				}
			}
		}
	})
	t.Run("past-end", func(t TB) {
		for _, id := range []string{"big/lines", "big/crlf", "big/empty", "lit/percent"} {
			var content string
			for _, n := range fx.notes {
				if n.ID == id {
					content = n.Content
				}
			}
			_, info, _ := bounded.ApplyWindow(content, bounded.Window{})
			for _, off := range []int{info.TotalLines, info.TotalLines + 1, 1 << 40} {
				w := bounded.Window{MaxLines: 10, Offset: off}
				if nc, ok := get(t, id, w); ok && (nc.Content != "" || nc.Window.ReturnedLines != 0 || nc.Window.TotalLines != info.TotalLines) {
					t.Errorf("GetNote(id=%q, window=%+v): %d lines of %d, want none of %d", id, w, nc.Window.ReturnedLines, nc.Window.TotalLines, info.TotalLines)
				}
			}
		}
	})
	getErr := func(id string, w bounded.Window) func(ctx context.Context, s Store) error {
		return func(ctx context.Context, s Store) error {
			_, err := s.Notes.GetNote(ctx, id, w)
			return err
		}
	}
	t.Run("errors", func(t TB) {
		cases := missingIDCases(func(ctx context.Context, n ports.Notes, id string) error {
			_, err := n.GetNote(ctx, id, bounded.Window{})
			return err
		})
		cases = append(cases,
			errCase{"negative-maxLines", getErr(HubID, bounded.Window{MaxLines: -1}), []error{bounded.ErrInvalidWindow}},
			errCase{"negative-offset", getErr(HubID, bounded.Window{Offset: -1}), []error{bounded.ErrInvalidWindow}},
		)
		runErrCases(t, st, cases)
	})
}

// getNotesTests checks GetNotes: order, duplicates, missing ids, windows,
// and its limits.
func (s *suite) getNotesTests(t TB) {
	fx := fixture{notes: append(Notes(Seed), HugeNotes()...)}
	st, ref := s.open(t, notesPort, fx)
	compare := func(t TB, ids []string, w bounded.Window) {
		t.Helper()
		at := fmt.Sprintf("GetNotes(ids=%q, window=%+v)", ids, w)
		if len(at) > 300 {
			at = at[:300] + "…"
		}
		want, err := ref.Notes.GetNotes(t.Context(), ids, w)
		if err != nil {
			t.Fatalf("%s on memrepo: %v", at, err)
		}
		got, err := st.Notes.GetNotes(t.Context(), ids, w)
		if err != nil {
			t.Errorf("%s: %v", at, err)
			return
		}
		norm := func(r ports.GetNotesResult) ports.GetNotesResult {
			return ports.GetNotesResult{Notes: emptySlice(r.Notes), Missing: emptySlice(r.Missing)}
		}
		if d := s.diff(norm(want), norm(got)); d != "" {
			t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
		}
	}
	mixed := []string{"lit/quote", "no/such", HubID, "lit/quote", "big/crlf", "no/such", "日本/none", "big/empty"}
	t.Run("missing-and-duplicates", func(t TB) {
		compare(t, mixed, bounded.Window{})
		compare(t, mixed, bounded.Window{MaxLines: 3, Offset: 1})
		compare(t, mixed, bounded.Window{MaxLines: bounded.MaxWindowLines + 1})
		compare(t, mixed, bounded.Window{Offset: 1 << 30})
	})
	t.Run("all-missing", func(t TB) { compare(t, []string{"no/a", "no/b", "no/a"}, bounded.Window{}) })
	t.Run("maximum", func(t TB) {
		var ids []string
		for i := range ports.MaxGetNotes {
			ids = append(ids, fx.notes[(i*7)%len(fx.notes)].ID)
		}
		compare(t, ids, bounded.Window{MaxLines: 2})
	})
	call := func(ids []string, w bounded.Window) func(ctx context.Context, s Store) error {
		return func(ctx context.Context, s Store) error {
			_, err := s.Notes.GetNotes(ctx, ids, w)
			return err
		}
	}
	tooMany := make([]string, ports.MaxGetNotes+1)
	for i := range tooMany {
		tooMany[i] = HubID
	}
	t.Run("errors", func(t TB) {
		runErrCases(t, st, []errCase{
			{"no-ids", call(nil, bounded.Window{}), []error{ports.ErrInvalidQuery}},
			{"empty-ids", call([]string{}, bounded.Window{}), []error{ports.ErrInvalidQuery}},
			{"too-many-ids", call(tooMany, bounded.Window{}), []error{ports.ErrInvalidQuery}},
			{"negative-maxLines", call([]string{HubID}, bounded.Window{MaxLines: -1}), []error{bounded.ErrInvalidWindow}},
			{"negative-offset", call([]string{HubID}, bounded.Window{Offset: -1}), []error{bounded.ErrInvalidWindow}},
		})
	})
}

// noteReads are the whole answers of every notes read method's queries
// over the main fixture, to compare a store with memrepo after writes.
func noteReads(data fixture) []namedRead {
	return []namedRead{
		readsOf(listNotesMethod()),
		readsOf(searchNotesMethod()),
		readsOf(searchByLinksMethod()),
		readsOf(findBrokenLinksMethod()),
		readsOf(noteLinksMethod("internal")),
		readsOf(noteLinksMethod("incoming")),
		readsOf(backlinksMethod()),
		readsOf(childrenMethod()),
		readsOf(parentsMethod()),
		readsOf(descendantsMethod()),
		readsOf(relatedNotesMethod()),
	}
}

// sameReads compares st with ref after writes: every note of data read
// whole, and the whole answer of every read query of [noteReads]. A read
// that fails on memrepo (naming a note deleted) must fail alike.
func (s *suite) sameReads(t TB, st, ref Store, data fixture) {
	t.Helper()
	t.Run("GetNote", func(t TB) {
		ctx := t.Context()
		for _, n := range data.notes {
			want, werr := ref.Notes.GetNote(ctx, n.ID, bounded.Window{})
			got, gerr := st.Notes.GetNote(ctx, n.ID, bounded.Window{})
			at := fmt.Sprintf("GetNote(id=%q)", n.ID)
			if !sameErr(t, at, werr, gerr) || werr != nil {
				continue
			}
			if d := s.diff(want, got); d != "" {
				t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
			}
		}
	})
	for _, r := range noteReads(data) {
		t.Run(r.name, func(t TB) { r.check(t, s, st, ref) })
	}
}

// putNoteTests checks PutNote: invalid notes are refused with
// ErrInvalidItem and leave nothing behind; a second put replaces the first
// with its links, tags and parents.
func (s *suite) putNoteTests(t TB) {
	t.Run("invalid", func(t TB) {
		keep := ports.Note{ID: "keep/me", Title: "Keep", Content: "kept", UpdatedAt: Epoch, Tags: []string{"k"}, Links: []ports.Link{{Target: "lit/x"}}}
		st, ref := s.open(t, notesPort, fixture{notes: []ports.Note{keep}})
		bad := func(f func(n *ports.Note)) ports.Note {
			n := ports.Note{ID: "bad/note", Title: "Bad", Content: "bad", UpdatedAt: Epoch}
			f(&n)
			return n
		}
		replaced := keep
		replaced.Content = "now with NUL \x00"
		replaced.Title = "changed"
		cases := []struct {
			name string
			note ports.Note
		}{
			{"empty-id", bad(func(n *ports.Note) { n.ID = "" })},
			{"invalid-utf8-id", bad(func(n *ports.Note) { n.ID = "bad/\xff" })},
			{"long-id", bad(func(n *ports.Note) { n.ID = strings.Repeat("a", 1025) })},
			{"nul-title", bad(func(n *ports.Note) { n.Title = "a\x00" })},
			{"invalid-utf8-content", bad(func(n *ports.Note) { n.Content = "caf\xe9" })},
			{"empty-tag", bad(func(n *ports.Note) { n.Tags = []string{"ok", ""} })},
			{"own-parent", bad(func(n *ports.Note) { n.Parents = []string{"keep/me", "bad/note"} })},
			{"empty-link-target", bad(func(n *ports.Note) { n.Links = []ports.Link{{Target: "keep/me"}, {Target: ""}} })},
			{"nul-link-text", bad(func(n *ports.Note) { n.Links = []ports.Link{{Target: "keep/me", Text: "\x00"}} })},
			{"invalid-replacement", replaced},
		}
		for _, c := range cases {
			t.Run(c.name, func(t TB) {
				if err := ref.Notes.PutNote(t.Context(), c.note); err == nil {
					t.Fatalf("memrepo accepts the invalid note %q (a bug of the suite or of memrepo)", c.note.ID)
				}
				expectErr(t, fmt.Sprintf("PutNote(%s note)", c.name), st.Notes.PutNote(t.Context(), c.note), ports.ErrInvalidItem)
			})
		}
		s.sameReads(t, st, ref, fixture{notes: []ports.Note{keep, {ID: "bad/note"}}})
	})
	t.Run("replace", func(t TB) {
		data := fixture{notes: Notes(Seed)}
		st, ref := s.open(t, notesPort, data)
		var changed []ports.Note
		for i, n := range data.notes {
			if i%5 != 0 {
				continue
			}
			n.Title = "Replaced " + n.Title
			n.Content = "replaced content\nwith a new plan\n"
			n.Tags = []string{"replaced", "work"}
			n.Links = []ports.Link{{Target: HubID}, {Target: "missing/new"}, {Target: "https://new.example.com", External: true}}
			n.Parents = nil
			if n.ID != ManyParentsID {
				n.Parents = []string{ManyParentsID}
			}
			n.UpdatedAt = Epoch.Add(-3 * 1e9)
			changed = append(changed, n)
		}
		// The same note twice, then identically once more.
		changed = append(changed, changed[0], changed[0])
		for _, n := range changed {
			if err := ref.Notes.PutNote(t.Context(), n); err != nil {
				t.Fatalf("memrepo: PutNote(%q): %v", n.ID, err)
			}
			if err := st.Notes.PutNote(t.Context(), n); err != nil {
				t.Fatalf("PutNote(%q) again: %v", n.ID, err)
			}
		}
		s.sameReads(t, st, ref, data)
	})
}

// deleteNoteTests checks DeleteNote: links to a deleted note become
// broken, its children keep naming it, and deleting it again is
// ErrNotFound.
func (s *suite) deleteNoteTests(t TB) {
	data := fixture{notes: Notes(Seed)}
	st, ref := s.open(t, notesPort, data)
	for _, id := range []string{PopularID, HubID, "cycle/b", "a_b/one"} {
		if err := ref.Notes.DeleteNote(t.Context(), id); err != nil {
			t.Fatalf("memrepo: DeleteNote(%q): %v", id, err)
		}
		if err := st.Notes.DeleteNote(t.Context(), id); err != nil {
			t.Fatalf("DeleteNote(%q): %v", id, err)
		}
	}
	s.sameReads(t, st, ref, data)
	t.Run("errors", func(t TB) {
		del := func(id string) func(ctx context.Context, s Store) error {
			return func(ctx context.Context, s Store) error { return s.Notes.DeleteNote(ctx, id) }
		}
		runErrCases(t, st, []errCase{
			{"deleted-again", del(PopularID), []error{ports.ErrNotFound}},
			{"missing-id", del("no/such/note"), []error{ports.ErrNotFound}},
			{"pattern-id", del("a_%"), []error{ports.ErrNotFound}},
			{"empty-id", del(""), []error{ports.ErrNotFound, ports.ErrInvalidQuery}},
		})
	})
}
