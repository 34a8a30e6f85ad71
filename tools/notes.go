package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
)

// GetNotesLimits: get_notes pages over the ids it is given, all of them (at
// most ports.MaxGetNotes) by default, so that a response cut by its budget
// continues by offset.
var GetNotesLimits = bounded.Limits{Default: ports.MaxGetNotes, Max: ports.MaxGetNotes}

// Argument constructors shared by the notes tools.

func idParam(desc string) param {
	return param{name: "id", kind: kindString, required: true, desc: desc, sentinel: ports.ErrInvalidQuery}
}

func strParam(name, desc string) param {
	return param{name: name, kind: kindString, desc: desc, sentinel: ports.ErrInvalidQuery}
}

func listParam(name, desc string, maxItems int) param {
	return param{name: name, kind: kindStrings, maxItems: maxItems, desc: desc, sentinel: ports.ErrInvalidQuery}
}

func windowParams() []param {
	return []param{
		{name: "maxLines", kind: kindInt, hasMin: true, min: 1, hasMax: true, max: bounded.MaxWindowLines, clamp: true,
			def: bounded.DefaultWindowLines, sentinel: bounded.ErrInvalidWindow,
			desc: "Lines of content per note."},
		{name: "lineOffset", kind: kindInt, hasMin: true, hasMax: true, max: bounded.MaxOffset, def: 0, sentinel: bounded.ErrInvalidWindow,
			desc: "0-based first line."},
	}
}

// charOffset is the call's charOffset: the characters of the first line
// read before (get_note).
func (r *request) charOffset() int {
	n := r.in.Int("charOffset")
	return n
}

// window is the line window of a call's maxLines and lineOffset.
func (r *request) window() bounded.Window {
	maxLines := r.in.Int("maxLines")
	offset := r.in.Int("lineOffset")
	return bounded.Window{MaxLines: maxLines, Offset: offset}
}

// single is the page of one result.
func single[T any](item T) bounded.Paged[T] {
	return bounded.Paged[T]{Items: []T{item}, Page: bounded.PageInfo{Total: 1, Limit: 1, Returned: 1}}
}

