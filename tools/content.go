package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// envelopeReserve and envelopeReserveTokens are the part of a budget kept
// for the envelope around the longest text of one result: pagination,
// truncation report, the hint and next call without the caller's
// arguments, and the result's other fields.
const (
	envelopeReserve       = 1000
	envelopeReserveTokens = 450
)

// room is what the encoded text of one result may take, in characters and
// in tokens (as the request's budget counts them).
type room struct{ chars, tokens int }

// less returns rm less the encoded text enc of a string and a separator.
func (rm room) less(r *request, enc string) room {
	return room{rm.chars - utf8.RuneCountInString(enc) - 1, rm.tokens - r.budget.CountTokens(enc) - 1}
}

// half returns half of rm, for two texts that share it.
func (rm room) half() room { return room{rm.chars / 2, rm.tokens / 2} }

// room is the most the encoded text of one result may take, so that a
// single result rarely needs the budget's last-resort clip (which cannot say
// where the text continues): the budget less the envelope and the caller's
// arguments, which come back twice (in the hint and in next).
func (r *request) room() room {
	return room{
		chars:  max(r.budget.LimitChars()-envelopeReserve-2*r.size, 200),
		tokens: max(r.budget.LimitTokens()-envelopeReserveTokens-2*r.budget.CountTokens(r.raw), 80),
	}
}

// clipText clips s to maxChars runes (0: no limit) with [bounded.Clip], and
// further until its JSON encoding takes at most rm.chars characters and
// rm.tokens tokens, counted by the request's budget.
func (r *request) clipText(s string, maxChars int, rm room) (string, bounded.ClipInfo) {
	limit := rm.chars
	if maxChars > 0 && maxChars < limit {
		limit = maxChars
	}
	out, info := bounded.Clip(s, limit)
	for limit > 0 {
		enc := encodedRunes(out)
		if enc <= rm.chars {
			break
		}
		limit = max(limit-(enc-rm.chars), 0)
		out, info = bounded.Clip(s, limit)
	}
	for limit > 0 {
		tokens := r.budget.CountTokens(string(mustJSON(out)))
		if tokens <= rm.tokens {
			break
		}
		// Characters in proportion to the tokens over, and at least one.
		limit = min(limit-1, limit*rm.tokens/tokens)
		limit = max(limit, 0)
		out, info = bounded.Clip(s, limit)
	}
	return out, info
}

// encodedRunes is the number of characters of s encoded as a JSON string by
// encoding/json with HTML escaping off, quotes included.
func encodedRunes(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		case r == '"', r == '\\', r == '\n', r == '\r', r == '\t':
			n += 2
		case r < 0x20:
			n += 6
		default:
			n++
		}
		i += size
	}
	return n
}

// keptPrefix is the part of s that a clip described by info kept.
func keptPrefix(s string, info bounded.ClipInfo) string {
	keep := info.OriginalChars - info.RemovedChars
	for i := range s {
		if keep == 0 {
			return s[:i]
		}
		keep--
	}
	return s
}

// noteContentItem is the view of a note window, the i-th of n results: its
// content, from character charOffset of its first line, clipped by the
// access mode and to room characters encoded, with the window info
// corrected for the clip and the call that reads on from the first
// character not returned.
func (s *Set) noteContentItem(r *request, nc ports.NoteContent, n, i int, rm room) NoteContentItem {
	it := NoteContentItem{ID: nc.ID, Title: nc.Title}
	if r.detailed {
		it.Tags = nc.Tags
		it.CreatedAt = timePtr(nc.CreatedAt)
		it.UpdatedAt = timePtr(nc.UpdatedAt)
	}
	win := nc.Window
	it.ContentMetadata = &win
	limit := s.policy.ContentChars(n, i)
	if limit < 0 {
		it.Withheld = []string{"content"}
		win.NextOffset = 0
		return it
	}
	content, skip := skipChars(nc.Content, r.charOffset())
	win.CharOffset = skip
	if skip > 0 {
		win.Truncated = true
	}
	text, clip := r.clipText(content, limit, rm)
	it.Content = &text
	if clip.Clipped {
		it.ContentClip = &clip
		kept := keptPrefix(content, clip)
		lines := strings.Count(kept, "\n")
		win.ReturnedLines = lines
		win.NextOffset, win.NextCharOffset = win.Offset+lines, 0
		if rest := kept[strings.LastIndexByte(kept, '\n')+1:]; rest != "" || lines == 0 {
			// The text stops inside a line: read on from its first
			// character not returned (the same one, when nothing of it
			// was), never from the next line.
			win.ReturnedLines++
			win.NextCharOffset = utf8.RuneCountInString(rest)
			if lines == 0 {
				win.NextCharOffset += skip
			}
			if rest == "" && lines == 0 {
				win.ReturnedLines = 0
			}
		}
		win.Truncated = true
	}
	if win.NextOffset > 0 || clip.Clipped {
		it.NextLines = r.nextLines(nc.ID, win.NextOffset, win.NextCharOffset)
	}
	return it
}

// skipChars returns doc without the first n characters (runes) of its
// first line, and how many it skipped: at most the line's length, without
// its line break.
func skipChars(doc string, n int) (string, int) {
	skipped := 0
	for i, c := range doc {
		if skipped == n || c == '\n' || c == '\r' && strings.HasPrefix(doc[i:], "\r\n") {
			return doc[i:], skipped
		}
		skipped++
	}
	return "", skipped
}

