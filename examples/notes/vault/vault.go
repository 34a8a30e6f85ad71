// Package vault imports a folder of Markdown notes (an Obsidian-style vault)
// into any [ports.Notes] store: the notes example's importer, reusable by
// other programs.
//
//	report, err := vault.Import(ctx, os.DirFS("my-vault"), store)
//	for _, fe := range report.Errors {
//		log.Printf("skipped %s: %v", fe.Path, fe.Err) // the other files are imported
//	}
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
// Links are [[Target]], [[Target|alias]], [[Target#heading]] and embeds
// ![[Target]] (internal), Markdown links [text](https://...) and <https://...>
// (external), and Markdown links to a relative .md file (internal). Links
// inside code blocks and code spans are ignored. A wikilink target is
// resolved as Obsidian does: an exact ID, else a case-insensitive ID, else a
// note of that file name anywhere in the vault (the shortest path first); a
// target that names no note is kept as written, as a broken link.
//
// Folders are hierarchy: a note's parent is the index note of its folder
// ("projects/atlas/index.md" for "projects/atlas/design.md"), or of the
// nearest enclosing folder that has one, together with the parents its
// front matter names.
package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

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
	notes, failed, err := Load(fsys)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Errors: failed}
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
func Load(fsys fs.FS) (notes []File, failed []FileError, err error) {
	var parsed []*parsedNote
	byID := make(map[string]*parsedNote)
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			failed = append(failed, FileError{p, err})
			return nil
		}
		name := d.Name()
		if p != "." && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(path.Ext(name), ".md") {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			failed = append(failed, FileError{p, err})
			return nil
		}
		var mod time.Time
		if info, err := d.Info(); err == nil {
			mod = info.ModTime()
		}
		n, err := parse(p, data, mod)
		if err != nil {
			failed = append(failed, FileError{p, err})
			return nil
		}
		if other, ok := byID[n.ID]; ok {
			failed = append(failed, FileError{p, fmt.Errorf("its note id %q is taken by %s", n.ID, other.path)})
			return nil
		}
		byID[n.ID] = n
		parsed = append(parsed, n)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("vault: %w", err)
	}
	r := newResolver(parsed)
	for _, n := range parsed {
		notes = append(notes, File{Note: r.note(n), Path: n.path})
	}
	slices.SortFunc(notes, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(failed, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })
	return notes, failed, nil
}

// noteID is the ID of the note in the file at slash path p.
func noteID(p string) string {
	id := strings.TrimSuffix(p, path.Ext(p))
	if dir, base := path.Split(id); base == "index" && dir != "" {
		return strings.TrimSuffix(dir, "/")
	}
	return id
}

// parsedNote is one file parsed, before its link targets and parents are
// resolved against the other notes.
type parsedNote struct {
	ports.Note
	path    string
	links   []rawLink
	parents []string // names from the front matter
}

// rawLink is a link as written: an internal link's Target is a note name to
// resolve (or, with Path, a path relative to the vault root).
type rawLink struct {
	ports.Link
	path bool
}

// frontMatter is the part of the YAML front matter the importer reads.
type frontMatter struct {
	Title   string
	Tags    []string
	Parents []string
	Created time.Time
	Updated time.Time
}

// parse reads one note file.
func parse(p string, data []byte, mod time.Time) (*parsedNote, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, errors.New("contains a NUL byte")
	}
	text := string(data)
	fm, body, err := splitFrontMatter(text)
	if err != nil {
		return nil, err
	}
	meta, err := readFrontMatter(fm)
	if err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	n := &parsedNote{path: p, parents: meta.Parents}
	n.ID = noteID(p)
	n.Content = text
	n.Tags = meta.Tags
	n.Title = meta.Title
	if n.Title == "" {
		n.Title = firstHeading(body)
	}
	if n.Title == "" {
		n.Title = path.Base(n.ID)
	}
	n.UpdatedAt = cmpOr(meta.Updated, meta.Created, mod)
	n.CreatedAt = cmpOr(meta.Created, n.UpdatedAt)
	n.links = scanLinks(path.Dir(p), body)
	return n, nil
}

