package vault

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/boundedkit/bounded/ports"
)

// noteID is the ID of the note in the file at slash path p.
func noteID(p string) string {
	id := strings.TrimSuffix(p, path.Ext(p))
	if dir, base := path.Split(id); base == "index" && dir != "" {
		return strings.TrimSuffix(dir, "/")
	}
	return id
}

// parsedNote is one file parsed, before its link targets and parents are
// resolved against the other files.
type parsedNote struct {
	ports.Note
	path    string
	links   []rawLink
	parents []string // names from the front matter
}

// dir is the folder of the note's file, which relative links start from.
func (n *parsedNote) dir() string { return path.Dir(n.path) }

// deps returns the names (see [file.name]) of the files the note's links
// and parents may resolve to, sorted and without duplicates: what a
// resolver must hold to resolve it, and the names whose files appearing
// or going can change it.
func (n *parsedNote) deps() []string {
	var out []string
	for _, l := range n.links {
		if !l.External {
			out = append(out, keys(n.dir(), l)...)
		}
	}
	for _, p := range n.parents {
		out = append(out, keys(n.dir(), rawLink{Link: ports.Link{Target: parentName(p)}})...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parentName is a front matter parent as a link target: "[[Note|x]]" is
// "Note".
func parentName(p string) string {
	p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "[["), "]]")
	p, _, _ = strings.Cut(p, "|")
	p, _, _ = strings.Cut(p, "#")
	return trimMD(strings.TrimSpace(p))
}

// counts are a note's links by what they resolved to.
type counts struct {
	// Links are the links stored, internal and external; Embeds the links
	// to existing attachments, which are not; Broken the stored internal
	// links to no note, and Missing those of them to a missing attachment.
	Links, Embeds, Broken, Missing int
}

// note returns n with its links and parents resolved by r, which holds
// the files of n.deps(): the links in order, those to existing
// attachments left out; the parents its front matter names.
func (r resolver) note(n *parsedNote) (ports.Note, counts) {
	out := n.Note
	var c counts
	for _, raw := range n.links {
		l, state := r.resolve(n.dir(), raw)
		switch state {
		case toFile:
			c.Embeds++
			continue
		case brokenFile:
			c.Missing++
			c.Broken++
		case brokenNote:
			c.Broken++
		}
		c.Links++
		out.Links = append(out.Links, l)
	}
	for _, p := range n.parents {
		name := parentName(p)
		if name == "" {
			continue
		}
		id := name
		if f, ok := r.find(n.dir(), rawLink{Link: ports.Link{Target: name}}); ok && f.id != "" {
			id = f.id
		}
		if id != n.ID {
			out.Parents = append(out.Parents, id)
		}
	}
	return out, c
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
	n.links = scanLinks(body)
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