func (s *Set) addNotes() {
	notes := s.cfg.Notes
	s.add(spec{name: "get_note",
		desc: "Read one note by id (its vault path without extension): title, tags, dates and a window of its lines.",
		params: append(append([]param{idParam("The note's id.")}, windowParams()...),
			param{name: "charOffset", kind: kindInt, hasMin: true, hasMax: true, max: bounded.MaxOffset, def: 0, sentinel: bounded.ErrInvalidWindow,
				desc: "Characters of line lineOffset already read."}),
	}, func(ctx context.Context, r *request) ([]byte, error) {
		var nc ports.NoteContent
		err := s.named(ctx, r, "id", func(id string) (err error) {
			nc, err = notes.GetNote(ctx, id, r.window())
			return err
		})
		if err != nil {
			return nil, err
		}
		it := s.noteContentItem(r, nc, 1, 0, r.room())
		if err := s.attachContext(ctx, r, 1, func(int) (string, **Context) { return it.ID, &it.Context }); err != nil {
			return nil, err
		}
		return s.fitNotes(r, single(it), nc, 1, true)
	})

	s.add(spec{name: "get_notes", paged: true, noCursor: true, limits: GetNotesLimits,
		desc: fmt.Sprintf("Read 1 to %d notes by id, in the order given, each as get_note does; a missing id comes back as {\"id\":...,\"missing\":true}.", ports.MaxGetNotes),
		params: append([]param{{name: "ids", kind: kindStrings, required: true, maxItems: ports.MaxGetNotes, sentinel: ports.ErrInvalidQuery,
			desc: "Repeats are read once."}}, windowParams()...),
	}, func(ctx context.Context, r *request) ([]byte, error) {
		ids := distinct(r.in.Strs("ids"))
		if len(ids) == 0 {
			return nil, &ArgumentError{Tool: "get_notes", Argument: "ids", Reason: "is empty: give 1 to 100 ids", Kind: ports.ErrInvalidQuery}
		}
		idPage, err := bounded.FetchPage(ctx, bounded.FromSlice(ids), "", r.page, GetNotesLimits, driver.Codec{})
		if err != nil {
			return nil, err
		}
		batch := idPage.Items
		found, err := s.notesNamed(ctx, r, batch)
		if err != nil {
			return nil, err
		}
		page := bounded.Paged[NoteContentItem]{Page: idPage.Page}
		for i, id := range batch {
			nc, ok := found[id]
			if !ok {
				page.Items = append(page.Items, NoteContentItem{ID: id, Missing: true})
				continue
			}
			page.Items = append(page.Items, s.noteContentItem(r, nc, len(batch), i, r.room()))
		}
		err = s.attachContext(ctx, r, len(page.Items), func(i int) (string, **Context) {
			if page.Items[i].Missing {
				return "", nil
			}
			return page.Items[i].ID, &page.Items[i].Context
		})
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 || page.Items[0].Missing {
			return fit(r, page, nil, nil)
		}
		return s.fitNotes(r, page, found[batch[0]], len(batch), false)
	})

	s.add(spec{name: "list_notes", paged: true, limits: ports.ListNotesLimits,
		desc: "List the vault's notes, most recently updated first.",
		params: []param{
			strParam("tag", "Only notes with this tag."),
			strParam("folder", "Only notes in this folder or below."),
		},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		page, err := notes.ListNotes(ctx, ports.ListFilter{Tag: r.in.Str("tag"), Folder: r.in.Str("folder")}, r.page)
		return s.noteList(ctx, r, page, err)
	})

	s.add(spec{name: "search_notes", paged: true, limits: ports.SearchNotesLimits,
		desc:   "Find notes whose title or content contains the query (case-insensitive, literal). Title matches first, then content matches; each most recently updated first.",
		params: []param{{name: "query", kind: kindString, required: true, sentinel: ports.ErrInvalidQuery, desc: "Text to find."}},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		page, err := notes.SearchNotes(ctx, r.in.Str("query"), r.page)
		return s.noteList(ctx, r, page, err)
	})

	s.add(spec{name: "search_by_links", paged: true, limits: ports.SearchByLinksLimits,
		desc: "Find notes by their links, most recently updated first: a note matches every criterion given (at least one), a list criterion by any entry.",
		params: []param{
			listParam("hasLinksTo", "Notes with an internal link to any of these note ids.", ports.MaxGetNotes),
			listParam("linkedFrom", "Notes that any of these notes link to.", ports.MaxGetNotes),
			listParam("externalDomains", "Notes with an external link to any of these domains or their subdomains.", ports.MaxGetNotes),
			{name: "brokenLinks", kind: kindBool, desc: "Only notes with at least one link to a missing note."},
		},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		q := ports.LinkQuery{
			HasLinksTo: r.in.Strs("hasLinksTo"), LinkedFrom: r.in.Strs("linkedFrom"),
			ExternalDomains: r.in.Strs("externalDomains"), BrokenLinks: r.in.Bool("brokenLinks"),
		}
		q, err := s.linkNames(ctx, r, q)
		if err != nil {
			return nil, err
		}
		page, err := notes.SearchByLinks(ctx, q, r.page)
		return s.noteList(ctx, r, page, err)
	})

	s.add(spec{name: "find_broken_links", paged: true, limits: ports.FindBrokenLinksLimits,
		desc: "List every internal link to a missing note, by source id, then position.",
	}, func(ctx context.Context, r *request) ([]byte, error) {
		page, err := notes.FindBrokenLinks(ctx, r.page)
		if err != nil {
			return nil, err
		}
		return fit(r, mapPage(page, func(_ int, l ports.LinkRef) LinkItem { return s.linkItem(r, "", l) }), nil, nil)
	})

	s.add(spec{name: "get_note_links", paged: true, noCursor: true, limits: ports.NoteLinksLimits,
		desc: "List a note's links: internal (to notes, in order of appearance), external (URLs, in order), incoming (by source id), or all three in that order.",
		params: []param{
			idParam("The note's id."),
			{name: "category", kind: kindString, enum: []string{"all", "internal", "external", "incoming"}, def: "all"},
		},
	}, s.noteLinks)

	s.add(spec{name: "get_backlinks", paged: true, limits: ports.BacklinksLimits,
		desc:   "List the notes that link to a note (which need not exist), most recently updated first.",
		params: []param{idParam("The linked note's id.")},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		page, err := s.backlinks(ctx, r)
		return s.noteList(ctx, r, page, err)
	})

	s.add(spec{name: "get_children", paged: true, limits: ports.ChildrenLimits,
		desc:   "List the notes and folders directly below a note or folder, by title.",
		params: []param{idParam("The note's or folder's id.")},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		var page bounded.Paged[ports.NoteRef]
		err := s.named(ctx, r, "id", func(id string) (err error) {
			page, err = notes.Children(ctx, id, r.page)
			return err
		})
		r.whyEmpty(page.Page, "has nothing below it: it is a note, not a folder, and no note names it as its parent")
		return s.noteList(ctx, r.flat(), page, err)
	})

	s.add(spec{name: "get_parents", paged: true, limits: ports.ParentsLimits,
		desc:   "List the notes and folders directly above a note or folder, by title.",
		params: []param{idParam("The note's or folder's id.")},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		var page bounded.Paged[ports.NoteRef]
		err := s.named(ctx, r, "id", func(id string) (err error) {
			page, err = notes.Parents(ctx, id, r.page)
			return err
		})
		r.whyEmpty(page.Page, "has no parents: it is at the vault root, and names no parent that exists")
		return s.noteList(ctx, r.flat(), page, err)
	})

	s.add(spec{name: "get_descendants", paged: true, limits: ports.DescendantsLimits,
		desc: "List the notes and folders below one down to maxDepth levels, each once at its shortest depth, by depth, then title.",
		params: []param{
			idParam("The top note's or folder's id."),
			{name: "maxDepth", kind: kindInt, hasMin: true, min: 1, hasMax: true, max: ports.MaxDescendantDepth, def: ports.DefaultDescendantDepth,
				sentinel: ports.ErrInvalidQuery,
				desc:     "Levels to descend."},
		},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		maxDepth := r.in.Int("maxDepth")
		var page bounded.Paged[ports.Descendant]
		err := s.named(ctx, r, "id", func(id string) (err error) {
			page, err = notes.Descendants(ctx, id, maxDepth, r.page)
			return err
		})
		if err != nil {
			return nil, err
		}
		r.whyEmpty(page.Page, "has nothing below it: it is a note, not a folder, and no note names it as its parent")
		return fit(r, mapPage(page, func(_ int, d ports.Descendant) DescendantItem {
			return DescendantItem{NoteItem: r.noteItem(d.NoteRef), Depth: d.Depth}
		}), nil, nil)
	})

	s.add(spec{name: "get_related_notes", paged: true, limits: ports.RelatedNotesLimits,
		desc:   "List the notes related to a note, most related first: score = shared tags + shared link targets + 2 when linked either way.",
		params: []param{idParam("The note's id.")},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		var page bounded.Paged[ports.Related]
		err := s.named(ctx, r, "id", func(id string) (err error) {
			page, err = notes.RelatedNotes(ctx, id, r.page)
			return err
		})
		if err != nil {
			return nil, err
		}
		out := mapPage(page, func(_ int, x ports.Related) RelatedItem {
			return RelatedItem{NoteItem: r.noteItem(x.NoteRef), Score: x.Score, SharedTags: x.SharedTags,
				SharedLinks: x.SharedLinks, LinksTo: x.LinksTo, LinkedFrom: x.LinkedFrom}
		})
		err = s.attachContext(ctx, r, len(out.Items), func(i int) (string, **Context) { return out.Items[i].ID, &out.Items[i].Context })
		if err != nil {
			return nil, err
		}
		return fitNoteItems(r, out, func(x RelatedItem) float64 { return float64(x.Score) }, func(x *RelatedItem) *NoteItem { return &x.NoteItem })
	})
}

