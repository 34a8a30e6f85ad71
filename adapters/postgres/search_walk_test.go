package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// TestSearchNotesWalk compares SearchNotes with memrepo, forward and
// backward by cursor and by offset, under every count strategy (the capped
// one with a cap of 4): queries found in fewer notes than the cap, whose
// page is read from the rows counted, and in more, whose page is read
// apart; in titles, in contents and in both, with ties in time.
func TestSearchNotesWalk(t *testing.T) {
	ctx := context.Background()
	notes := conformance.Notes(conformance.Seed)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 14 {
		title, content := fmt.Sprintf("Entry %d", i), "nothing here"
		switch {
		case i < 3:
			title = fmt.Sprintf("The WALKABOUT plan %d", i)
		case i < 11:
			content = fmt.Sprintf("a walkabout, day %d; a detour", i)
		case i < 13:
			content = fmt.Sprintf("one detour only, day %d", i)
		}
		notes = append(notes, ports.Note{ID: fmt.Sprintf("walk/%02d", i), Title: title, Content: content, UpdatedAt: at.Add(time.Duration(i/3) * time.Hour)})
	}
	mem := memrepo.New()
	s := open(t)
	for _, n := range notes {
		if err := mem.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	noteID := func(r ports.NoteRef) string { return r.ID }
	for _, q := range []string{"walkabout", "ALKA", "detour", "day 1", "plan 2", "entry", "no such thing"} {
		adaptertest.SameWalks(t, fmt.Sprintf("%q", q), []int{1, 4}, []int{2}, ports.Notes(mem), []ports.Notes{s},
			func(n ports.Notes) func(bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return func(p bounded.Page) (bounded.Paged[ports.NoteRef], error) { return n.SearchNotes(ctx, q, p) }
			}, noteID)
	}
}
