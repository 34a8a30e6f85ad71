package result

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/jtree"
)

// ErrInvalidRead is wrapped by the errors of a read's arguments: a
// negative number, a pointer that is not one or names nothing, a position
// past the end of a text.
var ErrInvalidRead = errors.New("result: invalid read")

// ReadLimits are the page sizes of a read of an array or object: the most
// elements read when the call sets no limit, and the largest limit.
var ReadLimits = bounded.Limits{Default: 1000, Max: 10_000}

// ReadArgs are the arguments of a read, as the read tool takes them.
type ReadArgs struct {
	// Handle names the snapshot.
	Handle string `json:"handle"`
	// Pointer is the JSON Pointer (RFC 6901) of the value read; "" is the
	// whole result.
	Pointer string `json:"pointer,omitempty"`
	// Offset is the first element or member of an array or object read.
	Offset int `json:"offset,omitempty"`
	// Limit caps the elements or members read; 0 means
	// ReadLimits.Default.
	Limit int `json:"limit,omitempty"`
	// LineOffset and CharOffset are where a text read starts: a 0-based
	// line, and a rune of that line.
	LineOffset int `json:"lineOffset,omitempty"`
	CharOffset int `json:"charOffset,omitempty"`
	// MaxLines caps the lines of a text read; 0 means
	// bounded.MaxWindowLines.
	MaxLines int `json:"maxLines,omitempty"`
	// Cursor stands for a Pointer over MaxPointerArg bytes, as next
	// gives it; a read takes one or the other.
	Cursor string `json:"cursor,omitempty"`
}

// MaxPointerArg is the longest pointer a next call repeats; a longer one
// becomes a cursor.
const MaxPointerArg = 200

// Answer is the answer to a read.
type Answer struct {
	// JSON is the answer as the model reads it: a bounded.Envelope
	// within the budget, whose next is the read that goes on.
	JSON []byte
	// Pointer and Kind ("array", "object", "string" or "value") name the
	// value read: the one asked for, or one inside it when its first
	// element was over the budget alone.
	Pointer string
	Kind    string
	// Offset is the first element or member read; Items are those read,
	// members as one-member objects.
	Offset int
	Items  []json.RawMessage
	// Line and Char are where a text read starts; Text is the text read,
	// without a marker.
	Line, Char int
	Text       string
	// Next is the arguments of the read that goes on, nil at the end:
	// following it from a report's Next reads all the preview left out,
	// once.
	Next bounded.Args
}

// vnode is a value of a snapshot being read.
type vnode struct {
	ptr  string
	path []int
	d    desc
	tree *jtree.Tree // a container's Raw, parsed
	text string      // a string's text, decoded
}

// reader is one read of one snapshot.
type reader struct {
	b      *Bounder
	ctx    context.Context
	budget bounded.Budget
	lc, lt int
	id     string
	handle string
	m      *meta
	args   ReadArgs
	notes  []string
}

// Read answers a read of a snapshot under budget, for principal: a page
// of an array's elements or an object's members from Offset, or a window
// of a text from LineOffset and CharOffset. An element too large for the
// budget alone is read into instead, from its start. The answer keeps to
// the budget and names in next the read that goes on: within the value,
// then on through what the preview left out.
//
// A handle that is not the principal's, was altered, expired or was
// evicted is a *HandleError naming the call that gives a new one. Bad
// arguments wrap ErrInvalidRead.
func (b *Bounder) Read(ctx context.Context, budget bounded.Budget, principal string, a ReadArgs) (Answer, error) {
	lc, lt, err := limits(budget)
	if err != nil {
		return Answer{}, err
	}
	switch {
	case a.Offset < 0, a.LineOffset < 0, a.CharOffset < 0, a.Limit < 0, a.MaxLines < 0:
		return Answer{}, fmt.Errorf("%w: offset, limit, lineOffset, charOffset and maxLines must not be negative", ErrInvalidRead)
	}
	id, m, err := b.open(ctx, principal, a.Handle)
	if err != nil {
		return Answer{}, err
	}
	r := &reader{b: b, ctx: ctx, budget: budget, lc: lc, lt: lt, id: id, handle: a.Handle, m: m, args: a}
	var chain []*vnode
	switch {
	case a.Cursor != "" && a.Pointer != "":
		return Answer{}, fmt.Errorf("%w: pass pointer or cursor, not both", ErrInvalidRead)
	case a.Cursor != "":
		chain, err = r.resolveCursor(a.Cursor)
	default:
		chain, err = r.resolve(a.Pointer)
	}
	if err != nil {
		return Answer{}, err
	}
	return r.answer(chain)
}