// fitNotes fits a page of note windows whose first note is first. When
// that note alone is over the budget, Fit would clip its strings blindly,
// content included, and its contentMetadata and nextLines would no longer
// say where the text goes on. So the other fields give way first: the
// note's hierarchy context is left out (contextOmitted) and a long title
// clipped to titleRoom; then the envelope around the note is measured with
// the text empty, and the text is clipped to the room left, with the
// window info and nextLines of the clip. The text never takes Fit's clip:
// when Fit would still clip it, its room shrinks and it is clipped again.
func (s *Set) fitNotes(r *request, page bounded.Paged[NoteContentItem], first ports.NoteContent, n int, window bool) ([]byte, error) {
	in := bounded.FitInput[NoteContentItem]{Page: page, Call: r.call, Hints: r.hints, Unclipped: unclipped}
	// setWindow makes the note window it the envelope's: its window info,
	// its clip, and the call that reads on (moved from the note to the
	// envelope's next), which the hint names; one whole note needs no hint.
	hintless := false
	setWindow := func(it *NoteContentItem) {
		in.Window, in.WindowNext, in.Clipped, in.Hints = it.ContentMetadata, it.NextLines, nil, bounded.HintOff
		if it.NextLines != nil && !hintless {
			in.Hints = r.hints
		}
		if it.ContentClip != nil && it.ContentClip.Clipped {
			in.Clipped = contentPath
		}
		it.NextLines = nil
	}
	if window {
		in.Page.Items = slices.Clone(page.Items)
		setWindow(&in.Page.Items[0])
	}
	out, err := fitFields(r, in)
	if err != nil && !errors.Is(err, bounded.ErrInvalidBudget) || page.Items[0].Content == nil {
		return out.JSON, err
	}
	if tr := out.Truncation.Reason; err == nil && tr != bounded.ReasonSingleResultTooLarge && tr != bounded.ReasonBudgetTooSmall {
		return out.JSON, nil
	}
	head := page.Items[0]
	if head.Context != nil {
		head.Context, head.ContextOmitted = nil, true
	}
	head.Title, _ = bounded.Clip(head.Title, min(titleRoom, r.budget.LimitChars()/10))
	// The envelope around the text at its largest: the window info and
	// next call of a clip, with numbers as long as they can be.
	blank := s.noteContentItem(r, first, n, 0, room{chars: 2, tokens: 1})
	blank.Title, blank.Context, blank.ContextOmitted = head.Title, nil, head.ContextOmitted
	blank.Content = new(string)
	// The text's room: the budget less the envelope around it (its empty
	// quotes aside), and slack for the numbers and the clip report that
	// change with it; at least room for the quotes and "…": never text
	// clipped to nothing without a marker. When the hint would leave the
	// text under a quarter of the budget, the hint gives way (next holds
	// the same call).
	const slack, slackTokens = 40, 16
	var rm room
	for {
		saved := in
		in.Page = bounded.Paged[NoteContentItem]{Items: []NoteContentItem{blank}, Page: page.Page.Cut(1)}
		if window {
			setWindow(&in.Page.Items[0])
		}
		measure := in
		in = saved
		m, err := fitFields(r, measure)
		if err != nil {
			return nil, err
		}
		if tr := m.Truncation.Reason; tr == bounded.ReasonSingleResultTooLarge || tr == bounded.ReasonBudgetTooSmall {
			// Not even the note without its text fits: Fit clips what it
			// must (or says what it needs), and the text is not advanced
			// past.
			return m.JSON, nil
		}
		rm = room{
			chars:  max(r.budget.LimitChars()-m.Truncation.EstimatedChars+2-slack, 3),
			tokens: max(r.budget.LimitTokens()-m.Truncation.EstimatedTokens+1-slackTokens, 2),
		}
		if hintless || measure.Hints == bounded.HintOff || rm.chars >= r.budget.LimitChars()/4 {
			break
		}
		hintless = true
	}
	var tooSmall []byte // the last answer that no note fits
	for {
		it := s.noteContentItem(r, first, n, 0, rm)
		it.Title, it.Context, it.ContextOmitted = head.Title, head.Context, head.ContextOmitted
		items := slices.Clone(page.Items)
		items[0] = it
		in.Page.Items = items
		if window {
			setWindow(&items[0])
		}
		out, err = fitFields(r, in)
		// Too large still: Fit clipped the text, or kept nothing.
		tr := out.Truncation
		if err == nil && tr.Reason == bounded.ReasonBudgetTooSmall {
			tooSmall = out.JSON
		}
		over := tr.Reason == bounded.ReasonSingleResultTooLarge && slices.Contains(tr.ClippedFields, "content") || tr.Reason == bounded.ReasonBudgetTooSmall
		if err != nil || !over || rm.chars <= 3 {
			if err == nil && window && tooSmall != nil && !advances(it.ContentMetadata) {
				// A window that reads nothing would name this very
				// call as the next: say the budget it needs instead.
				return tooSmall, nil
			}
			return out.JSON, err
		}
		rm = room{chars: max(rm.chars*3/4, 3), tokens: max(rm.tokens*3/4, 2)}
	}
}

