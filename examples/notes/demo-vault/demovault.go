// Package demovault embeds the demo vault of examples/notes: 30 Markdown
// notes with front matter, [[wikilinks]], external links, a broken link,
// nested folders with index notes, and an 826-line incident log. The
// examples import it when no vault is given.
package demovault

import (
	"embed"
	"io/fs"
)

// The notes: every folder, and the Markdown files at the top (not this
// file, which the importer would count as an attachment).
//
//go:embed *.md areas journal people projects reading
var files embed.FS

// FS returns the demo vault.
func FS() fs.FS { return files }
