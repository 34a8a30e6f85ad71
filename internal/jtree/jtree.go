// Package jtree reads a JSON text once into a table of its large values,
// without decoding it: the bounder renders a preview from the table and cuts
// the snapshot into stored segments.
//
// A value of at most AtomBytes bytes has no node: it is kept or dropped
// whole, and read again from the text when needed.
package jtree

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// AtomBytes is the size of the largest value without a node.
const AtomBytes = 64

// MaxBytes is the largest text Parse reads: offsets are 32-bit.
const MaxBytes = math.MaxUint32 - 1

// Errors of Parse, each wrapped with the offset where it was found.
var (
	ErrSyntax    = errors.New("invalid JSON")
	ErrUTF8      = errors.New("invalid UTF-8 in a JSON string")
	ErrDepth     = errors.New("JSON nested too deep")
	ErrDuplicate = errors.New("duplicate key in a JSON object")
	ErrTooLarge  = errors.New("JSON text too large")
)

// Node is a container, or a string over AtomBytes, of a compact text.
type Node struct {
	// Start and End delimit the value in Tree.Src.
	Start, End uint32
	// Skip is the number of nodes of the subtree, this one included: the
	// next sibling's node is at index i+Skip.
	Skip uint32
	// Count is a container's number of children, or a string's number of
	// runes once decoded.
	Count uint32
	// Runes is the number of runes of Src[Start:End].
	Runes uint32
	// Depth is the number of containers around the value.
	Depth uint32
}

// Kind returns '{', '[' or '"'.
func (t *Tree) Kind(n int) byte { return t.Src[t.Nodes[n].Start] }

// Tree is a compact JSON text and its nodes in document order.
type Tree struct {
	Src   []byte
	Nodes []Node
	// MaxCount is the largest Count of a container, MaxString of a
	// string, MaxDepth the largest Depth of a node.
	MaxCount, MaxString, MaxDepth int
}

// Parse reads one JSON value: RFC 8259, UTF-8, at most maxDepth levels,
// no key twice in an object. A text with whitespace between tokens is
// compacted first; Tree.Src is then a new slice. Parse never recurses.
func Parse(src []byte, maxDepth int) (*Tree, error) {
	if len(src) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(src))
	}
	var s scanner
	ws, err := s.scan(src, maxDepth)
	if err != nil {
		return nil, err
	}
	if ws {
		src = Compact(src)
		s = scanner{}
		if _, err := s.scan(src, maxDepth); err != nil {
			return nil, err
		}
	}
	t := &Tree{Src: src, Nodes: s.nodes}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch src[n.Start] {
		case '"':
			t.MaxString = max(t.MaxString, int(n.Count))
		default:
			t.MaxCount = max(t.MaxCount, int(n.Count))
		}
		t.MaxDepth = max(t.MaxDepth, int(n.Depth))
	}
	return t, nil
}

// Valid reports whether src is one JSON value Parse accepts, without
// building nodes.
func Valid(src []byte, maxDepth int) error {
	if len(src) > MaxBytes {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, len(src))
	}
	s := scanner{noNodes: true}
	_, err := s.scan(src, maxDepth)
	return err
}

type frame struct {
	node  int // index in nodes, or -1
	start int
	cont  int // continuation bytes before the value
	count int
	keys  int // start of the object's keys in scanner.keys
	obj   bool
}

type keyEnt struct {
	hash  uint64
	start int
}

type scanner struct {
	src     []byte
	nodes   []Node
	stack   []frame
	keys    []keyEnt
	scratch []uint64
	cont    int // continuation bytes seen so far
	noNodes bool
}