// advances reports whether the window w reads on: its next position is
// past its start, or it reads to the end.
func advances(w *bounded.WindowInfo) bool {
	switch {
	case w == nil || !w.Truncated:
		return true
	case w.NextOffset == 0 && w.NextCharOffset == 0:
		return w.ReturnedLines > 0
	}
	return w.NextOffset > w.Offset || w.NextOffset == w.Offset && w.NextCharOffset > w.CharOffset
}

// contentPath is the path of a note window's text in ClippedFields.
var contentPath = []string{"content"}

// titleRoom is the most characters of a title a note window keeps when
// the note alone is over the budget (and at most a tenth of the budget).
const titleRoom = 200

// flat returns a copy of r that attaches no hierarchy context: the
// hierarchy tools' results are the hierarchy already.
func (r *request) flat() *request {
	c := *r
	c.noContext = true
	return &c
}

// noteList answers a listing tool with a page of notes (or the port's
// error), attaching hierarchy context when the access mode expands it.
func (s *Set) noteList(ctx context.Context, r *request, page bounded.Paged[ports.NoteRef], err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	out := mapPage(page, func(_ int, n ports.NoteRef) NoteItem { return r.noteItem(n) })
	err = s.attachContext(ctx, r, len(out.Items), func(i int) (string, **Context) { return out.Items[i].ID, &out.Items[i].Context })
	if err != nil {
		return nil, err
	}
	return fitNoteItems(r, out, nil, func(n *NoteItem) *NoteItem { return n })
}