// nextLines is the argument list of the get_note call that reads note id
// from character char of line offset, keeping the caller's maxLines, budget, budgetTokens and
// detail.
func (r *request) nextLines(id string, offset, char int) bounded.Args {
	a := bounded.Args{{Name: "id", Value: id}}
	if v, ok := r.in.Args.Get("maxLines"); ok {
		a = append(a, bounded.Arg{Name: "maxLines", Value: v})
	}
	a = append(a, bounded.Arg{Name: "lineOffset", Value: offset})
	if char > 0 {
		a = append(a, bounded.Arg{Name: "charOffset", Value: char})
	}
	for _, name := range []string{"budget", "budgetTokens", "detail"} {
		if v, ok := r.in.Next.Args.Get(name); ok {
			a = append(a, bounded.Arg{Name: name, Value: v})
		}
	}
	return a
}

// Context expansion limits: the parents and descendants attached to one
// result, and the lines read for a snippet.
const (
	contextParents  = 5
	contextChildren = 10
	snippetLines    = 30
)

// expand returns the hierarchy context of each of the notes ids, the
// results of one page, as the access mode's [Policy.Expansion] sets it
// for a page of that size: nil when it attaches none (private mode, large
// pages, detail="concise"). Notes that vanished meanwhile get no context.
//
// The context of the whole page is read by one [ports.Notes.ContextOf]
// call, whatever the page's size: the parents (when the mode adds them),
// the children and their snippets' lines, in one statement on the SQL
// adapters.
func (s *Set) expand(ctx context.Context, r *request, ids []string) ([]*Context, error) {
	ex := s.policy.Expansion(len(ids))
	if !r.detailed || s.cfg.Notes == nil || len(ids) == 0 || !ex.Parent && ex.ChildLevels == 0 {
		return nil, nil
	}
	var asked []string
	for _, id := range ids {
		if id != "" {
			asked = append(asked, id)
		}
	}
	if len(asked) == 0 {
		return nil, nil
	}
	q := ports.ContextQuery{Parents: ex.Parent, ParentsPerNote: contextParents, ChildLevels: ex.ChildLevels, ChildrenPerNote: contextChildren}
	if ex.Chars > 0 {
		q.HeadLines = snippetLines
	}
	var parents map[string]ports.NoteList[ports.NoteRef]
	var children map[string]ports.NoteList[ports.Descendant]
	text := make(map[string]string)
	for batch := range slices.Chunk(ports.Distinct(asked), ports.MaxBatchIDs) {
		c, err := s.cfg.Notes.ContextOf(ctx, batch, q)
		if err != nil {
			return nil, err
		}
		parents = merge(parents, c.Parents.ByID())
		children = merge(children, c.Children.ByID())
		for _, nc := range c.Heads {
			text[nc.ID], _ = bounded.Clip(strings.TrimSpace(stripFrontMatter(nc.Content)), ex.Chars)
		}
	}
	out := make([]*Context, len(ids))
	var notes []*ContextNote
	for i, id := range ids {
		if id == "" {
			continue
		}
		c := &Context{}
		if ex.Parent {
			p, ok := parents[id]
			if !ok {
				continue
			}
			for _, n := range p.Items {
				c.Parents = append(c.Parents, ContextNote{ID: n.ID, Title: n.Title, Folder: n.Folder})
			}
			c.MoreParents = more("get_parents", bounded.Args{{Name: "id", Value: id}}, p.Page(contextParents).Page, ports.ParentsLimits.Default)
		}
		if ex.ChildLevels > 0 {
			d, ok := children[id]
			if !ok {
				continue
			}
			for _, n := range d.Items {
				c.Children = append(c.Children, ContextNote{ID: n.ID, Title: n.Title, Folder: n.Folder, Depth: n.Depth})
			}
			c.MoreChildren = more("get_descendants", bounded.Args{{Name: "id", Value: id}, {Name: "maxDepth", Value: ex.ChildLevels}}, d.Page(contextChildren).Page, ports.DescendantsLimits.Default)
		}
		if len(c.Parents)+len(c.Children) == 0 {
			continue
		}
		out[i] = c
		for j := range c.Parents {
			notes = append(notes, &c.Parents[j])
		}
		for j := range c.Children {
			notes = append(notes, &c.Children[j])
		}
	}
	for _, n := range notes {
		n.Snippet = text[n.ID]
	}
	return out, nil
}

// merge adds the entries of b to a, allocating a when it is nil.
func merge[V any](a, b map[string]V) map[string]V {
	if a == nil {
		return b
	}
	maps.Copy(a, b)
	return a
}

// more describes the rest of a context list cut at page info: "3 more: call
// get_parents(id=\"x\", offset=5, limit=5)"; "" when nothing was left out.
func more(tool string, args bounded.Args, info bounded.PageInfo, defaultLimit int) string {
	c := bounded.Call{Tool: tool, Args: args, DefaultLimit: defaultLimit}
	next, ok := c.Next(info)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s more: call %s", bounded.FormatCount(info.Total-info.NextOffset), c.Render(next))
}

// stripFrontMatter removes a YAML front matter block ("---" lines) from the
// start of a note's text, if it is closed there.
func stripFrontMatter(s string) string {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		rest, ok = strings.CutPrefix(s, "---\r\n")
	}
	if !ok {
		return s
	}
	for line := range strings.Lines(rest) {
		rest = rest[len(line):]
		if t := strings.TrimRight(line, "\r\n"); t == "---" || t == "..." {
			return rest
		}
	}
	return s
}
