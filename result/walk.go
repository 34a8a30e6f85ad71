package result

import (
	"cmp"
	"slices"
)

// docPos is a place in document order: the child path[len-1] of the node
// at path[:len-1], or, with str, rune char of line line of the string at
// path.
type docPos struct {
	path       []int
	str        bool
	line, char int
}

// comparePos orders places in document order; a node's start comes
// before anything inside it.
func comparePos(a, b docPos) int {
	if c := slices.Compare(a.path, b.path); c != 0 {
		n := min(len(a.path), len(b.path))
		if slices.Equal(a.path[:n], b.path[:n]) {
			return cmp.Compare(len(a.path), len(b.path))
		}
		return c
	}
	switch {
	case a.str && b.str:
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.char, b.char))
	case a.str:
		return 1
	case b.str:
		return -1
	}
	return 0
}

// start is where what c leaves out starts.
func (c cut) start() docPos {
	if c.kind == '"' {
		return docPos{path: c.path, str: true, line: c.line, char: c.char}
	}
	return docPos{path: append(slices.Clip(c.path), c.from)}
}

func (c mcut) start() docPos {
	if c.Kind == '"' {
		return docPos{path: c.Path, str: true, line: c.Line, char: c.Char}
	}
	return docPos{path: append(slices.Clip(c.Path), c.From)}
}

// holds reports whether what c leaves out holds q.
func (c mcut) holds(q docPos) bool {
	if c.Kind == '"' {
		return q.str && slices.Equal(q.path, c.Path) && !(q.line < c.Line || q.line == c.Line && q.char < c.Char)
	}
	n := len(c.Path)
	if len(q.path) <= n || !slices.Equal(q.path[:n], c.Path) {
		return false
	}
	i := q.path[n]
	return c.From <= i && i < c.To
}

// firstLeftOut returns the first place at or after q that the preview
// left out: q itself when a cut holds it, else the start of the next cut;
// false when none follows.
func firstLeftOut(q docPos, cuts []mcut) (docPos, *mcut, bool) {
	for i := range cuts {
		c := &cuts[i]
		if c.holds(q) {
			return q, nil, true
		}
		if comparePos(c.start(), q) > 0 {
			return c.start(), c, true
		}
	}
	return docPos{}, nil, false
}