// cursorScope is the scope of the cursors of a handle's reads.
func cursorScope(handle string) string { return "read\x00" + handle }

// where returns the argument that names the value at ptr, whose index
// path is path: the pointer, or a cursor when it is long; nil for the
// whole result.
func (r *reader) where(ptr string, path []int) bounded.Args {
	switch {
	case ptr == "":
		return nil
	case len(ptr) <= MaxPointerArg:
		return bounded.Args{{Name: "pointer", Value: ptr}}
	}
	keys := make([]any, len(path))
	for i, p := range path {
		keys[i] = int64(p)
	}
	c, err := r.b.codec.Encode(cursorScope(r.handle), driver.Cursor{Keys: keys})
	if err != nil {
		return bounded.Args{{Name: "pointer", Value: ptr}}
	}
	return bounded.Args{{Name: "cursor", Value: c}}
}

// resolveCursor returns the values from the root to the one a cursor
// names.
func (r *reader) resolveCursor(s string) ([]*vnode, error) {
	c, err := r.b.codec.Decode(cursorScope(r.handle), s)
	if err != nil {
		return nil, fmt.Errorf("%w: the cursor is not one of this handle's: %w", ErrInvalidRead, err)
	}
	chain := []*vnode{{d: r.m.Root}}
	for _, k := range c.Keys {
		i, ok := k.(int64)
		if !ok || i < 0 || i > math.MaxInt32 {
			return nil, fmt.Errorf("%w: the cursor is not one of this handle's", ErrInvalidRead)
		}
		v, err := r.child(chain[len(chain)-1], "", int(i))
		if err != nil {
			return nil, err
		}
		chain = append(chain, v)
	}
	return chain, nil
}

// resolve returns the values from the root to the one ptr names.
func (r *reader) resolve(ptr string) ([]*vnode, error) {
	toks, ok := jtree.SplitPointer(ptr)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a JSON Pointer: it must be empty or start with /", ErrInvalidRead, ptr)
	}
	root := &vnode{d: r.m.Root}
	chain := []*vnode{root}
	for _, tok := range toks {
		v := chain[len(chain)-1]
		c, err := r.child(v, tok, -1)
		if err != nil {
			return nil, err
		}
		chain = append(chain, c)
	}
	return chain, nil
}

