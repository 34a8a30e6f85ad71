package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/ports"
)

// batchTests checks the batched hierarchy reads (ParentsOf, DescendantsOf,
// NoteHeads, ContextOf) on the notes fixture: every answer equals memrepo's, whatever
// the cap, the depth, the order of the ids, duplicates and missing ids;
// bad input is ErrInvalidQuery. DescendantsOf tries each set of ids with
// half of the pairs of depth and cap in the default run, with all of them
// in the deep run ([DeepEnv]). (That memrepo's lists are the first pages
// of its paged methods is memrepo's own test: the suite checks the
// store's paged methods against memrepo's elsewhere.)
func (s *suite) batchTests(t TB, st, ref Store) {
	ctx := t.Context()
	var all []string
	for _, n := range Notes(Seed) {
		all = append(all, n.ID)
	}
	chunks := slices.Collect(slices.Chunk(all, ports.MaxBatchIDs))
	mixed := []string{"no/such", HubID, "cycle/a", HubID, "diamond/top", MissingParentID, "lit/quote", ManyParentsID, "no/such", "chain/00"}
	reversed := slices.Clone(all[:min(len(all), ports.MaxBatchIDs)])
	slices.Reverse(reversed)
	idSets := map[string][]string{"mixed": mixed, "reversed": reversed, "all-missing": {"no/a", "no/b", "no/a"}}
	for i, c := range chunks {
		idSets[fmt.Sprintf("all-%d", i)] = c
	}
	perNotes := []int{0, 1, 3, ports.MaxBatchPerNote}

	names := slices.Sorted(maps.Keys(idSets))
	// tried reports whether the default run tries the si-th set of ids
	// with the k-th combination of arguments: one in two, each set with
	// half of them and each combination with half of the sets. The deep
	// run tries them all.
	tried := func(si, k int) bool { return (si+k)%deeptest.Size(2, 1) == 0 }
	t.Run("ParentsOf", func(t TB) {
		for _, name := range names {
			ids := idSets[name]
			for _, per := range perNotes {
				at := fmt.Sprintf("ParentsOf(%s, perNote=%d)", name, per)
				want, werr := ref.Notes.ParentsOf(ctx, ids, per)
				got, gerr := st.Notes.ParentsOf(ctx, ids, per)
				s.sameBatch(t, at, want, got, werr, gerr)
			}
		}
	})
	t.Run("DescendantsOf", func(t TB) {
		for si, name := range names {
			ids := idSets[name]
			for di, depth := range []int{0, 1, 2, ports.MaxDescendantDepth} {
				for pi, per := range perNotes {
					if !tried(si, di+pi) {
						continue
					}
					at := fmt.Sprintf("DescendantsOf(%s, maxDepth=%d, perNote=%d)", name, depth, per)
					want, werr := ref.Notes.DescendantsOf(ctx, ids, depth, per)
					got, gerr := st.Notes.DescendantsOf(ctx, ids, depth, per)
					s.sameBatch(t, at, want, got, werr, gerr)
				}
			}
		}
	})
	t.Run("ContextOf", func(t TB) {
		queries := []ports.ContextQuery{
			{Parents: true, ParentsPerNote: 5, ChildLevels: 2, ChildrenPerNote: 10, HeadLines: 30},
			{ChildLevels: 1, ChildrenPerNote: 10, HeadLines: 1},
			{Parents: true, ParentsPerNote: 0, ChildLevels: ports.MaxDescendantDepth, ChildrenPerNote: ports.MaxBatchPerNote, HeadLines: ports.MaxHeadLines},
			{Parents: true, ParentsPerNote: 3},
			{ChildLevels: 2, ChildrenPerNote: 0, HeadLines: 2},
			{HeadLines: 5},
		}
		for si, name := range names {
			ids := idSets[name]
			for qi, q := range queries {
				if !tried(si, qi) {
					continue
				}
				at := fmt.Sprintf("ContextOf(%s, %+v)", name, q)
				want, werr := ref.Notes.ContextOf(ctx, ids, q)
				got, gerr := st.Notes.ContextOf(ctx, ids, q)
				s.sameBatch(t, at, want, got, werr, gerr)
			}
		}
	})
	t.Run("errors", func(t TB) {
		tooMany := slices.Repeat([]string{HubID}, ports.MaxBatchIDs+1)
		parents := func(ids []string, per int) func(ctx context.Context, s Store) error {
			return func(ctx context.Context, s Store) error { _, err := s.Notes.ParentsOf(ctx, ids, per); return err }
		}
		desc := func(ids []string, depth, per int) func(ctx context.Context, s Store) error {
			return func(ctx context.Context, s Store) error {
				_, err := s.Notes.DescendantsOf(ctx, ids, depth, per)
				return err
			}
		}
		heads := func(ids []string, lines int) func(ctx context.Context, s Store) error {
			return func(ctx context.Context, s Store) error { _, err := s.Notes.NoteHeads(ctx, ids, lines); return err }
		}
		contextOf := func(ids []string, q ports.ContextQuery) func(ctx context.Context, s Store) error {
			return func(ctx context.Context, s Store) error { _, err := s.Notes.ContextOf(ctx, ids, q); return err }
		}
		invalid := ports.ErrInvalidQuery
		cases := []errCase{
			{"ParentsOf/no-ids", parents(nil, 1), []error{invalid}},
			{"ParentsOf/too-many-ids", parents(tooMany, 1), []error{invalid}},
			{"ParentsOf/negative-perNote", parents([]string{HubID}, -1), []error{invalid}},
			{"ParentsOf/perNote-over-max", parents([]string{HubID}, ports.MaxBatchPerNote+1), []error{invalid}},
			{"DescendantsOf/no-ids", desc([]string{}, 1, 1), []error{invalid}},
			{"DescendantsOf/too-many-ids", desc(tooMany, 1, 1), []error{invalid}},
			{"DescendantsOf/perNote-over-max", desc([]string{HubID}, 1, ports.MaxBatchPerNote+1), []error{invalid}},
			{"DescendantsOf/negative-depth", desc([]string{HubID}, -1, 1), []error{invalid}},
			{"DescendantsOf/depth-over-max", desc([]string{HubID}, ports.MaxDescendantDepth+1, 1), []error{invalid}},
			{"NoteHeads/no-ids", heads(nil, 1), []error{invalid}},
			{"NoteHeads/too-many-ids", heads(slices.Repeat([]string{HubID}, ports.MaxNoteHeads+1), 1), []error{invalid}},
			{"NoteHeads/zero-lines", heads([]string{HubID}, 0), []error{invalid}},
			{"NoteHeads/lines-over-max", heads([]string{HubID}, ports.MaxHeadLines+1), []error{invalid}},
			{"ContextOf/no-ids", contextOf(nil, ports.ContextQuery{Parents: true}), []error{invalid}},
			{"ContextOf/too-many-ids", contextOf(tooMany, ports.ContextQuery{Parents: true}), []error{invalid}},
			{"ContextOf/parents-over-max", contextOf([]string{HubID}, ports.ContextQuery{Parents: true, ParentsPerNote: ports.MaxBatchPerNote + 1}), []error{invalid}},
			{"ContextOf/negative-children", contextOf([]string{HubID}, ports.ContextQuery{ChildLevels: 1, ChildrenPerNote: -1}), []error{invalid}},
			{"ContextOf/negative-levels", contextOf([]string{HubID}, ports.ContextQuery{ChildLevels: -1}), []error{invalid}},
			{"ContextOf/levels-over-max", contextOf([]string{HubID}, ports.ContextQuery{ChildLevels: ports.MaxDescendantDepth + 1}), []error{invalid}},
			{"ContextOf/lines-over-max", contextOf([]string{HubID}, ports.ContextQuery{ChildLevels: 1, HeadLines: ports.MaxHeadLines + 1}), []error{invalid}},
		}
		for _, bad := range []struct{ name, id string }{{"empty-id", ""}, {"spaces-id", " "}, {"invalid-utf8-id", "lit/\xff"}, {"nul-id", "lit/\x00"}} {
			ids := []string{HubID, bad.id}
			cases = append(cases,
				errCase{"ParentsOf/" + bad.name, parents(ids, 1), []error{invalid}},
				errCase{"DescendantsOf/" + bad.name, desc(ids, 1, 1), []error{invalid}},
				errCase{"NoteHeads/" + bad.name, heads(ids, 1), []error{invalid}},
				errCase{"ContextOf/" + bad.name, contextOf(ids, ports.ContextQuery{Parents: true}), []error{invalid}})
		}
		runErrCases(t, st, cases)
	})
	t.Run("cap", func(t TB) { s.batchCapTests(t) })
	t.Run("NoteHeads", func(t TB) { s.noteHeadsTests(t, st, ref) })
}

