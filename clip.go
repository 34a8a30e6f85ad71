package bounded

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// clipFirst returns the response holding only the first item, its longest
// strings clipped until the envelope fits.
func (f *fitter) clipFirst() ([]byte, *shape, error) {
	root, err := parseJSONTree(f.Item(0))
	if err != nil {
		return nil, nil, fmt.Errorf("bounded: internal error: decoding result 0 to clip it: %w", err)
	}
	var leaves []*jsonNode
	root.collect("", &leaves)
	leaves = slices.DeleteFunc(leaves, func(l *jsonNode) bool { return slices.Contains(f.unclipped, l.path) })
	t, err := f.tailFor(1)
	if err != nil {
		return nil, nil, err
	}
	for {
		s := &shape{k: 1, t: t, clipped: root.appendTo(nil)}
		s.itemRunes = jsonenc.RuneCount(s.clipped)
		s.tr.Reason = ReasonSingleResultTooLarge
		for _, l := range leaves {
			if l.clipped {
				if len(s.pathsJSON) > 0 {
					s.pathsRunes++
				}
				p := jsonenc.AppendString(nil, l.path)
				s.tr.ClippedFields = append(s.tr.ClippedFields, l.path)
				s.pathsJSON = append(s.pathsJSON, p)
				s.pathsRunes += jsonenc.RuneCount(p)
			}
		}
		if err := f.measure(s, f.LimitTokens); err != nil {
			return nil, nil, err
		}
		if f.tok != nil && s.chars <= f.limitChars {
			out, err := f.assemble(s)
			if err != nil || f.fits(s) {
				return out, s, err
			}
		} else if f.fits(s) {
			out, err := f.assemble(s)
			return out, s, err
		}
		excess := s.chars - f.CharCap
		switch {
		case f.tok != nil:
			excess = max(s.chars-f.limitChars, ceilInt(float64(s.tokens-f.LimitTokens)*f.b.CharsPerToken), 1)
		case f.Est:
			// Characters in proportion to the tokens over the limit.
			perToken := float64(s.chars) / float64(max(s.tokens, 1))
			excess = max(s.chars-f.limitChars, ceilInt(float64(s.tokens-f.LimitTokens)*perToken), 1)
		}
		if !waterfill(leaves, excess) {
			return f.noneFits(s)
		}
	}
}

// noneFits returns the response without results when not even min, the
// first result clipped to its minimum, fits: ReasonBudgetTooSmall, with
// what min needs, and the page going on at the first result. It returns
// the error of a budget too small for that response too.
func (f *fitter) noneFits(min *shape) ([]byte, *shape, error) {
	t0, err := f.tailFor(0)
	if err != nil {
		return nil, nil, err
	}
	t := *t0
	// The call that reads on is this one with a larger budget: the same
	// call again would answer the same, so there is no next call.
	t.next, t.keeps, t.nextJSON = nil, nil, nil
	t.runes = jsonenc.RuneCount(t.pagination) + jsonenc.RuneCount(t.hintJSON)
	s := &shape{k: 0, t: &t}
	s.tr.Reason = ReasonBudgetTooSmall
	// What a response with the result takes: whole, or clipped to its
	// minimum, whichever is smaller (a clip reports its paths, which can
	// outgrow what it saves), with slack for the report's numbers, whose
	// digits grow with the limits.
	need := min
	if whole, err := f.sizeOf(1, f.capReason); err == nil && whole.chars <= min.chars && whole.tokens <= min.tokens {
		need = whole
	}
	const slack, slackTokens = 16, 8
	s.tr.NeededChars, s.tr.NeededTokens = need.chars+slack, need.tokens+slackTokens
	if f.b.MaxTokens == 0 {
		// The token limit comes from the characters: enough of them for
		// the tokens too.
		s.tr.NeededChars = max(s.tr.NeededChars, ceilInt(float64(s.tr.NeededTokens)*f.b.CharsPerToken))
	}
	if f.style != HintOff {
		h := fmt.Sprintf("The next result needs a budget of %s characters (%s tokens); this one is %s (%s): call again with a larger budget.",
			FormatCount(s.tr.NeededChars), FormatCount(s.tr.NeededTokens), FormatCount(f.limitChars), FormatCount(f.LimitTokens))
		t.hint, t.hintJSON = h, jsonenc.AppendString(nil, h)
		t.runes = jsonenc.RuneCount(t.pagination) + jsonenc.RuneCount(t.hintJSON) + jsonenc.RuneCount(t.nextJSON)
	}
	if err := f.measure(s, f.LimitTokens); err != nil {
		return nil, nil, err
	}
	if s.chars > f.limitChars || f.tok == nil && !f.fits(s) {
		return nil, nil, f.tooSmall(s, "the response saying what the first result needs")
	}
	out, err := f.assemble(s)
	if err == nil && !f.fits(s) {
		err = f.tooSmall(s, "the response saying what the first result needs")
	}
	return out, s, err
}

// waterfill clips the longest strings of leaves down to one common length,
// chosen so that they lose about excess encoded characters in all. It
// reports false when every string is already at its minimum, the one-rune
// marker.
func waterfill(leaves []*jsonNode, excess int) bool {
	var lens []int
	encRunes, runes := 0, 0
	for _, l := range leaves {
		if l.cur > 1 {
			lens = append(lens, l.cur)
			encRunes += l.encRunes
			runes += l.cur
		}
	}
	if len(lens) == 0 {
		return false
	}
	// Escapes make a string's encoding longer than its runes: remove
	// runes in proportion. Every pass removes at least one rune, so the
	// caller's loop ends.
	need := max(1, ceilInt(float64(excess)*float64(runes)/float64(max(encRunes, 1))))
	slices.SortFunc(lens, func(a, b int) int { return b - a })
	// Find the level x >= 1 such that cutting every string longer than x
	// down to x removes at least need runes.
	level, sum := 1, 0
	for j, l := range lens {
		sum += l
		next := 1
		if j+1 < len(lens) {
			next = lens[j+1]
		}
		if x := (sum - need) / (j + 1); sum-need >= 0 && x >= next {
			level = max(x, 1)
			break
		}
	}
	for _, l := range leaves {
		if l.cur > level {
			l.str, _ = Clip(l.orig, level)
			l.clipped = true
			l.setString(l.str)
		}
	}
	return true
}