// child returns the child of v that tok names, or else the child idx.
func (r *reader) child(v *vnode, tok string, idx int) (*vnode, error) {
	notFound := func() error {
		if idx >= 0 {
			tok = strconv.Itoa(idx)
		}
		return fmt.Errorf("%w: %s has no %q", ErrInvalidRead, orString(v.ptr, "the result"), tok)
	}
	if v.d.Kind != '[' && v.d.Kind != '{' {
		return nil, notFound()
	}
	if err := r.open(v); err != nil {
		return nil, err
	}
	if idx < 0 && v.d.Kind == '[' {
		i, ok := jtree.Index(tok)
		if !ok {
			return nil, notFound()
		}
		idx = i
	}
	if idx >= v.d.Count {
		return nil, notFound()
	}
	var found *item
	err := r.children(v, max(idx, 0), func(i int, it item) bool {
		if idx >= 0 || jtree.Unquote(it.key) == tok {
			idx, found = i, &it
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, notFound()
	}
	return &vnode{ptr: r.childPtr(v, idx, found.key), path: append(slices.Clip(v.path), idx), d: found.d}, nil
}

// open reads what a value not split needs: a container's children, a
// string's text.
func (r *reader) open(v *vnode) error {
	if v.d.Split || v.tree != nil {
		return nil
	}
	switch v.d.Kind {
	case '[', '{':
		t, err := jtree.Parse(v.d.Raw, MaxDepth)
		if err != nil {
			return fmt.Errorf("%w: %w", errMeta, err)
		}
		v.tree = t
		n := 0
		t.Children(0, rootNode(t), func(jtree.Child) bool { n++; return true })
		v.d.Count = n
		v.d.Runes = utf8.RuneCount(v.d.Raw)
	case '"', kindText:
		v.text = string(v.d.Raw)
		if v.d.Kind == '"' {
			v.text = jtree.Unquote(v.d.Raw)
		}
		v.d.Count = utf8.RuneCountInString(v.text)
		v.d.Lines = countLines(v.text)
	}
	return nil
}

func rootNode(t *jtree.Tree) int {
	if len(t.Nodes) > 0 && t.Nodes[0].Start == 0 {
		return 0
	}
	return -1
}

// segments calls f with the segments of node from the last at or before
// from, in order, until f returns false.
func (r *reader) segments(node string, from Pos, f func(Segment) bool) error {
	batch := 2 // a page takes one segment or two; a text window more
	at, seen := from, false
	var last Pos
	for {
		segs, err := r.b.store.Segments(r.ctx, r.id, node, at, batch)
		if err != nil {
			return err
		}
		progressed := false
		for _, sg := range segs {
			if seen && !last.Less(sg.Pos) {
				continue
			}
			last, seen, progressed = sg.Pos, true, true
			if !f(sg) {
				return nil
			}
		}
		if !progressed || len(segs) < batch {
			return nil
		}
		at, batch = last, min(2*batch, 16)
	}
}

// children calls f with the children of container v from index from, in
// order, until f returns false.
func (r *reader) children(v *vnode, from int, f func(i int, it item) bool) error {
	if !v.d.Split {
		i := 0
		v.tree.Children(0, rootNode(v.tree), func(c jtree.Child) bool {
			ok := true
			if i >= from {
				raw := v.tree.Src[c.Start:c.End]
				ok = f(i, item{key: c.Key, d: desc{Kind: rawKind(raw), Raw: raw}})
			}
			i++
			return ok
		})
		return nil
	}
	var ferr error
	err := r.segments(v.ptr, Pos{A: int64(from)}, func(sg Segment) bool {
		items, err := readItems(sg.Data)
		if err != nil {
			ferr = err
			return false
		}
		for j, it := range items {
			if i := int(sg.Pos.A) + j; i >= from && !f(i, it) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return ferr
}

// answer reads from the last value of chain.
func (r *reader) answer(chain []*vnode) (Answer, error) {
	a := r.args
	offset, line, char := a.Offset, a.LineOffset, a.CharOffset
	for {
		v := chain[len(chain)-1]
		if err := r.open(v); err != nil {
			return Answer{}, err
		}
		switch v.d.Kind {
		case '[', '{':
			ans, into, err := r.page(chain, offset)
			if err != nil || into == nil {
				return ans, err
			}
			what := string(jtree.AppendString(nil, into.ptr))
			if len(into.ptr) > MaxPointerArg {
				what = "Part " + strconv.Itoa(into.path[len(into.path)-1]) + " of the value"
			}
			r.notes = append(r.notes[:0], what+" alone is over the budget: this reads into it.")
			chain, offset, line, char = append(chain, into), 0, 0, 0
		case '"', kindText:
			return r.window(chain, line, char)
		default:
			return r.value(chain)
		}
	}
}

// call is the read call that produced an answer about v.
func (r *reader) call(v *vnode, extra ...bounded.Arg) bounded.Call {
	args := append(bounded.Args{{Name: "handle", Value: r.handle}}, r.where(v.ptr, v.path)...)
	return bounded.Call{Tool: r.b.o.ReadTool, Args: append(args, extra...), Paging: bounded.ByOffset, DefaultLimit: ReadLimits.Default}
}

// page answers a page of the container at the end of chain from offset,
// or returns the child to read into when the first is over the budget
// alone.
func (r *reader) page(chain []*vnode, offset int) (Answer, *vnode, error) {
	v := chain[len(chain)-1]
	req, err := ReadLimits.Normalize(bounded.Page{Limit: r.args.Limit, Offset: offset})
	if err != nil {
		return Answer{}, nil, fmt.Errorf("%w: %w", ErrInvalidRead, err)
	}
	var items []json.RawMessage
	var first *item
	var werr error
	size := 0
	if offset < v.d.Count {
		err = r.children(v, offset, func(i int, it item) bool {
			if first == nil {
				c := it
				first = &c
			}
			raw := it.d.Raw
			if it.d.Split {
				if it.d.Runes > r.lc {
					return false
				}
				child := &vnode{ptr: r.childPtr(v, i, it.key), d: it.d}
				if raw, werr = r.whole(child); werr != nil {
					return false
				}
			}
			if it.key != nil {
				raw = slices.Concat([]byte("{"), it.key, []byte(":"), raw, []byte("}"))
			}
			items = append(items, raw)
			size += len(raw)
			return len(items) < req.Limit && size <= r.lc
		})
		if err = cmpErr(err, werr); err != nil {
			return Answer{}, nil, err
		}
	}
	into := func() *vnode {
		return &vnode{ptr: r.childPtr(v, offset, first.key), path: append(slices.Clip(v.path), offset), d: first.d}
	}
	if first != nil && len(items) == 0 {
		return Answer{}, into(), nil
	}
	info := bounded.PageInfo{Total: v.d.Count, Limit: req.Limit, Offset: offset, Returned: len(items),
		HasMore: offset+len(items) < v.d.Count, Clamped: req.Clamped, RequestedLimit: req.Requested}
	if info.HasMore {
		info.NextOffset = offset + len(items)
	}
	in := bounded.FitInput[json.RawMessage]{
		Page:  bounded.Paged[json.RawMessage]{Items: items, Page: info},
		Call:  r.call(v),
		Notes: r.notes,
	}
	if offset+len(items) >= v.d.Count {
		in.WindowNext = r.after(chain)
	}
	if r.m.Shape == shapeBlocks && v.ptr == "/content" && len(r.m.Blobs) > 0 {
		in.Notes = append(in.Notes, "Image, audio and blob data are read as resources: "+r.b.o.ResourcePrefix+r.handle+"/content/<index>.")
	}
	fd, err := bounded.FitContext(r.ctx, r.budget, in)
	descend := first != nil && (first.d.Kind == '[' || first.d.Kind == '{' || first.d.Kind == '"')
	switch {
	case descend && (errors.Is(err, bounded.ErrInvalidBudget) ||
		fd.Truncation.Reason == bounded.ReasonSingleResultTooLarge || fd.Truncation.Reason == bounded.ReasonBudgetTooSmall):
		// The first alone is over the budget, or even the answer saying so.
		return Answer{}, into(), nil
	case err != nil:
		return Answer{}, nil, err
	}
	kind := CutArray
	if v.d.Kind == '{' {
		kind = CutObject
	}
	return Answer{JSON: fd.JSON, Pointer: v.ptr, Kind: kind, Offset: offset, Items: items[:fd.Kept], Next: fd.Next}, nil, nil
}

// childPtr is the pointer of child i of v, whose key is key (nil in an
// array).
func (r *reader) childPtr(v *vnode, i int, key []byte) string {
	if key != nil {
		return v.ptr + "/" + jtree.EscapeToken(jtree.Unquote(key))
	}
	return v.ptr + "/" + strconv.Itoa(i)
}

// after returns the read that goes on once the last value of chain is
// read to its end: its next sibling, or an ancestor's, or else the next
// part the preview left out; nil at the end.
func (r *reader) after(chain []*vnode) bounded.Args {
	var q docPos
	found := false
	for k := len(chain) - 1; k >= 1 && !found; k-- {
		parent, i := chain[k-1], chain[k].path[len(chain[k].path)-1]
		if i+1 < parent.d.Count {
			q = docPos{path: append(slices.Clip(parent.path), i+1)}
			found = true
		}
	}
	if !found {
		return nil
	}
	p, c, ok := firstLeftOut(q, r.m.Cuts)
	if !ok {
		return nil
	}
	if c != nil {
		return r.at(c.Ptr, c.Path, cut{kind: c.Kind, from: c.From, line: c.Line, char: c.Char})
	}
	// q itself: a child of an ancestor in chain.
	parent := chain[len(p.path)-1]
	return r.at(parent.ptr, parent.path, cut{kind: parent.d.Kind, from: p.path[len(p.path)-1]})
}

// at returns the arguments of the read of the value at ptr (index path
// path) from c's position.
func (r *reader) at(ptr string, path []int, c cut) bounded.Args {
	args := append(bounded.Args{{Name: "handle", Value: r.handle}}, r.where(ptr, path)...)
	return append(args, c.readArgs()...)
}

// value answers a read of a number, true, false, null or short string.
func (r *reader) value(chain []*vnode) (Answer, error) {
	v := chain[len(chain)-1]
	in := bounded.FitInput[json.RawMessage]{
		Page:       bounded.Paged[json.RawMessage]{Items: []json.RawMessage{v.d.Raw}, Page: bounded.PageInfo{Total: 1, Limit: 1, Returned: 1}},
		Call:       r.call(v),
		Notes:      r.notes,
		WindowNext: r.after(chain),
	}
	fd, err := bounded.FitContext(r.ctx, r.budget, in)
	if err != nil {
		return Answer{}, err
	}
	return Answer{JSON: fd.JSON, Pointer: v.ptr, Kind: "value", Items: []json.RawMessage{v.d.Raw}, Next: fd.Next}, nil
}

// window answers a read of the text at the end of chain from line, char.
func (r *reader) window(chain []*vnode, line, char int) (Answer, error) {
	v := chain[len(chain)-1]
	text, before, err := r.textFrom(v, line, char)
	if err != nil {
		return Answer{}, err
	}
	maxLines := r.args.MaxLines
	if maxLines == 0 {
		maxLines = bounded.MaxWindowLines
	}
	w, _, err := bounded.ApplyWindow(text, bounded.Window{MaxLines: maxLines})
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %w", ErrInvalidRead, err)
	}
	rest := v.d.Count - before
	win := &bounded.WindowInfo{TotalLines: v.d.Lines, Offset: line, CharOffset: char, Truncated: true}
	var extra []bounded.Arg
	if r.args.MaxLines > 0 {
		extra = append(extra, bounded.Arg{Name: "maxLines", Value: r.args.MaxLines})
	}
	call := r.call(v, extra...)
	// The room the text has: the budget less the envelope around it.
	fit := func(s string, kept int) (bounded.Fitted, bounded.Args, error) {
		nl, nc := advance(line, char, w[:runeIndex(w, kept)])
		win.NextOffset, win.NextCharOffset, win.ReturnedLines = 0, 0, nl-line+1
		var next bounded.Args
		if kept < rest {
			win.NextOffset, win.NextCharOffset = nl, nc
			next = append(slices.Clone(call.Args), bounded.Arg{Name: "lineOffset", Value: nl})
			if nc > 0 {
				next = append(next, bounded.Arg{Name: "charOffset", Value: nc})
			}
		} else {
			next = r.after(chain)
			win.Truncated = line > 0 || char > 0
		}
		fd, err := bounded.FitContext(r.ctx, r.budget, bounded.FitInput[string]{
			Page:       bounded.Paged[string]{Items: []string{s}, Page: bounded.PageInfo{Total: 1, Limit: 1, Returned: 1}},
			Call:       call,
			Hints:      bounded.HintOff,
			Window:     win,
			WindowNext: next,
			Notes:      r.notes,
		})
		return fd, next, err
	}
	empty, _, err := fit("", 0)
	if err != nil {
		return Answer{}, err
	}
	roomChars := r.lc - empty.Truncation.EstimatedChars - 24
	roomTokens := r.lt - empty.Truncation.EstimatedTokens - 12
	limit := roomChars
	for limit > 0 {
		prefix := w[:runeIndex(w, limit+1)]
		s, kept := clipText(prefix, rest, limit)
		enc := string(jtree.AppendString(nil, s))
		chars, tokens := utf8.RuneCountInString(enc), r.budget.CountTokens(enc)
		if chars <= roomChars && tokens <= roomTokens && (kept > 0 || rest == 0) {
			fd, next, err := fit(s, kept)
			if err != nil {
				return Answer{}, err
			}
			if fd.Truncation.Reason == "" {
				return Answer{JSON: fd.JSON, Pointer: v.ptr, Kind: CutString, Line: line, Char: char, Text: w[:runeIndex(w, kept)], Next: next}, nil
			}
		}
		next := limit - max(1, limit/10)
		if chars > roomChars {
			next = min(next, limit*roomChars/chars)
		}
		if tokens > roomTokens {
			next = min(next, limit*roomTokens/tokens)
		}
		limit = next
	}
	return Answer{}, fmt.Errorf("%w: the budget leaves no room for text", bounded.ErrInvalidBudget)
}

// advance returns the line and rune where a text that starts at line,
// char goes on after s.
func advance(line, char int, s string) (int, int) {
	nl := strings.Count(s, "\n")
	if nl == 0 {
		return line, char + utf8.RuneCountInString(s)
	}
	return line + nl, utf8.RuneCountInString(s[strings.LastIndexByte(s, '\n')+1:])
}

// textFrom returns the text of v from line, char: all the rest when v is
// not split, else enough of it for a window. before is the number of runes
// before it.
func (r *reader) textFrom(v *vnode, line, char int) (text string, before int, err error) {
	pastEnd := func() error {
		return fmt.Errorf("%w: line %d, character %d is past the end of %s (%d lines)", ErrInvalidRead, line, char, orString(v.ptr, "the result"), v.d.Lines)
	}
	full := v.text
	var at Pos // where full starts
	runes0 := 0
	if v.d.Split {
		var b strings.Builder
		first := true
		err := r.segments(v.ptr, Pos{int64(line), int64(char)}, func(sg Segment) bool {
			off, k := textSegment(sg.Data)
			if first {
				at, runes0, first = sg.Pos, off, false
			}
			b.Write(sg.Data[k:])
			return b.Len() < 4*r.lc+chunkBytes
		})
		if err != nil {
			return "", 0, err
		}
		full = b.String()
	}
	i := 0
	for l := int(at.A); l < line; l++ {
		j := strings.IndexByte(full[i:], '\n')
		if j < 0 {
			return "", 0, pastEnd()
		}
		i += j + 1
	}
	c := 0
	if line == int(at.A) {
		c = int(at.B)
	}
	if c > char {
		return "", 0, pastEnd()
	}
	skipped := utf8.RuneCountInString(full[:i])
	for ; c < char; c++ {
		if i >= len(full) || full[i] == '\n' {
			return "", 0, pastEnd()
		}
		_, size := utf8.DecodeRuneInString(full[i:])
		i += size
		skipped++
	}
	return full[i:], runes0 + skipped, nil
}

// textSegment returns the rune offset a text segment starts at, and the
// length of its header.
func textSegment(data []byte) (int, int) {
	v, n := binary.Uvarint(data)
	if n <= 0 {
		return 0, 0
	}
	return int(v), n
}

// whole returns the compact JSON of v (its text for a plain text),
// reading its segments.
func (r *reader) whole(v *vnode) ([]byte, error) {
	if !v.d.Split {
		return v.d.Raw, nil
	}
	if v.d.Kind == '"' || v.d.Kind == kindText {
		var b strings.Builder
		err := r.segments(v.ptr, Pos{}, func(sg Segment) bool {
			_, k := textSegment(sg.Data)
			b.Write(sg.Data[k:])
			return true
		})
		if err != nil {
			return nil, err
		}
		if v.d.Kind == kindText {
			return []byte(b.String()), nil
		}
		return jtree.AppendString(nil, b.String()), nil
	}
	out := []byte{v.d.Kind}
	n := 0
	var werr error
	err := r.children(v, 0, func(i int, it item) bool {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		if it.key != nil {
			out = append(append(out, it.key...), ':')
		}
		raw := it.d.Raw
		if it.d.Split {
			if raw, werr = r.whole(&vnode{ptr: r.childPtr(v, i, it.key), d: it.d}); werr != nil {
				return false
			}
		}
		out = append(out, raw...)
		return true
	})
	if err = cmpErr(err, werr); err != nil {
		return nil, err
	}
	if v.d.Kind == '{' {
		return append(out, '}'), nil
	}
	return append(out, ']'), nil
}

// cmpErr returns the first error that is not nil.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