// sameBatch checks that the store's batch (or error) equals memrepo's.
func (s *suite) sameBatch(t TB, at string, want, got any, werr, gerr error) bool {
	t.Helper()
	if werr != nil {
		t.Fatalf("%s on memrepo: %v", at, werr)
	}
	if !sameErr(t, at, werr, gerr) {
		return false
	}
	if d := s.diff(want, got); d != "" {
		t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
		return false
	}
	return true
}

// batchCapTests checks the per-note cap on a note with more children (and
// a child with more parents) than the largest cap.
func (s *suite) batchCapTests(t TB) {
	const n = ports.MaxBatchPerNote + 1
	notes := []ports.Note{{ID: "flood/root", Title: "Root", UpdatedAt: Epoch, CreatedAt: Epoch}}
	var parents []string
	for i := range n {
		id := fmt.Sprintf("flood/c%03d", i)
		notes = append(notes, ports.Note{ID: id, Title: fmt.Sprintf("T%d", i%4), Parents: []string{"flood/root"}, UpdatedAt: Epoch, CreatedAt: Epoch})
		parents = append(parents, id)
	}
	notes = append(notes, ports.Note{ID: "flood/many", Title: "Many", Parents: parents, UpdatedAt: Epoch, CreatedAt: Epoch})
	st, ref := s.open(t, notesPort, fixture{notes: notes})
	ids := []string{"flood/many", "flood/root", "flood/c000"}
	for _, per := range []int{0, 1, ports.MaxBatchPerNote} {
		at := fmt.Sprintf("ParentsOf(%q, perNote=%d)", ids, per)
		want, werr := ref.Notes.ParentsOf(t.Context(), ids, per)
		got, gerr := st.Notes.ParentsOf(t.Context(), ids, per)
		// flood/many's parents: the n it names and its folder, flood.
		if s.sameBatch(t, at, want, got, werr, gerr) && (len(got.Lists) != 3 || len(got.Lists[0].Items) != per || got.Lists[0].Total != n+1) {
			t.Errorf("%s: the first list has %d items of %d, want %d of %d", at, len(got.Lists[0].Items), got.Lists[0].Total, per, n+1)
		}
		for _, depth := range []int{1, 2} {
			at := fmt.Sprintf("DescendantsOf(%q, maxDepth=%d, perNote=%d)", ids, depth, per)
			want, werr := ref.Notes.DescendantsOf(t.Context(), ids, depth, per)
			got, gerr := st.Notes.DescendantsOf(t.Context(), ids, depth, per)
			wantTotal := n + depth - 1 // the children, and flood/many below them
			if s.sameBatch(t, at, want, got, werr, gerr) && (len(got.Lists) != 3 || len(got.Lists[1].Items) != per || got.Lists[1].Total != wantTotal) {
				t.Errorf("%s: the root's list has %d items of %d, want %d of %d", at, len(got.Lists[1].Items), got.Lists[1].Total, per, wantTotal)
			}
		}
	}
}

// noteHeadsTests checks NoteHeads against memrepo on the notes fixture
// (line windows over huge notes are GetNotes' tests).
func (s *suite) noteHeadsTests(t TB, st, ref Store) {
	var all []string
	notes := Notes(Seed)
	for i := range ports.MaxNoteHeads {
		all = append(all, notes[(i*7)%len(notes)].ID)
	}
	mixed := []string{"lit/quote", "no/such", HubID, "lit/quote", ManyLinksID, "no/such", "日本/none"}
	for _, ids := range [][]string{mixed, all, {"no/a"}} {
		for _, lines := range []int{1, 3, ports.MaxHeadLines} {
			at := fmt.Sprintf("NoteHeads(%d ids from %q, maxLines=%d)", len(ids), ids[0], lines)
			want, werr := ref.Notes.NoteHeads(t.Context(), ids, lines)
			got, gerr := st.Notes.NoteHeads(t.Context(), ids, lines)
			norm := func(r ports.GetNotesResult) ports.GetNotesResult {
				return ports.GetNotesResult{Notes: emptySlice(r.Notes), Missing: emptySlice(r.Missing)}
			}
			s.sameBatch(t, at, norm(want), norm(got), werr, gerr)
		}
	}
}