// attachContext sets the hierarchy context of n results, item(i) giving the
// id of the i-th and where its context goes ("" and nil: none).
func (s *Set) attachContext(ctx context.Context, r *request, n int, item func(i int) (string, **Context)) error {
	if r.noContext {
		return nil
	}
	ids := make([]string, n)
	for i := range n {
		ids[i], _ = item(i)
	}
	ctxs, err := s.expand(ctx, r, ids)
	if err != nil {
		return err
	}
	for i, c := range ctxs {
		if _, dst := item(i); dst != nil && c != nil {
			*dst = c
		}
	}
	return nil
}

// noteLinks answers get_note_links. One category is one port page; "all"
// is the three categories concatenated (internal, external, incoming) and
// paged as one list: a first call counts each category, a second fetches
// the part of each that the page covers.
func (s *Set) noteLinks(ctx context.Context, r *request) ([]byte, error) {
	id, category := r.in.Str("id"), r.in.Str("category")
	names := [3]string{"internal", "external", "incoming"}
	one := bounded.Page{Limit: 1}
	pages := ports.NoteLinksPages{Internal: one, External: one, Incoming: one}
	at := func(l ports.NoteLinks) [3]bounded.Paged[ports.LinkRef] {
		return [3]bounded.Paged[ports.LinkRef]{l.Internal, l.External, l.Incoming}
	}
	set := func(i int, p bounded.Page) {
		switch i {
		case 0:
			pages.Internal = p
		case 1:
			pages.External = p
		default:
			pages.Incoming = p
		}
	}
	// read reads pages of the links of the note the id argument names.
	var links ports.NoteLinks
	read := func() error {
		return s.named(ctx, r, "id", func(x string) (err error) {
			id = x
			links, err = s.cfg.Notes.NoteLinks(ctx, x, pages)
			return err
		})
	}
	if i := slices.Index(names[:], category); i >= 0 {
		set(i, r.page) // the port normalizes it
		if err := read(); err != nil {
			return nil, err
		}
		return fit(r, mapPage(at(links)[i], func(_ int, l ports.LinkRef) LinkItem { return s.linkItem(r, category, l) }), nil, nil)
	}
	if err := read(); err != nil { // the counts; FetchPage normalizes r.page
		return nil, err
	}
	counts := links
	all := bounded.FromFunc(func(ctx context.Context, req driver.Request) ([]LinkItem, int, error) {
		var totals [3]int
		total := 0
		for i, p := range at(counts) {
			totals[i] = p.Page.Total
			total += p.Page.Total
		}
		// The page covers [req.Offset, end) of the concatenation.
		end, start := min(req.Offset+req.Limit, total), 0
		for i := range names {
			lo, hi := max(req.Offset-start, 0), min(end-start, totals[i])
			if hi > lo {
				set(i, bounded.Page{Limit: hi - lo, Offset: lo})
			} else {
				set(i, bounded.Page{Limit: 1, Offset: totals[i]})
			}
			start += totals[i]
		}
		links, err := s.cfg.Notes.NoteLinks(ctx, id, pages)
		if err != nil {
			return nil, 0, err
		}
		var items []LinkItem
		for i, p := range at(links) {
			for _, l := range p.Items {
				items = append(items, s.linkItem(r, names[i], l))
			}
		}
		return items, total, nil
	})
	page, err := bounded.FetchPage(ctx, all, "", r.page, ports.NoteLinksLimits, driver.Codec{})
	if err != nil {
		return nil, err
	}
	return fit(r, page, nil, nil)
}

