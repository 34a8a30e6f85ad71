package result

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// caps are the most a preview keeps: elements of an array, members of an
// object, characters of a string, and the depth below which containers
// are shown empty.
type caps struct{ arr, obj, str, depth int }

const inf = math.MaxInt

// Floors of the first phases of the ladder: arrays are cut to arrFloor
// elements before strings are clipped, strings to strFloor characters
// before arrays are cut further; objects keep objFloor members until the
// last phases.
const (
	arrFloor = 50
	objFloor = 64
	strFloor = 500
)

// ladder returns the caps a preview tries, loosest first, each no looser
// than the one before.
func ladder(t *jtree.Tree) []caps {
	var out []caps
	add := func(c caps) {
		if len(out) == 0 || out[len(out)-1] != c {
			out = append(out, c)
		}
	}
	down := func(from, to int, f func(v int)) {
		for v := from; v > to; v = min(v-1, v*4/5) {
			f(v)
		}
		f(to)
	}
	add(caps{inf, inf, inf, inf})
	down(max(t.MaxCount, arrFloor), arrFloor, func(v int) { add(caps{v, max(v, objFloor), inf, inf}) })
	down(max(t.MaxString, strFloor), strFloor, func(v int) { add(caps{arrFloor, objFloor, v, inf}) })
	down(arrFloor, 1, func(v int) { add(caps{v, objFloor, strFloor, inf}) })
	down(strFloor, 1, func(v int) { add(caps{1, objFloor, v, inf}) })
	down(objFloor, 1, func(v int) { add(caps{1, v, 1, inf}) })
	down(t.MaxDepth+1, 0, func(v int) { add(caps{1, 1, 1, v}) })
	return out
}

// cut is a part a preview leaves out.
type cut struct {
	ptr  string
	path []int // index path of the node
	kind byte  // '[', '{', '"', or 'b' for a binary block (path is its parent's)
	// total and kept count elements, members or decoded runes; the
	// children from..to-1 are left out (a string's rest, from line,
	// char).
	total, kept int
	from, to    int
	line, char  int
}

// step is one level of the path a renderer is at.
type step struct {
	key []byte // the member's key as written; nil in arrays
	idx int
}

// renderer writes a preview of a tree under caps, stopping once it is
// over limit characters.
type renderer struct {
	t     *jtree.Tree
	c     caps
	limit int
	out   []byte
	runes int
	over  bool
	cuts  []cut
	path  []step
}

func (r *renderer) write(b []byte, runes int) {
	if r.over {
		return
	}
	r.out = append(r.out, b...)
	r.runes += runes
	r.over = r.runes > r.limit
}

func (r *renderer) raw(b []byte) { r.write(b, utf8.RuneCount(b)) }

func (r *renderer) char(c byte) {
	if r.over {
		return
	}
	r.out = append(r.out, c)
	r.runes++
	r.over = r.runes > r.limit
}

// render writes the preview of the whole tree.
func (r *renderer) render() {
	start, n := 0, -1
	if len(r.t.Nodes) > 0 && r.t.Nodes[0].Start == 0 {
		n = 0
	}
	r.value(start, n, 0)
}

func (r *renderer) value(start, n, depth int) {
	src := r.t.Src
	if n < 0 {
		r.raw(src[start:jtree.SkipValue(src, start)])
		return
	}
	nd := &r.t.Nodes[n]
	if src[start] == '"' {
		if int(nd.Count) <= r.c.str {
			r.write(src[nd.Start:nd.End], int(nd.Runes))
			return
		}
		prefix, _ := jtree.UnquotePrefix(src[nd.Start:nd.End], r.c.str+1)
		s, kept := clipText(prefix, int(nd.Count), r.c.str)
		enc := jtree.AppendString(nil, s)
		r.raw(enc)
		c := r.newCut('"', int(nd.Count), kept)
		c.line, c.char = position(prefix, kept)
		r.cuts = append(r.cuts, c)
		return
	}
	obj := src[start] == '{'
	limit := r.c.arr
	if obj {
		limit = r.c.obj
	}
	if depth >= r.c.depth {
		limit = 0
	}
	r.char(src[start])
	k := 0
	r.t.Children(start, n, func(ch jtree.Child) bool {
		if k >= limit || r.over {
			return false
		}
		if k > 0 {
			r.char(',')
		}
		r.path = append(r.path, step{ch.Key, k})
		if obj {
			r.raw(ch.Key)
			r.char(':')
		}
		r.value(ch.Start, ch.Node, depth+1)
		r.path = r.path[:len(r.path)-1]
		k++
		return true
	})
	r.char(src[nd.End-1])
	if count := int(nd.Count); k < count && !r.over {
		kind := byte('[')
		if obj {
			kind = '{'
		}
		c := r.newCut(kind, count, k)
		c.from, c.to = k, count
		r.cuts = append(r.cuts, c)
	}
}

// newCut returns the cut of the node at r.path.
func (r *renderer) newCut(kind byte, total, kept int) cut {
	var p strings.Builder
	path := make([]int, len(r.path))
	for i, s := range r.path {
		p.WriteByte('/')
		if s.key != nil {
			p.WriteString(jtree.EscapeToken(jtree.Unquote(s.key)))
		} else {
			p.WriteString(strconv.Itoa(s.idx))
		}
		path[i] = s.idx
	}
	return cut{ptr: p.String(), path: path, kind: kind, total: total, kept: kept}
}

// clipText clips s, the first runes of a text of total runes, to maxChars
// runes with bounded.ClipPrefix's marker, at the end of a line when one
// ends in the second half of what is kept. It returns the text and the
// number of runes of the original it keeps.
func clipText(prefix string, total, maxChars int) (string, int) {
	s, info := bounded.ClipPrefix(prefix, maxChars, total)
	if !info.Clipped {
		return s, utf8.RuneCountInString(s)
	}
	kept := info.OriginalChars - info.RemovedChars
	keptStr := prefix[:runeIndex(prefix, kept)]
	nl := strings.LastIndexByte(keptStr, '\n')
	if nl < 0 || nl+1 == len(keptStr) {
		return s, kept
	}
	lineEnd := utf8.RuneCountInString(keptStr[:nl+1])
	if lineEnd < kept/2 {
		return s, kept
	}
	if s2, info2 := bounded.ClipPrefix(keptStr[:nl+1], maxChars, total); info2.OriginalChars-info2.RemovedChars == lineEnd {
		return s2, lineEnd
	}
	return s, kept
}

// runeIndex returns the byte index of rune n of s, or len(s).
func runeIndex(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// position returns the line and the rune in that line where the text
// goes on after its first kept runes: lines end after "\n".
func position(s string, kept int) (line, char int) {
	head := s[:runeIndex(s, kept)]
	line = strings.Count(head, "\n")
	char = utf8.RuneCountInString(head[strings.LastIndexByte(head, '\n')+1:])
	return line, char
}
