package vault

import (
	"cmp"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/boundedkit/bounded/ports"
)

// Kinds of the files of a vault: notes and attachments. Kind returns them.
const (
	KindNote   = "note"
	KindImage  = "image"
	KindAudio  = "audio"
	KindVideo  = "video"
	KindPDF    = "pdf"
	KindCanvas = "canvas"
	KindOther  = "other"
)

// kinds are the attachment kinds of the file extensions Obsidian opens.
var kinds = map[string]string{
	".avif": KindImage, ".bmp": KindImage, ".gif": KindImage, ".jpeg": KindImage, ".jpg": KindImage,
	".png": KindImage, ".svg": KindImage, ".webp": KindImage,
	".flac": KindAudio, ".m4a": KindAudio, ".mp3": KindAudio, ".ogg": KindAudio, ".wav": KindAudio, ".3gp": KindAudio,
	".mkv": KindVideo, ".mov": KindVideo, ".mp4": KindVideo, ".ogv": KindVideo, ".webm": KindVideo,
	".pdf":    KindPDF,
	".canvas": KindCanvas,
}

// Kind returns the kind of the file at slash path p, from its extension
// (case-insensitive): [KindNote] for .md, [KindImage], [KindAudio],
// [KindVideo], [KindPDF] or [KindCanvas] for the formats Obsidian opens,
// [KindOther] for any other file.
func Kind(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if ext == ".md" {
		return KindNote
	}
	if k, ok := kinds[ext]; ok {
		return k
	}
	return KindOther
}

// rawLink is a link as written. An internal link's Target is the name or
// path it gives, without fragment, alias or ".md", URL-decoded for a
// Markdown link, to be resolved by a [resolver].
type rawLink struct {
	ports.Link
	// md is a Markdown link: a path relative to the note's folder first.
	md bool
	// embed is an embed (![[...]] or a Markdown image).
	embed bool
}

var (
	wikiRE     = regexp.MustCompile(`(!?)\[\[([^\[\]\n]+)\]\]`)
	mdLinkRE   = regexp.MustCompile(`(!?)\[([^\]\n]*)\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))(?:\s+"[^"\n]*")?\s*\)`)
	autoLinkRE = regexp.MustCompile(`<(https?://[^\s<>]+)>`)
	sizeRE     = regexp.MustCompile(`^\d+(x\d+)?$`)
)