func (s *scanner) fail(err error, i int) error {
	return fmt.Errorf("%w at byte %d", err, i)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scan validates src and records its nodes; it reports whether src has
// whitespace between tokens (then the offsets are of src as it is).
func (s *scanner) scan(src []byte, maxDepth int) (ws bool, err error) {
	s.src = src
	i := 0
	n := len(src)
	skip := func() {
		for i < n && isSpace(src[i]) {
			i++
			ws = true
		}
	}
	skip()
	for {
		// A value starts at i.
		if i >= n {
			return ws, s.fail(ErrSyntax, i)
		}
		switch c := src[i]; {
		case c == '{' || c == '[':
			if len(s.stack) >= maxDepth {
				return ws, s.fail(ErrDepth, i)
			}
			f := frame{node: -1, start: i, cont: s.cont, obj: c == '{', keys: len(s.keys)}
			if !s.noNodes {
				f.node = len(s.nodes)
				s.nodes = append(s.nodes, Node{Start: uint32(i), Depth: uint32(len(s.stack))})
			}
			s.stack = append(s.stack, f)
			i++
			skip()
			if i < n && (src[i] == '}' && c == '{' || src[i] == ']' && c == '[') {
				i++
				if err := s.close(i); err != nil {
					return ws, err
				}
				break
			}
			if c == '{' {
				if i, ws, err = s.member(i, ws); err != nil {
					return ws, err
				}
			}
			continue
		case c == '"':
			end, err := s.str(i, true)
			if err != nil {
				return ws, err
			}
			i = end
		case c == '-' || '0' <= c && c <= '9':
			end, ok := number(src, i)
			if !ok {
				return ws, s.fail(ErrSyntax, i)
			}
			i = end
		case c == 't':
			i, err = literal(src, i, "true")
		case c == 'f':
			i, err = literal(src, i, "false")
		case c == 'n':
			i, err = literal(src, i, "null")
		default:
			return ws, s.fail(ErrSyntax, i)
		}
		if err != nil {
			return ws, err
		}
		// After a value.
		for {
			skip()
			if len(s.stack) == 0 {
				if i != n {
					return ws, s.fail(ErrSyntax, i)
				}
				return ws, nil
			}
			f := &s.stack[len(s.stack)-1]
			if i >= n {
				return ws, s.fail(ErrSyntax, i)
			}
			f.count++
			if src[i] == ',' {
				i++
				skip()
				if f.obj {
					if i, ws, err = s.member(i, ws); err != nil {
						return ws, err
					}
				}
				break
			}
			if f.obj && src[i] == '}' || !f.obj && src[i] == ']' {
				i++
				if err := s.close(i); err != nil {
					return ws, err
				}
				continue
			}
			return ws, s.fail(ErrSyntax, i)
		}
	}
}

// member reads an object member's key and colon at i, and the space
// after them; it returns where the value starts.
func (s *scanner) member(i int, ws bool) (int, bool, error) {
	i, err := s.key(i)
	if err != nil {
		return 0, ws, err
	}
	for i < len(s.src) && isSpace(s.src[i]) {
		i, ws = i+1, true
	}
	if i >= len(s.src) || s.src[i] != ':' {
		return 0, ws, s.fail(ErrSyntax, i)
	}
	i++
	for i < len(s.src) && isSpace(s.src[i]) {
		i, ws = i+1, true
	}
	return i, ws, nil
}

// close ends the innermost container at end (just after its bracket).
func (s *scanner) close(end int) error {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if f.obj {
		if err := s.checkKeys(f.keys); err != nil {
			return err
		}
		s.keys = s.keys[:f.keys]
	}
	if f.node < 0 {
		return nil
	}
	if end-f.start <= AtomBytes {
		s.nodes = s.nodes[:f.node]
		return nil
	}
	nd := &s.nodes[f.node]
	nd.End = uint32(end)
	nd.Skip = uint32(len(s.nodes) - f.node)
	nd.Count = uint32(f.count)
	nd.Runes = uint32(end - f.start - (s.cont - f.cont))
	return nil
}

// key reads an object key at i and records its hash.
func (s *scanner) key(i int) (int, error) {
	if i >= len(s.src) || s.src[i] != '"' {
		return 0, s.fail(ErrSyntax, i)
	}
	end, err := s.str(i, false)
	if err != nil {
		return 0, err
	}
	s.keys = append(s.keys, keyEnt{hash: keyHash(s.src[i:end]), start: i})
	return end, nil
}

// checkKeys reports a key given twice among s.keys[from:].
func (s *scanner) checkKeys(from int) error {
	keys := s.keys[from:]
	if len(keys) < 2 {
		return nil
	}
	dup := false
	if len(keys) <= 8 {
		for a := range keys {
			for b := a + 1; b < len(keys); b++ {
				dup = dup || keys[a].hash == keys[b].hash
			}
		}
	} else {
		s.scratch = s.scratch[:0]
		for _, k := range keys {
			s.scratch = append(s.scratch, k.hash)
		}
		slices.Sort(s.scratch)
		for j := 1; j < len(s.scratch); j++ {
			dup = dup || s.scratch[j] == s.scratch[j-1]
		}
	}
	if !dup {
		return nil
	}
	// A hash repeats: compare the keys themselves.
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		end := SkipString(s.src, k.start)
		name := Unquote(s.src[k.start:end])
		if seen[name] {
			return s.fail(ErrDuplicate, k.start)
		}
		seen[name] = true
	}
	return nil
}

