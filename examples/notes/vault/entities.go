package vault

import (
	"path"
	"strings"

	"github.com/boundedkit/bounded/ports"
)

// MaxObservations is the most observations [Entities] takes from one note.
const MaxObservations = 20

// Entities derives a knowledge graph from the notes of a vault, for
// search_knowledge demos: one entity per note, named by the note's ID, of
// the type of its top folder ("projects", "people", ...; "note" at the
// root), with the note's tags, and as observations the note's non-blank
// lines outside front matter and code blocks, at most MaxObservations.
func Entities(files []File) []ports.Entity {
	out := make([]ports.Entity, 0, len(files))
	for _, f := range files {
		typ := "note"
		if top, _, ok := strings.Cut(f.ID, "/"); ok || path.Base(f.Path) == "index.md" {
			typ = top
		}
		_, body, err := splitFrontMatter(f.Content)
		if err != nil {
			body = f.Content
		}
		var obs []string
		for line := range strings.Lines(stripCode(body)) {
			line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#-*>0123456789. "))
			if line == "" {
				continue
			}
			if obs = append(obs, line); len(obs) == MaxObservations {
				break
			}
		}
		out = append(out, ports.Entity{Name: f.ID, Type: typ, Observations: obs, Tags: f.Tags, UpdatedAt: f.UpdatedAt})
	}
	return out
}