// linkItem is the view of a link; in private mode an external link's URL
// and every link's text are withheld.
func (s *Set) linkItem(r *request, category string, l ports.LinkRef) LinkItem {
	it := LinkItem{Category: category, SourceID: l.SourceID}
	if r.detailed {
		pos := l.Position
		it.Position = &pos
	}
	if l.External {
		it.External = true
		it.Domain = ports.Link{Target: l.Target, External: true}.Domain()
		if s.policy.Content {
			it.Target = l.Target
		} else {
			it.Withheld = append(it.Withheld, "target")
		}
	} else {
		it.Target = l.Target
		exists := l.Exists
		it.Exists = &exists
	}
	switch {
	case l.Text == "":
	case !s.policy.Content:
		it.Withheld = append(it.Withheld, "text")
	case r.detailed:
		it.Text = l.Text
	}
	return it
}

// distinct returns ids without repeats, in order of first appearance.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// notesNamed reads the notes of ids with the call's window, by id: those
// the store finds, then, in one more read, those the other ids name as
// links do (see [Set.named]), under the id as given.
func (s *Set) notesNamed(ctx context.Context, r *request, ids []string) (map[string]ports.NoteContent, error) {
	found := make(map[string]ports.NoteContent)
	if len(ids) == 0 {
		return found, nil
	}
	res, err := s.cfg.Notes.GetNotes(ctx, ids, r.window())
	if err != nil {
		return nil, err
	}
	for _, nc := range res.Notes {
		found[nc.ID] = nc
	}
	if len(res.Missing) == 0 {
		return found, nil
	}
	to, err := s.resolveAll(ctx, r, res.Missing)
	if err != nil || len(to) == 0 {
		return found, err
	}
	var named []string
	for _, name := range res.Missing {
		if id, ok := to[name]; ok {
			named = append(named, id)
		}
	}
	more, err := s.cfg.Notes.GetNotes(ctx, named, r.window())
	if err != nil {
		return nil, err
	}
	byID := make(map[string]ports.NoteContent)
	for _, nc := range more.Notes {
		byID[nc.ID] = nc
	}
	for name, id := range to {
		if nc, ok := byID[id]; ok {
			found[name] = nc
		}
	}
	return found, nil
}

