// Package demovault embeds the demo vault of examples/notes: 30 Markdown
// notes with front matter, [[wikilinks]], external links, a broken link,
// nested folders with index notes, and an 826-line incident log. The
// examples import it when no vault is given.
package demovault

import (
	"embed"
	"io/fs"
)

// The notes; this file is embedded too, and skipped by the importer, which
// reads *.md files only.
//
//go:embed *
var files embed.FS

// FS returns the demo vault.
func FS() fs.FS { return files }
