package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/boundedkit/bounded/ports"
)

// nameNotes are the notes of the ResolveNotes tests: one name in several
// folders at one depth, in other case and as a folder's; more notes of one
// name than a Resolution lists; a path that is also the end of a longer
// one; Unicode that folds to more bytes; ".md" in an ID; LIKE wildcards.
func nameNotes() []ports.Note {
	ids := []string{
		"en/Plugins/Canvas", "ja/Plugins/Canvas", "ko/플러그인/Canvas", "de/Erweiterungen/canvas",
		"x/CANVAS/inner", "Canvas Notes",
		"a/b", "x/a/b", "A/b/c",
		"Straße/İstanbul", "straße/ÄRGER",
		"read.md", "read", "docs/Read",
		"pct/50%", "pct/50x", "under/a_b", "under/axb",
		"en/Plugins", "en/Plugins/Core plugins/Backlinks",
	}
	for i := range ports.MaxCandidates + 1 {
		ids = append(ids, fmt.Sprintf("many/f%02d/Dup", i))
	}
	notes := make([]ports.Note, len(ids))
	for i, id := range ids {
		notes[i] = ports.Note{ID: id, Title: ports.NodeName(id), UpdatedAt: Epoch, CreatedAt: Epoch}
	}
	return notes
}

// resolveTests checks ResolveNotes: every answer equals memrepo's, on the
// notes fixture (every note and folder by its ID, its folded ID, its
// last element and a longer path, and names of no node) and on
// [nameNotes], before and after writes that change what names resolve
// to; bad lists of names are ErrInvalidQuery.
func (s *suite) resolveTests(t TB, st, ref Store) {
	var names []string
	for _, n := range Notes(Seed) {
		for _, id := range append([]string{n.ID}, ports.FoldersOf(n.ID)...) {
			names = append(names, id, strings.ToUpper(id), ports.NodeName(id), "/"+id+".md", "x/"+id)
		}
	}
	s.sameResolutions(t, "the notes fixture", st, ref, names)

	st, ref = s.open(t, notesPort, fixture{notes: nameNotes()})
	names = []string{
		"Canvas", "canvas", "CANVAS", "Plugins/Canvas", "plugins/canvas", "en/plugins/canvas", " /en/Plugins/Canvas.MD ",
		"en/Canvas", "Canvs", "x/canvas", "canvas notes", "Dup", "many/f03/dup", "f03/Dup",
		"a/b", "A/B", "b", "a/B/C", "c", "x/A/b",
		"İstanbul", "İSTANBUL", "i̇stanbul", "istanbul", "straße/i̇stanbul", "STRASSE/ärger", "ärger",
		"read.md", "read", "Read", "READ.MD", "docs/read.md",
		"50%", "50_", "a_b", "a%b", "pct", "under",
		"plugins", "Erweiterungen", "core plugins", "EN/PLUGINS/CORE PLUGINS", "backlinks",
		"en/", "/", ".md", "many",
	}
	s.sameResolutions(t, "names", st, ref, names)
	for _, id := range []string{"en/Plugins", "ja/Plugins/Canvas", "Canvas Notes"} {
		for _, x := range []Store{st, ref} {
			if err := x.Notes.DeleteNote(t.Context(), id); err != nil {
				t.Fatalf("DeleteNote(%q): %v", id, err)
			}
		}
	}
	if err := st.Notes.PutNote(t.Context(), ports.Note{ID: "ja/Plugins", Title: "ja index", UpdatedAt: Epoch}); err != nil {
		t.Fatalf("PutNote: %v", err)
	}
	if err := ref.Notes.PutNote(t.Context(), ports.Note{ID: "ja/Plugins", Title: "ja index", UpdatedAt: Epoch}); err != nil {
		t.Fatalf("PutNote on memrepo: %v", err)
	}
	s.sameResolutions(t, "names after writes", st, ref, names)

	tooMany := make([]string, ports.MaxGetNotes+1)
	for i := range tooMany {
		tooMany[i] = "a"
	}
	for _, bad := range [][]string{nil, tooMany, {"a", ""}, {" "}, {"lit/\xff"}, {"lit/\x00"}} {
		_, err := st.Notes.ResolveNotes(t.Context(), bad)
		sameErr(t, fmt.Sprintf("ResolveNotes(%d names %.40q)", len(bad), bad), ports.ErrInvalidQuery, err)
	}
}

// sameResolutions checks that st resolves names as ref does, in batches
// of at most ports.MaxGetNotes names.
func (s *suite) sameResolutions(t TB, what string, st, ref Store, names []string) {
	t.Helper()
	for batch := range slices.Chunk(names, ports.MaxGetNotes) {
		at := fmt.Sprintf("ResolveNotes(%d names of %s, from %q)", len(batch), what, batch[0])
		want, werr := ref.Notes.ResolveNotes(t.Context(), batch)
		got, gerr := st.Notes.ResolveNotes(t.Context(), batch)
		if werr != nil {
			t.Fatalf("%s on memrepo: %v", at, werr)
		}
		if !sameErr(t, at, werr, gerr) {
			continue
		}
		if d := s.diff(want, got); d != "" {
			t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", at, s.store(), d)
		}
	}
}
