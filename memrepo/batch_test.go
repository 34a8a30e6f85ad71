package memrepo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// TestBatchesArePages checks the reference's batched methods against its
// paged ones: each list of ParentsOf and DescendantsOf is the first page
// of Parents or Descendants read with limit perNote, missing ids are the
// ones those report ErrNotFound for, in the order asked, and NoteHeads
// answers as GetNotes with the same window.
func TestBatchesArePages(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	notes := append(conformance.Notes(conformance.Seed), conformance.HugeNotes()...)
	var ids []string
	for _, n := range notes {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	ids = append(ids, "no/such", conformance.HubID, conformance.MissingParentID)
	slices.Reverse(ids)
	for _, per := range []int{1, 2, 3, 7, ports.MaxBatchPerNote} {
		parents, err := s.ParentsOf(ctx, ids, per)
		if err != nil {
			t.Fatal(err)
		}
		checkPages(t, "ParentsOf", ids, per, parents, func(id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return s.Parents(ctx, id, p)
		})
		for _, depth := range []int{0, 1, 2, ports.MaxDescendantDepth} {
			desc, err := s.DescendantsOf(ctx, ids, depth, per)
			if err != nil {
				t.Fatal(err)
			}
			checkPages(t, "DescendantsOf", ids, per, desc, func(id string, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
				return s.Descendants(ctx, id, depth, p)
			})
		}
	}
	for batch := range slices.Chunk(ids, ports.MaxGetNotes) {
		for _, lines := range []int{1, 30, ports.MaxHeadLines} {
			want, err := s.GetNotes(ctx, batch, bounded.Window{MaxLines: lines})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.NoteHeads(ctx, batch, lines)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("NoteHeads(maxLines=%d) differs from GetNotes (-GetNotes +NoteHeads):\n%s", lines, d)
			}
		}
	}
}

// checkPages checks b against the paged method read.
func checkPages[T any](t *testing.T, name string, ids []string, per int, b ports.Batch[T],
	read func(id string, p bounded.Page) (bounded.Paged[T], error)) {
	t.Helper()
	var found, missing []string
	byID := b.ByID()
	for _, id := range ports.Distinct(ids) {
		p, err := read(id, bounded.Page{Limit: per})
		if err != nil {
			missing = append(missing, id)
			continue
		}
		found = append(found, id)
		l, ok := byID[id]
		if !ok {
			t.Errorf("%s(perNote=%d): no list for %q", name, per, id)
			continue
		}
		p.Page.NextCursor, p.Page.PrevCursor, p.CursorAt = "", "", nil
		if d := cmp.Diff(p, l.Page(per)); d != "" {
			t.Errorf("%s(perNote=%d): the list of %q is not the first page (-paged +batch):\n%s", name, per, id, d)
		}
	}
	var listed []string
	for _, l := range b.Lists {
		listed = append(listed, l.ID)
	}
	if d := cmp.Diff(found, listed); d != "" {
		t.Errorf("%s(perNote=%d): lists (-ids found +lists):\n%s", name, per, d)
	}
	if d := cmp.Diff(missing, b.Missing); d != "" {
		t.Errorf("%s(perNote=%d): missing (-ids not found +Missing):\n%s", name, per, d)
	}
}
