package memrepo

import (
	"cmp"
	"context"
	"slices"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// ParentsOf returns the first perNote parents of each note of ids (title,
// then ID) with their total, read from one snapshot. See [ports.Notes].
func (s *Store) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.Batch[ports.NoteRef]{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return batchLocked(s, ids, func(n ports.Note) ports.NoteList[ports.NoteRef] {
		var all []ports.Note
		for _, pid := range n.Parents {
			if p, ok := s.notes[pid]; ok {
				all = append(all, p)
			}
		}
		slices.SortFunc(all, byTitleThenID)
		l := ports.NoteList[ports.NoteRef]{ID: n.ID, Total: len(all)}
		for _, p := range all[:min(perNote, len(all))] {
			l.Items = append(l.Items, noteRef(p))
		}
		return l
	}), nil
}

// DescendantsOf returns the first perNote descendants of each note of ids
// down to maxDepth levels (depth, title, then ID), each at its shortest
// depth, with their total, read from one snapshot. See [ports.Notes].
func (s *Store) DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (ports.Batch[ports.Descendant], error) {
	if err := ports.ValidateBatch(ids, perNote); err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	maxDepth, err := ports.DescendantDepth(maxDepth)
	if err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.Batch[ports.Descendant]{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	children := s.childrenLocked()
	return batchLocked(s, ids, func(root ports.Note) ports.NoteList[ports.Descendant] {
		all := s.belowLocked(children, root.ID, maxDepth)
		l := ports.NoteList[ports.Descendant]{ID: root.ID, Total: len(all)}
		for _, h := range all[:min(perNote, len(all))] {
			l.Items = append(l.Items, h.descendant())
		}
		return l
	}), nil
}

// depthHit is a note below another, at its shortest depth.
type depthHit struct {
	n     ports.Note
	depth int
}

func (h depthHit) descendant() ports.Descendant {
	return ports.Descendant{NoteRef: noteRef(h.n), Depth: h.depth}
}

// childrenLocked maps each parent ID to the IDs of the notes naming it.
func (s *Store) childrenLocked() map[string][]string {
	children := make(map[string][]string)
	for _, n := range s.notes {
		for _, pid := range n.Parents {
			children[pid] = append(children[pid], n.ID)
		}
	}
	return children
}

// belowLocked returns the notes below root, found breadth first over
// children down to maxDepth levels, each once at its shortest depth (root
// never), ordered by depth, then title, then ID.
func (s *Store) belowLocked(children map[string][]string, root string, maxDepth int) []depthHit {
	var all []depthHit
	seen := map[string]bool{root: true}
	level := []string{root}
	for depth := 1; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, pid := range level {
			for _, cid := range children[pid] {
				if !seen[cid] {
					seen[cid] = true
					next = append(next, cid)
					all = append(all, depthHit{s.notes[cid], depth})
				}
			}
		}
		level = next
	}
	slices.SortFunc(all, func(a, b depthHit) int {
		if c := cmp.Compare(a.depth, b.depth); c != 0 {
			return c
		}
		return byTitleThenID(a.n, b.n)
	})
	return all
}

// batchLocked builds a batch over the distinct ids, list giving the list
// of each note found; s.mu is held.
func batchLocked[T any](s *Store, ids []string, list func(n ports.Note) ports.NoteList[T]) ports.Batch[T] {
	var b ports.Batch[T]
	for _, id := range ports.Distinct(ids) {
		n, ok := s.notes[id]
		if !ok {
			b.Missing = append(b.Missing, id)
			continue
		}
		b.Lists = append(b.Lists, list(n))
	}
	return b
}

// NoteHeads returns the first maxLines lines of each note of ids, as
// GetNotes does with that window. See [ports.Notes].
func (s *Store) NoteHeads(ctx context.Context, ids []string, maxLines int) (ports.GetNotesResult, error) {
	if err := ports.ValidateNoteHeads(ids, maxLines); err != nil {
		return ports.GetNotesResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ports.GetNotesResult{}, err
	}
	return s.notesWindowed(ids, bounded.Window{MaxLines: maxLines})
}

// notesWindowed returns the notes named by ids, in the order of ids
// (duplicates once), each with the window w, and the ids naming none.
func (s *Store) notesWindowed(ids []string, w bounded.Window) (ports.GetNotesResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var res ports.GetNotesResult
	for _, id := range ports.Distinct(ids) {
		n, ok := s.notes[id]
		if !ok {
			res.Missing = append(res.Missing, id)
			continue
		}
		nc, err := noteContent(n, w)
		if err != nil {
			return ports.GetNotesResult{}, err
		}
		res.Notes = append(res.Notes, nc)
	}
	return res, nil
}