func cmpOr(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// splitFrontMatter returns the YAML between a first line "---" and the next
// line "---" or "...", and the text after it. A document without a first
// "---" line has no front matter; one that opens it but never closes it is
// an error.
func splitFrontMatter(text string) (fm, body string, err error) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return "", text, nil
	}
	var b strings.Builder
	for line := range strings.Lines(rest) {
		if t := strings.TrimRight(line, "\r\n"); t == "---" || t == "..." {
			return b.String(), rest[b.Len()+len(line):], nil
		}
		b.WriteString(line)
	}
	return "", "", errors.New("front matter opened by --- on line 1 is never closed")
}

// readFrontMatter decodes the fields the importer reads; others are kept
// in the note's content only.
func readFrontMatter(fm string) (frontMatter, error) {
	var meta frontMatter
	if strings.TrimSpace(fm) == "" {
		return meta, nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(fm), &m); err != nil {
		return meta, err
	}
	var err error
	if meta.Title, err = str(m, "title"); err != nil {
		return meta, err
	}
	if meta.Tags, err = list(m, "tags"); err != nil {
		return meta, err
	}
	for i, t := range meta.Tags {
		meta.Tags[i] = strings.TrimPrefix(t, "#")
	}
	meta.Tags = slices.DeleteFunc(meta.Tags, func(t string) bool { return t == "" })
	if meta.Parents, err = list(m, "parents"); err != nil {
		return meta, err
	}
	parent, err := str(m, "parent")
	if err != nil {
		return meta, err
	}
	if parent != "" {
		meta.Parents = append(meta.Parents, parent)
	}
	if meta.Created, err = date(m, "created"); err != nil {
		return meta, err
	}
	if meta.Updated, err = date(m, "updated"); err != nil {
		return meta, err
	}
	if meta.Updated.IsZero() {
		if meta.Updated, err = date(m, "date"); err != nil {
			return meta, err
		}
	}
	return meta, nil
}

func str(m map[string]any, key string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(v), nil
	case int, float64, bool:
		return fmt.Sprint(v), nil
	case time.Time: // title: 2026-02-12, as daily notes have
		if v.Equal(v.Truncate(24 * time.Hour)) {
			return v.Format(time.DateOnly), nil
		}
		return v.Format(time.RFC3339), nil
	default:
		return "", fmt.Errorf("%s: want a string, got %T", key, v)
	}
}

// list reads a list of strings, or one string split at commas and spaces.
func list(m map[string]any, key string) ([]string, error) {
	switch v := m[key].(type) {
	case nil:
		return nil, nil
	case string:
		return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }), nil
	case []any:
		out := make([]string, 0, len(v))
		for i, e := range v {
			switch s := e.(type) {
			case string:
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			case int, float64:
				out = append(out, fmt.Sprint(s))
			default:
				return nil, fmt.Errorf("%s[%d]: want a string, got %T", key, i, e)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s: want a list or a string, got %T", key, v)
	}
}

func date(m map[string]any, key string) (time.Time, error) {
	switch v := m[key].(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return v, nil
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly} {
			if t, err := time.Parse(layout, strings.TrimSpace(v)); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%s: %q is not a date (want e.g. 2026-01-31 or 2026-01-31T09:30:00Z)", key, v)
	default:
		return time.Time{}, fmt.Errorf("%s: want a date, got %T", key, v)
	}
}

var headingRE = regexp.MustCompile(`(?m)^#[ \t]+(.+?)[ \t#]*$`)

// firstHeading returns the text of the first level-1 ATX heading outside
// code blocks.
func firstHeading(body string) string {
	m := headingRE.FindStringSubmatch(stripCode(body))
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}

var (
	fenceRE    = regexp.MustCompile("(?ms)^[ \t]*(```|~~~).*?^[ \t]*(```|~~~)[^\n]*$")
	codeSpanRE = regexp.MustCompile("`[^`\n]*`")
	wikiRE     = regexp.MustCompile(`!?\[\[([^\[\]\n]+)\]\]`)
	mdLinkRE   = regexp.MustCompile(`(!?)\[([^\]\n]*)\]\(<?([^()<>\s]+)>?(?:\s+"[^"]*")?\)`)
	autoLinkRE = regexp.MustCompile(`<(https?://[^\s<>]+)>`)
)

// stripCode blanks fenced code blocks and code spans, keeping line breaks.
func stripCode(s string) string {
	blank := func(m string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, m)
	}
	s = fenceRE.ReplaceAllStringFunc(s, blank)
	return codeSpanRE.ReplaceAllStringFunc(s, blank)
}

