// Package vault imports a folder of Markdown notes (an Obsidian-style vault)
// into any [ports.Notes] store: the notes example's importer, reusable by
// other programs.
//
// An [Importer] imports incrementally, keeping a manifest of what it
// imported in the database of the store:
//
//	im := &vault.Importer{DB: db, Store: func(ctx context.Context, tx bun.Tx) (ports.Notes, error) {
//		return sqlite.New(ctx, tx)
//	}}
//	sum, err := im.Import(ctx, os.DirFS("my-vault"))
//	for _, fe := range sum.Errors {
//		log.Printf("skipped %s: %v", fe.Path, fe.Err) // the other files are imported
//	}
//	log.Print(sum) // 6280 notes (0 added, 2 changed, ...), 1210 attachments, ...
//
// [Import] does the same in one call with any store, holding the whole
// vault in memory and writing every note each time.
//
// # What a note is made of
//
// Every *.md file is a note; files and folders whose name starts with "."
// (.obsidian, .git, ...) are skipped. A note's ID is its path without the
// .md extension ("projects/atlas/design"), except a folder's index note:
// "projects/index.md" has the folder's ID, "projects", so that [[projects]]
// links to it.
//
// YAML front matter (between a first line "---" and the next "---" or
// "...") may set:
//
//   - title: the note's title; without it, the first "# " heading, or else
//     the file name;
//   - tags: a list or a comma- or space-separated string; a leading "#" is
//     dropped;
//   - parents (a list) or parent (one): notes above this one, by name or
//     [[wikilink]];
//   - created and updated (or date): dates or RFC 3339 times; without them
//     the file's modification time.
//
// Folders are the hierarchy: the store makes every folder a node, the
// parent of the notes and folders in it (see [ports.Notes]), and a
// folder's index note stands for its folder. A note's Parents are the
// notes its front matter names, which are its parents too.
//
// Every other file is an attachment, of a [Kind] (image, audio, video,
// pdf, canvas or other) read from its extension.
//
// # Links
//
// Internal links are wikilinks [[Target]], [[Target|alias]] (in a table
// [[Target\|alias]]), [[Target#heading]], [[Target#^block]], embeds
// ![[Target]] and ![[image.png|300]], and Markdown links and images to a
// relative path, URL-encoded or in angle brackets: [text](My%20Note.md),
// [text](<../My Note.md>), ![alt](assets/shot.png). External links are
// Markdown links [text](https://...) and <https://...>. Links inside code
// blocks and code spans are ignored, and so are a note's links to its own
// headings, links of other schemes (mailto:, obsidian:) and external
// images. The heading or block is not part of the target; a link's text is
// its alias, or its target as written when it names a heading or block.
//
// A target resolves as Obsidian resolves it, to a note or an attachment:
//
//  1. A path starting with "./" or "../" is relative to the linking
//     note's folder, and names that file only. A Markdown link's path is
//     also tried relative to the note's folder first.
//  2. A path with a "/" names the file at that path from the vault root,
//     if there is one: ko/Some Note.md for a link to ko/Some Note, the
//     index note projects/index.md for one to projects/index.
//  3. Otherwise the files whose path ends with the target, compared
//     case-insensitively and at a folder boundary, are candidates, and the
//     one nearest the linking note wins: the fewest folder steps from the
//     note's folder to the candidate's (up to the deepest folder both are
//     in, then down), so a file in the same folder first; then the
//     candidate sharing the deepest folder with the note, then the
//     shortest path, then the path in byte order. A note in en/guides
//     linking [[Some Note]] gets en/Some Note (one step), not Some Note at
//     the root (two), ko/Some Note (three) nor fr/x/Some Note (four).
//
// At each step notes come before attachments, unless the target has the
// extension of an attachment format (of a [Kind] other than [KindOther]):
// then attachments come first. Exact case comes before other case in 1 and 2.
//
// A link to an existing attachment is not stored: the ports have no
// attachments, and an internal link there must name a note, so stored it
// would count as broken. A link to a missing attachment (a target with an
// attachment format's extension, or a Markdown link to a file that is not
// .md) is stored with the path it names, as a broken link, so that
// find_broken_links lists it. A target that names no file is kept as
// written (resolved against the note's folder for a relative or Markdown
// link), as a broken link.
//
// # Importing again
//
// The manifest is three tables in the Importer's database:
// bounded_vault_files has a row per file of the vault (path, kind, size,
// modification time, content hash, note ID, the hash of the note as
// stored, link counts, and why it was skipped, if it was);
// bounded_vault_refs lists, for each note, the names of the files its
// links and parents may resolve to; bounded_vault_meta holds the version of
// these rules. An import walks the vault comparing each file's size and
// modification time with its row (and, when they differ, its content
// hash), so that an import of an unchanged vault reads no note and writes
// nothing. It then
//
//   - removes the notes of files that are gone, with their links;
//   - parses the notes that are new or changed, those skipped before, and
//     the notes whose links or parents name a file that appeared or went
//     (a note linking [[Some Note]] when en/Some Note.md is created next
//     to it), and writes those that come out different from the stored
//     note;
//   - on its first run with a manifest, deletes the stored notes that no
//     file holds.
//
// A file whose modification time changed but not its content keeps its
// stored note, with the time it was built with. Memory holds one batch
// (BatchSize files, at most 8 MiB of their notes' content beyond one note)
// and the listings of the folders being walked, whatever the vault's
// size.
//
// A file that cannot be read, parsed or stored is skipped, reported, and
// tried again by the next import; the stored copy of its note, if any, is
// kept. Two files with the same ID ("projects.md" and "projects/index.md")
// go to the one [fs.WalkDir] visits first (a folder's files come before a
// file named like the folder); the other is skipped while both exist.
package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// FileError is a file that could not be imported, and why.
type FileError struct {
	// Path is the file's slash-separated path inside the vault.
	Path string
	Err  error
}

