package genvault_test

import (
	"os"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/examples/notes/internal/genvault"
	"github.com/boundedkit/bounded/examples/notes/vault"
)

// TestWrite writes a small vault and loads it: every name in every
// language, links that stay in their language, embeds of images that
// exist.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	st, err := genvault.Write(dir, genvault.Options{Notes: 440})
	if err != nil {
		t.Fatal(err)
	}
	notes, failed, err := vault.Load(os.DirFS(dir))
	if err != nil || len(failed) > 0 {
		t.Fatalf("Load: %v, %v", failed, err)
	}
	if len(notes) != 440 || st.Notes != 440 || st.Attachments != 88 {
		t.Errorf("%d notes loaded, stats %+v; want 440 notes, 88 attachments", len(notes), st)
	}
	ids := make(map[string]bool)
	links := 0
	for _, n := range notes {
		ids[n.ID] = true
		lang, _, _ := strings.Cut(n.ID, "/")
		for _, l := range n.Links {
			links++
			if !l.External && strings.Contains(l.Target, "/") && !strings.HasPrefix(l.Target, lang+"/") {
				t.Errorf("%s links %s, in another language", n.ID, l.Target)
			}
		}
	}
	for _, lang := range genvault.Languages {
		if !ids[lang+"/topics/t000/Note 1"] || !ids[lang+"/topics/t001"] {
			t.Errorf("%s: no Note 1 or folder index note", lang)
		}
	}
	// Embeds of existing images are not stored as links.
	if want := st.Links - st.Attachments; links != want {
		t.Errorf("%d links stored, want %d", links, want)
	}
}