// scanLinks finds the links of a note body, in order of appearance. dir is
// the note file's folder, for relative Markdown links.
func scanLinks(dir, body string) []rawLink {
	type hit struct {
		at int
		l  rawLink
	}
	var hits []hit
	text := stripCode(body)
	for _, m := range wikiRE.FindAllStringSubmatchIndex(text, -1) {
		inner := text[m[2]:m[3]]
		target, alias, hasAlias := strings.Cut(inner, "|")
		name, heading, _ := strings.Cut(target, "#")
		name = strings.TrimSuffix(strings.TrimSpace(name), ".md")
		if name == "" {
			continue // a heading of the same note
		}
		l := rawLink{Link: ports.Link{Target: name}}
		switch {
		case hasAlias:
			l.Text = strings.TrimSpace(alias)
		case heading != "":
			l.Text = strings.TrimSpace(target)
		}
		hits = append(hits, hit{m[0], l})
	}
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(text, -1) {
		if text[m[2]:m[3]] == "!" {
			continue // an image
		}
		label, dest := strings.TrimSpace(text[m[4]:m[5]]), text[m[6]:m[7]]
		u, err := url.Parse(dest)
		switch {
		case err != nil:
		case u.Scheme == "http" || u.Scheme == "https":
			hits = append(hits, hit{m[0], rawLink{Link: ports.Link{Target: dest, External: true, Text: label}}})
		case u.Scheme == "" && u.Host == "" && strings.EqualFold(path.Ext(u.Path), ".md"):
			target := noteID(path.Clean(path.Join(dir, u.Path)))
			hits = append(hits, hit{m[0], rawLink{Link: ports.Link{Target: target, Text: label}, path: true}})
		}
	}
	for _, m := range autoLinkRE.FindAllStringSubmatchIndex(text, -1) {
		hits = append(hits, hit{m[0], rawLink{Link: ports.Link{Target: text[m[2]:m[3]], External: true}}})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]rawLink, len(hits))
	for i, h := range hits {
		out[i] = h.l
	}
	return out
}

// resolver finds the note a name refers to.
type resolver struct {
	ids    map[string]bool
	folded map[string][]string // lowercase ID -> IDs
	byName map[string][]string // lowercase file name -> IDs, shortest first
}

func newResolver(notes []*parsedNote) *resolver {
	r := &resolver{ids: map[string]bool{}, folded: map[string][]string{}, byName: map[string][]string{}}
	for _, n := range notes {
		r.ids[n.ID] = true
		r.folded[strings.ToLower(n.ID)] = append(r.folded[strings.ToLower(n.ID)], n.ID)
		base := strings.ToLower(path.Base(n.ID))
		r.byName[base] = append(r.byName[base], n.ID)
	}
	for _, ids := range r.byName {
		slices.SortFunc(ids, func(a, b string) int {
			if c := len(a) - len(b); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
	}
	for _, ids := range r.folded {
		slices.Sort(ids)
	}
	return r
}

// resolve returns the ID of the note name refers to, or name itself (a
// broken link) when it refers to none.
func (r *resolver) resolve(name string) string {
	name = strings.TrimPrefix(strings.TrimSuffix(strings.TrimSpace(name), ".md"), "/")
	if r.ids[name] {
		return name
	}
	if ids := r.folded[strings.ToLower(name)]; len(ids) > 0 {
		return ids[0]
	}
	if ids := r.byName[strings.ToLower(name)]; len(ids) > 0 && !strings.Contains(name, "/") {
		return ids[0]
	}
	return name
}

// note is n with its links resolved and its parents: the front matter's and
// the index note of the nearest enclosing folder that has one.
func (r *resolver) note(n *parsedNote) ports.Note {
	out := n.Note
	for _, l := range n.links {
		if !l.External && !l.path {
			l.Target = r.resolve(l.Target)
		}
		out.Links = append(out.Links, l.Link)
	}
	for _, p := range n.parents {
		p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "[["), "]]")
		p, _, _ = strings.Cut(p, "|")
		p, _, _ = strings.Cut(p, "#")
		if id := r.resolve(p); id != "" && id != n.ID {
			out.Parents = append(out.Parents, id)
		}
	}
	for dir := path.Dir(n.ID); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if r.ids[dir] {
			out.Parents = append(out.Parents, dir)
			break
		}
	}
	return out
}
