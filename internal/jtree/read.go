package jtree

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SkipString returns the index after the string that starts at i of a
// valid text.
func SkipString(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// SkipValue returns the index after the value that starts at i of a valid
// compact text.
func SkipValue(src []byte, i int) int {
	switch src[i] {
	case '"':
		return SkipString(src, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(src); j++ {
			switch src[j] {
			case '"':
				j = SkipString(src, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(src)
	}
	j := i
	for j < len(src) && src[j] != ',' && src[j] != ']' && src[j] != '}' {
		j++
	}
	return j
}

// Child is one element of an array, or member of an object, of a tree.
type Child struct {
	// Key is the member's key as written, quotes included; nil in arrays.
	Key []byte
	// Start and End delimit the value in the tree's text.
	Start, End int
	// Node is the value's node, or -1.
	Node int
}

// Children calls yield for each child of the container whose value starts
// at start (its node n, or -1 when it has none), in order, until yield
// returns false.
func (t *Tree) Children(start, n int, yield func(Child) bool) {
	src := t.Src
	next := -1 // a small container holds no node
	if n >= 0 {
		next = n + 1
	}
	i := start + 1
	if src[i] == ']' || src[i] == '}' {
		return
	}
	obj := src[start] == '{'
	for {
		var c Child
		if obj {
			ke := SkipString(src, i)
			c.Key = src[i:ke]
			i = ke + 1
		}
		c.Start, c.Node = i, -1
		if next >= 0 && next < len(t.Nodes) && int(t.Nodes[next].Start) == i {
			c.Node = next
			c.End = int(t.Nodes[next].End)
			next += int(t.Nodes[next].Skip)
		} else {
			c.End = SkipValue(src, i)
		}
		if !yield(c) {
			return
		}
		i = c.End
		if i >= len(src) || src[i] != ',' {
			return
		}
		i++
	}
}

// Unquote decodes the JSON string q, quotes included, of a valid text.
// Lone surrogates become U+FFFD, as encoding/json decodes them.
func Unquote(q []byte) string {
	s, _ := decode(q, -1)
	return s
}

// UnquotePrefix decodes the first n runes of the JSON string q, or all of
// it, and reports whether that is all of it.
func UnquotePrefix(q []byte, n int) (string, bool) {
	return decode(q, n)
}

func decode(q []byte, limit int) (string, bool) {
	body := q[1 : len(q)-1]
	if strings.IndexByte(string(body), '\\') < 0 {
		if limit < 0 {
			return string(body), true
		}
		i, k := 0, 0
		for i < len(body) && k < limit {
			_, size := utf8.DecodeRune(body[i:])
			i += size
			k++
		}
		return string(body[:i]), i == len(body)
	}
	var b strings.Builder
	k := 0
	i := 0
	if limit < 0 {
		b.Grow(len(body))
	}
	for i < len(body) && (limit < 0 || k < limit) {
		c := body[i]
		if c != '\\' && limit < 0 {
			// No runes to count: the run up to the next escape at once.
			j := bytes.IndexByte(body[i:], '\\')
			if j < 0 {
				j = len(body) - i
			}
			b.Write(body[i : i+j])
			i += j
			continue
		}
		if c != '\\' {
			_, size := utf8.DecodeRune(body[i:])
			b.Write(body[i : i+size])
			i += size
			k++
			continue
		}
		switch body[i+1] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(body[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2 := hex4(body[i+2 : i+6]); utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
						i += 6
						b.WriteRune(r)
						k++
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			k++
			continue
		default: // '"', '\\', '/'
			b.WriteByte(body[i+1])
		}
		i += 2
		k++
	}
	return b.String(), i >= len(body)
}

func hex4(b []byte) rune {
	v, _ := strconv.ParseUint(string(b), 16, 32)
	return rune(v)
}

// decodedRunes is the number of runes of the JSON string q once decoded.
func decodedRunes(q []byte) int {
	body := q[1 : len(q)-1]
	n := 0
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && body[i+1] == 'u':
			r := hex4(body[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' &&
				utf16.DecodeRune(r, hex4(body[i+2:i+6])) != utf8.RuneError {
				i += 6
			}
		case c == '\\':
			i += 2
		case c < 0x80:
			i++
		default:
			_, size := utf8.DecodeRune(body[i:])
			i += size
		}
		n++
	}
	return n
}

// AppendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping.
func AppendString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// EscapeToken escapes a key as a JSON Pointer token (RFC 6901).
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// SplitPointer returns the tokens of a JSON Pointer, unescaped, and false
// for a string that is not one.
func SplitPointer(p string) ([]string, bool) {
	if p == "" {
		return nil, true
	}
	if p[0] != '/' {
		return nil, false
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		if !strings.Contains(s, "~") {
			continue
		}
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || s[j+1] != '0' && s[j+1] != '1') {
				return nil, false
			}
		}
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return parts, true
}

// Index parses an array index token: digits without a leading zero.
func Index(tok string) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' || len(tok) > 15 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, true
}