// keyHash hashes a key as decoded: FNV-1a of its bytes, or of its
// decoded form when it has escapes.
func keyHash(q []byte) uint64 {
	body := q[1 : len(q)-1]
	for _, c := range body {
		if c == '\\' {
			return fnv([]byte(Unquote(q)))
		}
	}
	return fnv(body)
}

func fnv(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// str reads the string at i and returns the index after it. A value
// string over AtomBytes gets a node.
func (s *scanner) str(i int, value bool) (int, error) {
	src := s.src
	j := i + 1
	cont := 0
	ascii := true
	escapes := false
	for {
		if j >= len(src) {
			return 0, s.fail(ErrSyntax, j)
		}
		c := src[j]
		switch {
		case c == '"':
			j++
			if !ascii && !utf8.Valid(src[i:j]) {
				return 0, s.fail(ErrUTF8, i)
			}
			s.cont += cont
			if value && !s.noNodes && j-i > AtomBytes {
				n := Node{Start: uint32(i), End: uint32(j), Skip: 1, Runes: uint32(j - i - cont), Depth: uint32(len(s.stack))}
				n.Count = n.Runes - 2
				if escapes {
					n.Count = uint32(decodedRunes(src[i:j]))
				}
				s.nodes = append(s.nodes, n)
			}
			return j, nil
		case c == '\\':
			escapes = true
			if j+1 >= len(src) {
				return 0, s.fail(ErrSyntax, j)
			}
			switch src[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(src) || !isHex4(src[j+2:j+6]) {
					return 0, s.fail(ErrSyntax, j)
				}
				j += 6
			default:
				return 0, s.fail(ErrSyntax, j)
			}
		case c < 0x20:
			return 0, s.fail(ErrSyntax, j)
		case c >= 0x80:
			ascii = false
			if c < 0xC0 {
				cont++
			}
			j++
		default:
			j++
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number returns the end of the number at i, and whether it is one.
func number(src []byte, i int) (int, bool) {
	n := len(src)
	if src[i] == '-' {
		i++
	}
	switch {
	case i < n && src[i] == '0':
		i++
	case i < n && '1' <= src[i] && src[i] <= '9':
		i = digits(src, i)
	default:
		return 0, false
	}
	if i < n && src[i] == '.' {
		if d := digits(src, i+1); d > i+1 {
			i = d
		} else {
			return 0, false
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if d := digits(src, i); d > i {
			i = d
		} else {
			return 0, false
		}
	}
	return i, true
}

// digits returns the index after the digits at i.
func digits(src []byte, i int) int {
	for i < len(src) && '0' <= src[i] && src[i] <= '9' {
		i++
	}
	return i
}

func literal(src []byte, i int, lit string) (int, error) {
	if len(src)-i < len(lit) || string(src[i:i+len(lit)]) != lit {
		return 0, fmt.Errorf("%w at byte %d", ErrSyntax, i)
	}
	return i + len(lit), nil
}

// Compact returns src, valid JSON, without whitespace between tokens.
func Compact(src []byte) []byte {
	out := make([]byte, 0, len(src))
	in := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case in:
			out = append(out, c)
			if c == '\\' {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				in = false
			}
		case isSpace(c):
		default:
			out = append(out, c)
			in = c == '"'
		}
	}
	return out
}