// Error returns "<path>: <reason>".
func (e FileError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e FileError) Unwrap() error { return e.Err }

// Report is what an import did.
type Report struct {
	// Imported is the number of notes written; Deleted the number of
	// notes removed from the store because their file is gone.
	Imported, Deleted int
	// Attachments is the number of files of the vault that are not notes.
	Attachments int
	// Errors lists the files that were skipped, in path order.
	Errors []FileError
}

// Import reads the vault fsys and writes its notes to store, so that the
// store mirrors the vault: every note is put (replacing the stored copy),
// and stored notes whose file is gone are deleted. Importing the same vault
// twice leaves the store as one import does.
//
// A file that cannot be parsed (bad front matter, invalid UTF-8, an ID taken
// by another file) or stored is listed in the report's Errors and skipped;
// the other files are imported, and the stored copy of a skipped file is
// kept. The error is for a vault that cannot be read at all, or a store
// failing otherwise.
func Import(ctx context.Context, fsys fs.FS, store ports.Notes) (Report, error) {
	notes, failed, attachments, err := load(fsys)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Errors: failed, Attachments: attachments}
	keep := make(map[string]bool)
	for _, fe := range failed {
		keep[noteID(fe.Path)] = true
	}
	for _, n := range notes {
		if err := store.PutNote(ctx, n.Note); err != nil {
			if !errors.Is(err, ports.ErrInvalidItem) {
				return rep, fmt.Errorf("vault: storing %s: %w", n.Path, err)
			}
			rep.Errors = append(rep.Errors, FileError{n.Path, err})
		} else {
			rep.Imported++
		}
		keep[n.ID] = true
	}
	slices.SortFunc(rep.Errors, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })

	// Delete the stored notes whose file is gone. Collect first: deleting
	// while paging would shift the offsets.
	var stale []string
	list := func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return store.ListNotes(ctx, ports.ListFilter{}, p)
	}
	for n, err := range bounded.All(ctx, bounded.Page{Limit: ports.ListNotesLimits.Max}, list) {
		if err != nil {
			return rep, fmt.Errorf("vault: listing stored notes: %w", err)
		}
		if !keep[n.ID] {
			stale = append(stale, n.ID)
		}
	}
	for _, id := range stale {
		if err := store.DeleteNote(ctx, id); err != nil && !errors.Is(err, ports.ErrNotFound) {
			return rep, fmt.Errorf("vault: deleting %s: %w", id, err)
		}
		rep.Deleted++
	}
	return rep, nil
}

// File is a note read from the vault, with the path of its file.
type File struct {
	ports.Note
	Path string
}

// Load reads and parses every note of the vault fsys, resolving links and
// parents across notes, without storing anything. Notes come in path order;
// files that cannot be parsed are returned in failed, also in path order.
// When two files would have the same ID ("projects.md" and
// "projects/index.md"), the one [fs.WalkDir] visits first keeps it (a
// folder's files come before a file named like the folder) and the other
// fails. The error is for a vault that cannot be walked.
//
// Load holds the whole vault in memory; an [Importer] does not.
func Load(fsys fs.FS) (notes []File, failed []FileError, err error) {
	notes, failed, _, err = load(fsys)
	return notes, failed, err
}

// load is Load, also returning the number of attachments.
func load(fsys fs.FS) (notes []File, failed []FileError, attachments int, err error) {
	r := resolver{}
	var parsed []*parsedNote
	owner := make(map[string]string) // note ID -> path
	err = walk(fsys, func(e entry) error {
		if e.kind != KindNote {
			r.add(file{path: e.path})
			attachments++
			return nil
		}
		id := noteID(e.path)
		if other, ok := owner[id]; ok {
			failed = append(failed, FileError{e.path, taken(id, other)})
			return nil
		}
		owner[id] = e.path
		r.add(file{e.path, id})
		data, err := fs.ReadFile(fsys, e.path)
		if err != nil {
			failed = append(failed, FileError{e.path, err})
			return nil
		}
		n, err := parse(e.path, data, e.mod)
		if err != nil {
			failed = append(failed, FileError{e.path, err})
			return nil
		}
		parsed = append(parsed, n)
		return nil
	}, func(fe FileError) { failed = append(failed, fe) })
	if err != nil {
		return nil, nil, 0, err
	}
	for _, n := range parsed {
		note, _ := r.note(n)
		notes = append(notes, File{Note: note, Path: n.path})
	}
	slices.SortFunc(notes, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(failed, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })
	return notes, failed, attachments, nil
}

// taken is the error of a note file whose ID the file at other holds.
func taken(id, other string) error {
	return fmt.Errorf("its note id %q is taken by %s", id, other)
}
