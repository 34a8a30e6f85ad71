package ports

import (
	"context"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
)

// Limits of the batched hierarchy methods of [Notes] (ParentsOf,
// DescendantsOf, NoteHeads), which read the context of a whole page of
// results in one statement.
const (
	// MaxBatchIDs is the most ids one ParentsOf or DescendantsOf call
	// takes: the largest page of the notes methods.
	MaxBatchIDs = 200
	// MaxBatchPerNote is the most items ParentsOf or DescendantsOf return
	// for one note; the rest is counted in [NoteList.Total].
	MaxBatchPerNote = 50
	// MaxNoteHeads is the most ids one NoteHeads call takes.
	MaxNoteHeads = 1000
	// MaxHeadLines is the most lines NoteHeads returns of one note.
	MaxHeadLines = 100
)

// NoteList is the start of one note's list in a batched answer: its first
// items, in the order of the paged method it batches, and how many the list
// holds in all.
type NoteList[T any] struct {
	// ID is the note asked about.
	ID string `json:"id"`
	// Items are the list's first items, at most the perNote asked; nil
	// when there are none or perNote is 0.
	Items []T `json:"items,omitempty"`
	// Total is the exact number of items in the list.
	Total int `json:"total"`
}

// More returns how many items of the list Items leaves out.
func (l NoteList[T]) More() int { return l.Total - len(l.Items) }

// Page returns the list as the first page of its paged method, read with
// limit perNote: Items, and a PageInfo with Total, Limit, Returned,
// HasMore and NextOffset set (no cursors).
func (l NoteList[T]) Page(perNote int) bounded.Paged[T] {
	n := len(l.Items)
	info := bounded.PageInfo{Total: l.Total, Limit: perNote, Returned: n, HasMore: l.Total > n}
	if info.HasMore {
		info.NextOffset = n
	}
	return bounded.Paged[T]{Items: l.Items, Page: info}
}

// Batch is the answer of a batched hierarchy method: one list per distinct
// id that names a note, in the order of the ids (a duplicate once, at its
// first place), and the ids that name no note, in the same order, once
// each.
type Batch[T any] struct {
	Lists   []NoteList[T] `json:"lists"`
	Missing []string      `json:"missing,omitempty"`
}

// ByID returns the lists of b by note id.
func (b Batch[T]) ByID() map[string]NoteList[T] {
	m := make(map[string]NoteList[T], len(b.Lists))
	for _, l := range b.Lists {
		m[l.ID] = l
	}
	return m
}

// ValidateBatch checks the ids and perNote of a ParentsOf or DescendantsOf
// call, in the order every implementation reports them: 1 to [MaxBatchIDs]
// ids, each a valid id ([ValidateQuery]), then perNote in [0,
// [MaxBatchPerNote]]. Errors wrap [ErrInvalidQuery].
func ValidateBatch(ids []string, perNote int) error {
	if err := validateIDs(ids, MaxBatchIDs); err != nil {
		return err
	}
	if perNote < 0 || perNote > MaxBatchPerNote {
		return fmt.Errorf("%w: perNote %d is not in [0, %d]", ErrInvalidQuery, perNote, MaxBatchPerNote)
	}
	return nil
}

// ValidateNoteHeads checks a NoteHeads call: 1 to [MaxNoteHeads] ids, each
// a valid id ([ValidateQuery]), then maxLines in [1, [MaxHeadLines]].
// Errors wrap [ErrInvalidQuery].
func ValidateNoteHeads(ids []string, maxLines int) error {
	if err := validateIDs(ids, MaxNoteHeads); err != nil {
		return err
	}
	if maxLines < 1 || maxLines > MaxHeadLines {
		return fmt.Errorf("%w: maxLines %d is not in [1, %d]", ErrInvalidQuery, maxLines, MaxHeadLines)
	}
	return nil
}

// validateIDs checks 1 to most ids, each a valid query string.
func validateIDs(ids []string, most int) error {
	switch {
	case len(ids) == 0:
		return fmt.Errorf("%w: no ids given", ErrInvalidQuery)
	case len(ids) > most:
		return fmt.Errorf("%w: %d ids, over the maximum %d", ErrInvalidQuery, len(ids), most)
	}
	for _, id := range ids {
		if err := ValidateQuery("id", id); err != nil {
			return err
		}
	}
	return nil
}

