package memrepo

import (
	"context"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// ParentsOf returns the first perNote parents of each node of ids (title,
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
	t := s.treeLocked()
	return batchLocked(t, ids, func(id string) ports.NoteList[ports.NoteRef] {
		all := t.refs(t.parents[id])
		return ports.NoteList[ports.NoteRef]{ID: id, Total: len(all), Items: clone(all[:min(perNote, len(all))])}
	}), nil
}

// DescendantsOf returns the first perNote descendants of each node of ids
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
	t := s.treeLocked()
	return batchLocked(t, ids, func(id string) ports.NoteList[ports.Descendant] {
		all := t.below(id, maxDepth)
		l := ports.NoteList[ports.Descendant]{ID: id, Total: len(all)}
		for _, h := range all[:min(perNote, len(all))] {
			l.Items = append(l.Items, h.descendant())
		}
		return l
	}), nil
}

// batchLocked builds a batch over the distinct ids, list giving the list
// of each node of t; s.mu is held.
func batchLocked[T any](t *tree, ids []string, list func(id string) ports.NoteList[T]) ports.Batch[T] {
	var b ports.Batch[T]
	for _, id := range ports.Distinct(ids) {
		if _, ok := t.nodes[id]; !ok {
			b.Missing = append(b.Missing, id)
			continue
		}
		b.Lists = append(b.Lists, list(id))
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

// ContextOf returns the context of the notes of ids as q asks, read by
// [ports.ReadContext]. See [ports.Notes].
func (s *Store) ContextOf(ctx context.Context, ids []string, q ports.ContextQuery) (ports.NoteContext, error) {
	return ports.ReadContext(ctx, s, ids, q)
}
