package memrepo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// PutNote stores n.Normalize(), replacing any note with the same ID (and so
// its links and parents). An invalid note (see Normalize), or one with a
// time [ports.ValidateTime] refuses, is an error wrapping
// [ports.ErrInvalidItem], and nothing is written.
func (s *Store) PutNote(ctx context.Context, n ports.Note) error {
	n, err := n.Normalize()
	if err != nil {
		return err
	}
	if err := errors.Join(ports.ValidateTime("createdAt", n.CreatedAt), ports.ValidateTime("updatedAt", n.UpdatedAt)); err != nil {
		return fmt.Errorf("note %q: %w", n.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n = cloneNote(n)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	s.notes[n.ID] = n
	s.tree = nil
	return nil
}

// DeleteNote removes the note id; links to it from other notes become
// broken, and notes naming it as a parent keep naming it. An invalid id is
// [ports.ErrInvalidQuery]; a missing note is [ports.ErrNotFound].
func (s *Store) DeleteNote(ctx context.Context, id string) error {
	if err := ports.ValidateQuery("id", id); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[id]; !ok {
		return notFound("note", id)
	}
	delete(s.notes, id)
	s.tree = nil
	return nil
}

// GetNote returns the note id with the window w of its content (see
// [bounded.ApplyWindow]). An invalid id is [ports.ErrInvalidQuery], an
// invalid window [bounded.ErrInvalidWindow], a missing note
// [ports.ErrNotFound], checked in that order.
func (s *Store) GetNote(ctx context.Context, id string, w bounded.Window) (ports.NoteContent, error) {
	if err := ports.ValidateQuery("id", id); err != nil {
		return ports.NoteContent{}, err
	}
	if _, _, err := w.Normalize(); err != nil {
		return ports.NoteContent{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.NoteContent{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.notes[id]
	if !ok {
		return ports.NoteContent{}, notFound("note", id)
	}
	return noteContent(n, w)
}

// GetNotes returns the notes named by ids, each with the window w, in the
// order of ids; a repeated id is returned (or listed missing) once, at its
// first place. Ids naming no note are listed in Missing, in the order of
// ids. Notes is nil when no id names a note, Missing is nil when every id
// does.
//
// No ids or more than [ports.MaxGetNotes] (counting repeats) is
// [ports.ErrInvalidQuery], as is an invalid id; an invalid window is
// [bounded.ErrInvalidWindow].
func (s *Store) GetNotes(ctx context.Context, ids []string, w bounded.Window) (ports.GetNotesResult, error) {
	if err := ports.ValidateGetNotes(ids, w); err != nil {
		return ports.GetNotesResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.GetNotesResult{}, err
	}
	return s.notesWindowed(ids, w)
}

// ListNotes pages the notes that pass f, ordered by UpdatedAt descending,
// then ID ascending. A set f.Tag or f.Folder must pass
// [ports.ValidateQuery] ([ports.ErrInvalidQuery]); a note passes f.Tag when
// one of its tags equals it, and f.Folder when its ID starts with
// f.Folder+"/" (bytewise, case-sensitive).
func (s *Store) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("ListNotes", f.Tag, f.Folder)
	return page(ctx, s, p, ports.ListNotesLimits, scope, ports.ByUpdatedDesc, noteRef, func() ([]ports.Note, error) {
		if f.Tag != "" {
			if err := ports.ValidateQuery("tag", f.Tag); err != nil {
				return nil, err
			}
		}
		if f.Folder != "" {
			if err := ports.ValidateQuery("folder", f.Folder); err != nil {
				return nil, err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var all []ports.Note
		for _, n := range s.notes {
			if f.Tag != "" && !slices.Contains(n.Tags, f.Tag) {
				continue
			}
			if f.Folder != "" && !strings.HasPrefix(n.ID, f.Folder+"/") {
				continue
			}
			all = append(all, n)
		}
		slices.SortFunc(all, byUpdatedDescThenID)
		return all, nil
	})
}

// SearchNotes pages the notes whose title or content contains query, both
// folded with [ports.Fold] (no other normalization: query is not trimmed).
// Notes matching in the title come first, then those matching in the
// content only; within each group, UpdatedAt descending, then ID ascending.
// An invalid query is [ports.ErrInvalidQuery].
func (s *Store) SearchNotes(ctx context.Context, query string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("SearchNotes", query)
	type hit struct {
		n    ports.Note
		rank int // 0: title matches; 1: content only
	}
	return page(ctx, s, p, ports.SearchNotesLimits, scope, ports.SearchNotesOrder(query), func(h hit) ports.NoteRef { return noteRef(h.n) }, func() ([]hit, error) {
		if err := ports.ValidateQuery("query", query); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := ports.Fold(query)
		var all []hit
		for _, n := range s.notes {
			switch {
			case strings.Contains(ports.Fold(n.Title), q):
				all = append(all, hit{n, 0})
			case strings.Contains(ports.Fold(n.Content), q):
				all = append(all, hit{n, 1})
			}
		}
		slices.SortFunc(all, func(a, b hit) int {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
			return byUpdatedDescThenID(a.n, b.n)
		})
		return all, nil
	})
}

// SearchByLinks pages the notes matching q, each once, ordered by UpdatedAt
// descending, then ID ascending. A note matches when it meets every set
// criterion, and a list criterion when it meets one of its elements:
//
//   - HasLinksTo: it has an internal link whose target equals one of them
//     (the target need not exist);
//   - LinkedFrom: one of them is an existing note with an internal link to
//     it;
//   - ExternalDomains: it has an external link whose [ports.Link.Domain]
//     equals d or ends with "."+d, for d one of them folded with
//     [ports.Fold];
//   - BrokenLinks: it has an internal link to a note that does not exist.
//
// An invalid q ([ports.LinkQuery.Validate]) is [ports.ErrInvalidQuery].
func (s *Store) SearchByLinks(ctx context.Context, q ports.LinkQuery, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := q.Scope()
	return page(ctx, s, p, ports.SearchByLinksLimits, scope, ports.ByUpdatedDesc, noteRef, func() ([]ports.Note, error) {
		if err := q.Validate(); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		domains := make([]string, len(q.ExternalDomains))
		for i, d := range q.ExternalDomains {
			domains[i] = ports.Fold(d)
		}

		// The IDs that the LinkedFrom notes link to.
		var linkedFrom map[string]bool
		if len(q.LinkedFrom) > 0 {
			linkedFrom = make(map[string]bool)
			for _, src := range q.LinkedFrom {
				n, ok := s.notes[src]
				if !ok {
					continue
				}
				for _, l := range n.Links {
					if !l.External {
						linkedFrom[l.Target] = true
					}
				}
			}
		}

		var all []ports.Note
		for _, n := range s.notes {
			if len(q.HasLinksTo) > 0 && !slices.ContainsFunc(n.Links, func(l ports.Link) bool {
				return !l.External && slices.Contains(q.HasLinksTo, l.Target)
			}) {
				continue
			}
			if len(q.LinkedFrom) > 0 && !linkedFrom[n.ID] {
				continue
			}
			if len(domains) > 0 && !slices.ContainsFunc(n.Links, func(l ports.Link) bool {
				return l.External && domainMatches(l.Domain(), domains)
			}) {
				continue
			}
			if q.BrokenLinks && !slices.ContainsFunc(n.Links, s.brokenLocked) {
				continue
			}
			all = append(all, n)
		}
		slices.SortFunc(all, byUpdatedDescThenID)
		return all, nil
	})
}

// domainMatches reports whether domain is one of domains or a subdomain of
// one.
func domainMatches(domain string, domains []string) bool {
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// FindBrokenLinks pages every internal link whose target note does not
// exist, ordered by source ID, then position. Exists is false in every
// returned link.
func (s *Store) FindBrokenLinks(ctx context.Context, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
	scope := ports.Scope("FindBrokenLinks")
	return page(ctx, s, p, ports.FindBrokenLinksLimits, scope, ports.BySourcePosition, identity[ports.LinkRef], func() ([]ports.LinkRef, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var all []ports.LinkRef
		for _, n := range s.notes {
			for i, l := range n.Links {
				if s.brokenLocked(l) {
					all = append(all, s.linkRefLocked(n.ID, i, l))
				}
			}
		}
		slices.SortFunc(all, bySourceThenPosition)
		return all, nil
	})
}

// NoteLinks pages the links of note id by category: its internal and its
// external outgoing links, ordered by position, and the internal links of
// every note (itself included) whose target is id, ordered by source ID,
// then position. Each category has its own page and
// [ports.NoteLinksLimits]. The pages' limits and offsets are checked first
// (Internal, External, Incoming), then id ([ports.ErrInvalidQuery]), then
// the Internal page's cursor, then whether the note exists
// ([ports.ErrNotFound]), then the other pages' cursors.
func (s *Store) NoteLinks(ctx context.Context, id string, p ports.NoteLinksPages) (ports.NoteLinks, error) {
	if err := p.Check(id); err != nil {
		return ports.NoteLinks{}, err
	}
	pages := [3]bounded.Page{p.Internal, p.External, p.Incoming}
	if err := ctx.Err(); err != nil {
		return ports.NoteLinks{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, found := s.notes[id]
	var links [3][]ports.LinkRef // internal, external, incoming
	for i, l := range n.Links {
		if l.External {
			links[1] = append(links[1], s.linkRefLocked(id, i, l))
		} else {
			links[0] = append(links[0], s.linkRefLocked(id, i, l))
		}
	}
	for _, src := range s.notes {
		for i, l := range src.Links {
			if !l.External && l.Target == id {
				links[2] = append(links[2], s.linkRefLocked(src.ID, i, l))
			}
		}
	}
	scopes := ports.NoteLinksScopes(id)
	var out [3]bounded.Paged[ports.LinkRef]
	for i, all := range links {
		// Internal and external are built in position order already;
		// sorting them anyway keeps every order explicit.
		slices.SortFunc(all, bySourceThenPosition)
		pg, err := pageLocked(ctx, s, pages[i], ports.NoteLinksLimits, scopes[i], ports.BySourcePosition, identity[ports.LinkRef], func() ([]ports.LinkRef, error) {
			if !found {
				return nil, notFound("note", id)
			}
			return all, nil
		})
		if err != nil {
			return ports.NoteLinks{}, err
		}
		out[i] = pg
	}
	return ports.NoteLinks{Internal: out[0], External: out[1], Incoming: out[2]}, nil
}

// Backlinks pages the notes (id itself included, if it links to itself)
// with at least one internal link to id, each once, ordered by UpdatedAt
// descending, then ID ascending. id need not name a note. An invalid id is
// [ports.ErrInvalidQuery].
func (s *Store) Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Backlinks", id)
	return page(ctx, s, p, ports.BacklinksLimits, scope, ports.ByUpdatedDesc, noteRef, func() ([]ports.Note, error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var all []ports.Note
		for _, n := range s.notes {
			if linksTo(n, id) {
				all = append(all, n)
			}
		}
		slices.SortFunc(all, byUpdatedDescThenID)
		return all, nil
	})
}

// Children pages the nodes naming node id as a parent (see
// [ports.Notes]: the notes and folders in folder id, and the notes whose
// Parents name it), each once, ordered by title, then ID. An invalid id is
// [ports.ErrInvalidQuery]; an id naming no note or folder is
// [ports.ErrNotFound], even when some notes name it as their parent.
func (s *Store) Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Children", id)
	return page(ctx, s, p, ports.ChildrenLimits, scope, ports.ByTitle, identity[ports.NoteRef], func() ([]ports.NoteRef, error) {
		t, err := s.nodeLocked(ctx, id)
		if err != nil {
			return nil, err
		}
		return t.refs(t.children[id]), nil
	})
}

// Parents pages the parents of node id: its folder and the nodes its
// Parents name, those that exist, each once, ordered by title, then ID. An
// invalid id is [ports.ErrInvalidQuery]; an id naming no note or folder is
// [ports.ErrNotFound].
func (s *Store) Parents(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	scope := ports.Scope("Parents", id)
	return page(ctx, s, p, ports.ParentsLimits, scope, ports.ByTitle, identity[ports.NoteRef], func() ([]ports.NoteRef, error) {
		t, err := s.nodeLocked(ctx, id)
		if err != nil {
			return nil, err
		}
		return t.refs(t.parents[id]), nil
	})
}

// nodeLocked checks id and ctx, and returns the hierarchy when id names
// one of its nodes: an invalid id is [ports.ErrInvalidQuery], one naming
// no note or folder [ports.ErrNotFound]. s.mu must be held.
func (s *Store) nodeLocked(ctx context.Context, id string) (*tree, error) {
	if err := ports.ValidateQuery("id", id); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := s.treeLocked()
	if _, ok := t.nodes[id]; !ok {
		return nil, notFound("note", id)
	}
	return t, nil
}

// Descendants pages the nodes below node id, found breadth first over
// child edges (see Children) down to maxDepth levels, each once at its
// shortest depth; id itself is never returned, even on a cycle. Order:
// depth, then title, then ID.
//
// maxDepth 0 means [ports.DefaultDescendantDepth]; a negative maxDepth or
// one over [ports.MaxDescendantDepth] is [ports.ErrInvalidQuery], as is an
// invalid id (checked first); an id naming no note or folder is
// [ports.ErrNotFound].
func (s *Store) Descendants(ctx context.Context, id string, maxDepth int, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
	scope := ports.Scope("Descendants", id, strconv.Itoa(maxDepth))
	return page(ctx, s, p, ports.DescendantsLimits, scope, ports.ByDepth, depthHit.descendant, func() ([]depthHit, error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return nil, err
		}
		maxDepth, err := ports.DescendantDepth(maxDepth)
		if err != nil {
			return nil, err
		}
		t, err := s.nodeLocked(ctx, id)
		if err != nil {
			return nil, err
		}
		return t.below(id, maxDepth), nil
	})
}

// RelatedNotes pages the notes other than id related to it, scored as
// [ports.Related] documents: SharedTags counts the distinct tags both
// notes have, SharedLinks the distinct internal link targets both link to
// (whether the target exists or not), LinksTo says note id has an internal
// link to the other note, LinkedFrom that the other note has an internal
// link to id, and Score is SharedTags + SharedLinks, plus 2 when LinksTo or
// LinkedFrom. Only notes with a Score above 0 are returned, ordered by
// Score descending, then ID ascending. An invalid id is
// [ports.ErrInvalidQuery]; a missing note is [ports.ErrNotFound].
func (s *Store) RelatedNotes(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.Related], error) {
	scope := ports.Scope("RelatedNotes", id)
	type hit struct {
		n ports.Note
		r ports.Related // without NoteRef, set when the page is built
	}
	return page(ctx, s, p, ports.RelatedNotesLimits, scope, ports.ByRelatedScore, func(h hit) ports.Related {
		r := h.r
		r.NoteRef = noteRef(h.n)
		return r
	}, func() ([]hit, error) {
		if err := ports.ValidateQuery("id", id); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base, ok := s.notes[id]
		if !ok {
			return nil, notFound("note", id)
		}
		baseTargets := internalTargets(base)
		var all []hit
		for _, n := range s.notes {
			if n.ID == id {
				continue
			}
			var r ports.Related
			for _, t := range n.Tags { // tags are stored distinct
				if slices.Contains(base.Tags, t) {
					r.SharedTags++
				}
			}
			for t := range internalTargets(n) {
				if baseTargets[t] {
					r.SharedLinks++
				}
			}
			r.LinksTo = linksTo(base, n.ID)
			r.LinkedFrom = linksTo(n, id)
			r.Score = r.SharedTags + r.SharedLinks
			if r.LinksTo || r.LinkedFrom {
				r.Score += 2
			}
			if r.Score > 0 {
				all = append(all, hit{n, r})
			}
		}
		slices.SortFunc(all, func(a, b hit) int {
			if c := cmp.Compare(b.r.Score, a.r.Score); c != 0 {
				return c
			}
			return strings.Compare(a.n.ID, b.n.ID)
		})
		return all, nil
	})
}

// brokenLocked reports whether l is an internal link to a missing note.
// s.mu must be held.
func (s *Store) brokenLocked(l ports.Link) bool {
	if l.External {
		return false
	}
	_, ok := s.notes[l.Target]
	return !ok
}

// linkRefLocked is link l at position i of note src, as a LinkRef. s.mu must
// be held.
func (s *Store) linkRefLocked(src string, i int, l ports.Link) ports.LinkRef {
	r := ports.LinkRef{SourceID: src, Position: i, Target: l.Target, External: l.External, Text: l.Text}
	if !l.External {
		_, r.Exists = s.notes[l.Target]
	}
	return r
}

// linksTo reports whether n has an internal link to target.
func linksTo(n ports.Note, target string) bool {
	return slices.ContainsFunc(n.Links, func(l ports.Link) bool {
		return !l.External && l.Target == target
	})
}

// internalTargets is the set of the targets of n's internal links.
func internalTargets(n ports.Note) map[string]bool {
	set := make(map[string]bool)
	for _, l := range n.Links {
		if !l.External {
			set[l.Target] = true
		}
	}
	return set
}

// noteContent is note n with the window w of its content.
func noteContent(n ports.Note, w bounded.Window) (ports.NoteContent, error) {
	text, info, err := bounded.ApplyWindow(n.Content, w)
	if err != nil {
		return ports.NoteContent{}, err
	}
	return ports.NoteContent{NoteRef: noteRef(n), CreatedAt: n.CreatedAt, Content: text, Window: info}, nil
}

// noteRef is note n as lists return it, with its own copy of the tags.
func noteRef(n ports.Note) ports.NoteRef {
	return ports.NoteRef{ID: n.ID, Title: n.Title, Tags: clone(n.Tags), UpdatedAt: n.UpdatedAt}
}

// cloneNote returns n with copies of its slices.
func cloneNote(n ports.Note) ports.Note {
	n.Tags = clone(n.Tags)
	n.Links = clone(n.Links)
	n.Parents = clone(n.Parents)
	return n
}

// byUpdatedDescThenID orders notes by UpdatedAt descending, then ID.
func byUpdatedDescThenID(a, b ports.Note) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// bySourceThenPosition orders links by source ID, then position.
func bySourceThenPosition(a, b ports.LinkRef) int {
	if c := strings.Compare(a.SourceID, b.SourceID); c != 0 {
		return c
	}
	return cmp.Compare(a.Position, b.Position)
}

// identity returns x; the view of results already in their final form.
func identity[T any](x T) T { return x }