// Distinct returns ids without duplicates, each at its first place: the
// order of a [Batch]'s lists.
func Distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ContextQuery says what [Notes.ContextOf] reads for each note.
type ContextQuery struct {
	// Parents reads the start of each note's parents, ParentsPerNote of
	// them, as ParentsOf does.
	Parents        bool
	ParentsPerNote int
	// ChildLevels over 0 reads the start of each note's descendants down
	// to ChildLevels levels, ChildrenPerNote of them, as DescendantsOf
	// does.
	ChildLevels     int
	ChildrenPerNote int
	// HeadLines over 0 reads the first HeadLines lines of each note
	// among the parents and descendants returned, as NoteHeads does.
	HeadLines int
}

// Validate checks a ContextOf call: ids as [ValidateBatch] takes them,
// each perNote in [0, [MaxBatchPerNote]], ChildLevels in [0,
// [MaxDescendantDepth]] and HeadLines in [0, [MaxHeadLines]]. Errors
// wrap [ErrInvalidQuery].
func (q ContextQuery) Validate(ids []string) error {
	if err := ValidateBatch(ids, q.ParentsPerNote); err != nil {
		return err
	}
	if err := ValidateBatch(ids, q.ChildrenPerNote); err != nil {
		return err
	}
	if q.ChildLevels < 0 || q.ChildLevels > MaxDescendantDepth {
		return fmt.Errorf("%w: childLevels %d is not in [0, %d]", ErrInvalidQuery, q.ChildLevels, MaxDescendantDepth)
	}
	if q.HeadLines < 0 || q.HeadLines > MaxHeadLines {
		return fmt.Errorf("%w: headLines %d is not in [0, %d]", ErrInvalidQuery, q.HeadLines, MaxHeadLines)
	}
	return nil
}

// NoteContext is the answer of [Notes.ContextOf].
type NoteContext struct {
	// Parents are ParentsOf's answer; empty unless asked for.
	Parents Batch[NoteRef] `json:"parents"`
	// Children are DescendantsOf's answer; empty unless asked for.
	Children Batch[Descendant] `json:"children"`
	// Heads are the heads of the notes (not folders) among the parents
	// and descendants returned, each once, by ID (bytewise).
	Heads []NoteContent `json:"heads,omitempty"`
}

// ContextReader is what [ReadContext] reads the context with.
type ContextReader interface {
	ParentsOf(ctx context.Context, ids []string, perNote int) (Batch[NoteRef], error)
	DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (Batch[Descendant], error)
	NoteHeads(ctx context.Context, ids []string, maxLines int) (GetNotesResult, error)
}

// ReadContext answers ContextOf with r's ParentsOf, DescendantsOf and
// NoteHeads, one call each (NoteHeads once per [MaxNoteHeads] notes):
// the definition of ContextOf, and an implementation for a store that
// needs nothing faster.
func ReadContext(ctx context.Context, r ContextReader, ids []string, q ContextQuery) (NoteContext, error) {
	if err := q.Validate(ids); err != nil {
		return NoteContext{}, err
	}
	var out NoteContext
	var heads []string
	if q.Parents {
		b, err := r.ParentsOf(ctx, ids, q.ParentsPerNote)
		if err != nil {
			return NoteContext{}, err
		}
		out.Parents = b
		for _, l := range b.Lists {
			for _, n := range l.Items {
				if !n.Folder {
					heads = append(heads, n.ID)
				}
			}
		}
	}
	if q.ChildLevels > 0 {
		b, err := r.DescendantsOf(ctx, ids, q.ChildLevels, q.ChildrenPerNote)
		if err != nil {
			return NoteContext{}, err
		}
		out.Children = b
		for _, l := range b.Lists {
			for _, n := range l.Items {
				if !n.Folder {
					heads = append(heads, n.ID)
				}
			}
		}
	}
	if q.HeadLines == 0 {
		return out, nil
	}
	slices.Sort(heads)
	for batch := range slices.Chunk(slices.Compact(heads), MaxNoteHeads) {
		res, err := r.NoteHeads(ctx, batch, q.HeadLines)
		if err != nil {
			return NoteContext{}, err
		}
		out.Heads = append(out.Heads, res.Notes...)
	}
	return out, nil
}