// jsonNode is a decoded JSON value that keeps object keys in order, so that
// a clipped result is re-encoded as it was.
type jsonNode struct {
	kind byte   // '{', '[', '"', or 0 for a number, true, false or null
	lit  string // the literal, for kind 0
	// Objects and arrays.
	names []string // an object's keys, decoded, for paths
	keys  [][]byte // an object's keys as the item encoded them
	kids  []*jsonNode
	// Strings.
	orig     string // the string the item encoded (see unquoteJSON)
	str      string // the string as it is now
	enc      []byte // str, encoded: as the item encoded it until clipped
	cur      int    // runes of str
	encRunes int    // runes of enc without its quotes
	clipped  bool
	path     string // for ClippedFields
}

// setString sets n's string to s, a clip of n.orig, and encodes it.
func (n *jsonNode) setString(s string) {
	n.str = s
	n.enc = jsonenc.AppendString(n.enc[:0], s)
	n.cur = utf8.RuneCountInString(s)
	n.encRunes = jsonenc.RuneCount(n.enc) - 2
}

// parseJSONTree decodes one JSON value, numbers kept as written, keys and
// strings kept as encoded until they are clipped. The tree does not refer
// to b.
func parseJSONTree(b []byte) (*jsonNode, error) {
	b = bytes.Clone(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return parseJSONNode(dec, b)
}

func parseJSONNode(dec *json.Decoder, in []byte) (*jsonNode, error) {
	from := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &jsonNode{kind: byte(v)}
		for dec.More() {
			if v == '{' {
				from := dec.InputOffset()
				if _, err := dec.Token(); err != nil {
					return nil, err
				}
				key := rawString(in, from, dec.InputOffset())
				n.names = append(n.names, unquoteJSON(key))
				n.keys = append(n.keys, key)
			}
			kid, err := parseJSONNode(dec, in)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		// Its own copy of the encoding, which setString overwrites.
		enc := bytes.Clone(rawString(in, from, dec.InputOffset()))
		s := unquoteJSON(enc)
		return &jsonNode{kind: '"', orig: s, str: s, enc: enc, cur: utf8.RuneCountInString(s), encRunes: jsonenc.RuneCount(enc) - 2}, nil
	case json.Number:
		return &jsonNode{lit: v.String()}, nil
	case bool:
		return &jsonNode{lit: strconv.FormatBool(v)}, nil
	default:
		return &jsonNode{lit: "null"}, nil
	}
}

// rawString returns the string token that a decoder read from in[from:to]:
// from its opening quote (after any separator) to its closing one.
func rawString(in []byte, from, to int64) []byte {
	raw := in[from:to]
	return raw[bytes.IndexByte(raw, '"'):]
}

// unquoteJSON returns the string that q, a valid JSON string with its
// quotes, encodes; an escaped U+FFFD becomes the byte 0xFF. encoding/json
// writes each invalid UTF-8 byte of a string as \ufffd, and a valid U+FFFD
// as itself: jsonenc.AppendString writes the string returned, or a clip of it,
// as encoding/json writes the string the item held, or that clip of it.
func unquoteJSON(q []byte) string {
	q = q[1 : len(q)-1]
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q)
	}
	b := make([]byte, 0, len(q))
	for i := 0; i < len(q); {
		c := q[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		switch c = q[i+1]; c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(q[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if len(q)-i >= 6 && q[i] == '\\' && q[i+1] == 'u' {
					r2 = hex4(q[i+2 : i+6])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			} else if r == utf8.RuneError {
				b = append(b, 0xFF)
				continue
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		i += 2
	}
	return string(b)
}

// hex4 is the value of the 4 hexadecimal digits of h.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// collect appends the string leaves under n to leaves, in document order,
// setting their paths.
func (n *jsonNode) collect(path string, leaves *[]*jsonNode) {
	switch n.kind {
	case '"':
		n.path = cmp.Or(path, "$")
		*leaves = append(*leaves, n)
	case '{':
		for i, kid := range n.kids {
			name := n.names[i]
			switch {
			case !isIdent(name):
				kid.collect(path+"["+string(n.keys[i])+"]", leaves)
			case path == "":
				kid.collect(name, leaves)
			default:
				kid.collect(path+"."+name, leaves)
			}
		}
	case '[':
		for i, kid := range n.kids {
			kid.collect(path+"["+strconv.Itoa(i)+"]", leaves)
		}
	}
}

// isIdent reports whether a key can be written bare in a path:
// [A-Za-z_][A-Za-z0-9_]*.
func isIdent(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// appendTo appends n's compact encoding.
func (n *jsonNode) appendTo(b []byte) []byte {
	switch n.kind {
	case '"':
		return append(b, n.enc...)
	case '{', '[':
		b = append(b, n.kind)
		for i, kid := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			if n.kind == '{' {
				b = append(append(b, n.keys[i]...), ':')
			}
			b = kid.appendTo(b)
		}
		return append(b, n.kind+2) // '}' and ']' follow '{' and '[' by 2
	}
	return append(b, n.lit...)
}