// scanLinks finds the links of a note body, in order of appearance.
func scanLinks(body string) []rawLink {
	type hit struct {
		at int
		l  rawLink
	}
	var hits []hit
	text := stripCode(body)
	for _, m := range wikiRE.FindAllStringSubmatchIndex(text, -1) {
		if l, ok := wikiLink(text[m[2]:m[3]] == "!", text[m[4]:m[5]]); ok {
			hits = append(hits, hit{m[0], l})
		}
	}
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(text, -1) {
		dest := ""
		if m[6] >= 0 {
			dest = text[m[6]:m[7]]
		} else {
			dest = text[m[8]:m[9]]
		}
		if l, ok := mdLink(text[m[2]:m[3]] == "!", strings.TrimSpace(text[m[4]:m[5]]), dest); ok {
			hits = append(hits, hit{m[0], l})
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

// wikiLink reads the inside of [[...]]: name#heading|alias, name#^block,
// with "\|" for the pipe inside a table. ok is false for a link to a
// heading of the same note.
func wikiLink(embed bool, inner string) (rawLink, bool) {
	inner = strings.ReplaceAll(inner, `\|`, "|")
	target, alias, hasAlias := strings.Cut(inner, "|")
	name, fragment, _ := strings.Cut(target, "#")
	name = trimMD(strings.TrimSpace(name))
	if name == "" {
		return rawLink{}, false
	}
	l := rawLink{Link: ports.Link{Target: name}, embed: embed}
	switch alias = strings.TrimSpace(alias); {
	case hasAlias && !(embed && sizeRE.MatchString(alias)):
		l.Text = alias
	case fragment != "":
		l.Text = strings.TrimSpace(target)
	}
	return l, true
}

// mdLink reads a Markdown link [label](dest) or image ![label](dest).
// External links are http and https URLs (not images); internal ones are
// relative paths, URL-decoded. ok is false for anything else: other
// schemes, anchors of the same note, folders, external images.
func mdLink(image bool, label, dest string) (rawLink, bool) {
	u, err := url.Parse(dest)
	switch {
	case err != nil:
		return rawLink{}, false
	case u.Scheme == "http" || u.Scheme == "https":
		if image {
			return rawLink{}, false
		}
		return rawLink{Link: ports.Link{Target: dest, External: true, Text: label}}, true
	case u.Scheme != "" || u.Host != "":
		return rawLink{}, false
	}
	p, _, _ := strings.Cut(dest, "#")
	if d, err := url.PathUnescape(p); err == nil {
		p = d
	}
	p = trimMD(strings.TrimSpace(p))
	if p == "" || strings.HasSuffix(p, "/") {
		return rawLink{}, false
	}
	return rawLink{Link: ports.Link{Target: p, Text: label}, md: true, embed: image}, true
}

// trimMD removes a ".md" extension, in any case.
func trimMD(name string) string {
	if strings.EqualFold(path.Ext(name), ".md") {
		return name[:len(name)-len(".md")]
	}
	return name
}

// file is a file of the vault as links see it: a note (with its ID) or an
// attachment (ID "").
type file struct {
	path, id string
}

// name is the key a file is found by: the lowercase last element of a
// note's ID, or of an attachment's path.
func (f file) name() string {
	if f.id != "" {
		return nameKey(f.id)
	}
	return nameKey(f.path)
}

// nameKey is the lowercase last element of a link target or a path.
func nameKey(p string) string { return strings.ToLower(path.Base(p)) }

// relative reports whether a link target is relative to its note's
// folder ("./x", "../x").
func relative(name string) bool {
	return strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../")
}

// keys returns the names under which the files a link from a note in
// folder dir may resolve to are found: what a resolver must hold for it.
func keys(dir string, l rawLink) []string {
	names := []string{l.Target}
	if l.md || relative(l.Target) {
		names = append(names, path.Join(dir, l.Target))
	}
	var out []string
	for _, n := range names {
		out = append(out, nameKey(n))
		if strings.EqualFold(path.Base(n), "index") && path.Dir(n) != "." {
			out = append(out, nameKey(path.Dir(n))) // a folder's index note
		}
	}
	return out
}

// resolver finds the files that link targets name, among the files it
// holds (by [file.name]).
type resolver map[string][]file

func (r resolver) add(f file) { r[f.name()] = append(r[f.name()], f) }

// prefersFile reports whether a target names an attachment before a note:
// its extension is one of the attachment formats of [Kind].
func prefersFile(name string) bool {
	_, ok := kinds[strings.ToLower(path.Ext(name))]
	return ok
}

// isFileLink reports whether a link that resolves to nothing is a missing
// attachment rather than a missing note: its target has the extension of
// an attachment format, or it is a Markdown link to a file that is not a
// note.
func isFileLink(l rawLink) bool {
	return prefersFile(l.Target) || (l.md && path.Ext(l.Target) != "")
}

// find returns the file that l, in a note of folder dir, links to; ok is
// false when none matches. The rule is the package documentation's.
func (r resolver) find(dir string, l rawLink) (f file, ok bool) {
	n := l.Target
	var exact []string
	switch {
	case relative(n):
		exact = []string{path.Join(dir, n)}
	case l.md:
		exact = []string{path.Join(dir, n)}
	}
	if strings.Contains(n, "/") && !relative(n) {
		exact = append(exact, path.Clean(strings.TrimPrefix(n, "/")))
	}
	for _, fold := range []bool{false, true} {
		for _, p := range exact {
			if f, ok := r.exact(p, fold); ok {
				return f, true
			}
		}
	}
	if relative(n) {
		return file{}, false
	}
	return r.nearest(dir, strings.TrimPrefix(n, "/"))
}

// exact returns the file at vault path p (without ".md" for a note),
// compared case-insensitively when fold is set.
func (r resolver) exact(p string, fold bool) (file, bool) {
	cands := r[nameKey(p)]
	if strings.EqualFold(path.Base(p), "index") {
		cands = append(slices.Clip(cands), r[nameKey(path.Dir(p))]...)
	}
	eq := func(a string) bool { return a == p || fold && strings.EqualFold(a, p) }
	var best file
	found := false
	for _, f := range cands {
		if f.id != "" && (eq(f.id) || eq(trimMD(f.path))) || f.id == "" && eq(f.path) {
			if !found || (f.id == "") == prefersFile(p) {
				best, found = f, true
			}
		}
	}
	return best, found
}

// nearest returns the file whose path ends with name (case-insensitively,
// at a folder boundary) nearest the folder dir: the fewest folder steps
// from dir to the file's folder; then the deepest shared folder, the
// shortest path and the path in byte order. Attachments come after notes
// unless name has an attachment's extension.
func (r resolver) nearest(dir, name string) (file, bool) {
	lname := strings.ToLower(name)
	match := func(k string) bool {
		k = strings.ToLower(k)
		return k == lname || strings.HasSuffix(k, "/"+lname)
	}
	type ranked struct {
		f                        file
		class, steps, shared, ln int
	}
	cmpRank := func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.steps, b.steps), cmp.Compare(b.shared, a.shared),
			cmp.Compare(a.ln, b.ln), strings.Compare(a.f.path, b.f.path))
	}
	var best ranked
	found := false
	for _, f := range r[nameKey(name)] {
		if f.id != "" && !match(f.id) && !match(trimMD(f.path)) || f.id == "" && !match(f.path) {
			continue
		}
		c := ranked{f: f, ln: len(f.path)}
		if (f.id == "") != prefersFile(name) {
			c.class = 1
		}
		c.steps, c.shared = distance(dir, path.Dir(f.path))
		if !found || cmpRank(c, best) < 0 {
			best, found = c, true
		}
	}
	return best.f, found
}

// distance returns the folder steps from folder a to folder b (up to
// their deepest shared folder, then down) and that shared folder's depth.
func distance(a, b string) (steps, shared int) {
	as, bs := folders(a), folders(b)
	for shared < len(as) && shared < len(bs) && as[shared] == bs[shared] {
		shared++
	}
	return len(as) - shared + len(bs) - shared, shared
}

// folders splits a folder path; the vault root has none.
func folders(dir string) []string {
	if dir == "." || dir == "" {
		return nil
	}
	return strings.Split(dir, "/")
}

// linkState is what a link resolved to.
type linkState int

const (
	toNote     linkState = iota // an existing note
	external                    // a URL
	brokenNote                  // no note: stored as a broken link
	toFile                      // an existing attachment: not stored
	brokenFile                  // a missing attachment: stored as a broken link
)

// resolve returns the link stored for l in a note of folder dir, and what
// it is. A link to an existing attachment is not stored (see the package
// documentation).
func (r resolver) resolve(dir string, l rawLink) (ports.Link, linkState) {
	if l.External {
		return l.Link, external
	}
	out := l.Link
	if f, ok := r.find(dir, l); ok {
		if f.id == "" {
			return out, toFile
		}
		out.Target = f.id
		return out, toNote
	}
	if l.md || relative(l.Target) {
		out.Target = path.Join(dir, l.Target)
	}
	if isFileLink(l) {
		return out, brokenFile
	}
	return out, brokenNote
}