// backlinks reads get_backlinks' page. The backlinks of an id no link
// names, on a first page, are those of the note it names as a link does,
// if another (see [Set.named]): an id need not name a note, so the store
// finding none is no error.
func (s *Set) backlinks(ctx context.Context, r *request) (bounded.Paged[ports.NoteRef], error) {
	id := r.in.Str("id")
	page, err := s.cfg.Notes.Backlinks(ctx, id, r.page)
	if err != nil || len(page.Items) > 0 || page.Page.HasMore || r.page.Offset > 0 || r.page.Cursor != "" {
		return page, err
	}
	res, err := s.cfg.Notes.ResolveNotes(ctx, []string{id})
	if err != nil {
		return page, err
	}
	switch to := res[0]; {
	case to.ID != "" && to.ID != id:
		r.resolved("id", id, to.ID)
		return s.cfg.Notes.Backlinks(ctx, to.ID, r.page)
	case to.Matches > 1:
		r.notes = append(r.notes, "No link names "+strconv.Quote(id)+" as written; "+ambiguity(to)+".")
	}
	return page, nil
}

// linkNames adds to q's hasLinksTo and linkedFrom the notes their entries
// name as links do (see [Set.named]), in one read, when other than the
// entry; the hint says so, and names the candidates of an ambiguous entry.
func (s *Set) linkNames(ctx context.Context, r *request, q ports.LinkQuery) (ports.LinkQuery, error) {
	lists := []*[]string{&q.HasLinksTo, &q.LinkedFrom}
	var names []string
	for _, l := range lists {
		names = append(names, *l...)
	}
	if len(names) == 0 || q.Validate() != nil {
		return q, nil
	}
	to := make(map[string]ports.Resolution)
	for batch := range slices.Chunk(ports.Distinct(names), ports.MaxGetNotes) {
		res, err := s.cfg.Notes.ResolveNotes(ctx, batch)
		if err != nil {
			return q, err
		}
		for _, x := range res {
			to[x.Name] = x
			switch {
			case x.ID != "" && x.ID != x.Name:
				r.notes = append(r.notes, fmt.Sprintf("%s resolved, as a link does, to %s.", strconv.Quote(x.Name), strconv.Quote(x.ID)))
			case x.Matches > 1:
				r.notes = append(r.notes, ambiguity(x)+".")
			}
		}
	}
	for _, l := range lists {
		out := slices.Clone(*l)
		for _, name := range *l {
			if x := to[name]; x.ID != "" && x.ID != name && !slices.Contains(out, x.ID) && len(out) < ports.MaxGetNotes {
				out = append(out, x.ID)
			}
		}
		*l = out
	}
	return q, nil
}

// whyEmpty ends the hint of an empty hierarchy listing with why: the id,
// then because.
func (r *request) whyEmpty(p bounded.PageInfo, because string) {
	if p.Total == 0 && p.Returned == 0 && p.TotalKind == bounded.TotalExact {
		id, _ := r.call.Args.Get("id")
		r.notes = append(r.notes, fmt.Sprintf("%s %s.", strconv.Quote(fmt.Sprint(id)), because))
	}
}
