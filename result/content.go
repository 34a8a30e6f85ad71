package result

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// Document shapes: what is bounded and kept.
const (
	shapeJSON   byte = 'j' // a JSON value: structured content, or one text block of JSON
	shapeText   byte = 't' // one text block of plain text
	shapeBlocks byte = 'b' // {"content":[blocks...],"structuredContent":...}
)

// doc is a result read for bounding.
type doc struct {
	shape byte
	tree  *jtree.Tree // shapeJSON, shapeBlocks
	text  string      // shapeText
	in    Result
	// structured: shapeJSON from structured content (kept as such).
	structured bool
	// dropped says why structured content was left out, if it was.
	dropped error
	// jsonText marks the blocks whose text is JSON (shapeBlocks).
	jsonText []bool
}

// texts calls f with each text of r a model sees: each text once,
// structured content once (a text block repeating it is not counted
// again); and bin with the size of each binary datum.
func texts(r Result, f func(s string, b []byte), bin func(n int)) {
	mirror := -1
	if r.Structured != nil {
		for i, bl := range r.Content {
			if bl.Type == TypeText && len(bl.Text) == len(r.Structured) && bl.Text == string(r.Structured) {
				mirror = i
				break
			}
		}
		f("", r.Structured)
	}
	for i, bl := range r.Content {
		switch {
		case i == mirror:
		case isBinary(bl):
			bin(len(bl.Data))
		case bl.Type == TypeResourceLink:
			f(bl.URI+bl.Name+bl.Title+bl.Description, nil)
		default:
			f(bl.Text, nil)
		}
	}
}

// inputBytes is the size of r for Options.MaxBytes.
func inputBytes(r Result) int {
	n := len(r.Structured)
	for _, bl := range r.Content {
		n += len(bl.Text) + len(bl.Data)
	}
	return n
}

// fits reports whether r passes whole: its texts within the limits and
// each binary within MaxBinaryBytes. Sizes are checked before anything is
// counted, and nothing is parsed.
func (b *Bounder) fits(budget bounded.Budget, lc, lt int, r Result) bool {
	ok := true
	n := 0
	texts(r, func(s string, b []byte) { n += len(s) + len(b) }, func(size int) { ok = ok && size <= b.o.MaxBinaryBytes })
	if !ok {
		return false
	}
	if n > lc {
		// Bytes over: count the characters.
		n = 0
		texts(r, func(s string, b []byte) { n += utf8.RuneCountInString(s) + utf8.RuneCount(b) }, func(int) {})
		if n > lc {
			return false
		}
	}
	if 2*n <= lt {
		return true
	}
	tokens := 0
	texts(r, func(s string, b []byte) {
		if b != nil {
			s = string(b)
		}
		tokens += budget.CountTokens(s)
	}, func(int) {})
	return tokens <= lt
}

// newDoc reads r for bounding.
func (b *Bounder) newDoc(r Result) (*doc, error) {
	d := &doc{in: r}
	var st *jtree.Tree
	if r.Structured != nil {
		t, err := jtree.Parse(r.Structured, MaxDepth)
		if err != nil {
			err = jsonError(err)
			hasText := false
			for _, bl := range r.Content {
				hasText = hasText || bl.Type == TypeText
			}
			if !hasText {
				return nil, fmt.Errorf("result: structured content: %w", err)
			}
			d.dropped = err
			d.in.Structured = nil
			r.Structured = nil
		} else {
			st = t
		}
	}
	if st != nil && mirrors(r.Content, st) {
		d.shape, d.tree, d.structured = shapeJSON, st, true
		return d, nil
	}
	if st == nil && len(r.Content) == 1 && r.Content[0].Type == TypeText {
		text := r.Content[0].Text
		if t := parseText(text); t != nil {
			d.shape, d.tree = shapeJSON, t
		} else {
			d.shape, d.text = shapeText, text
		}
		return d, nil
	}
	return d, b.blocksDoc(d, st)
}

// mirrors reports whether content is empty or only text blocks each
// holding the JSON of t.
func mirrors(content []Block, t *jtree.Tree) bool {
	for _, bl := range content {
		if bl.Type != TypeText {
			return false
		}
		if bl.Text == string(t.Src) {
			continue
		}
		if jtree.Valid([]byte(bl.Text), MaxDepth) != nil || !bytes.Equal(jtree.Compact([]byte(bl.Text)), t.Src) {
			return false
		}
	}
	return true
}

// parseText returns the tree of a text that is a JSON object or array, or
// nil.
func parseText(s string) *jtree.Tree {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i == len(s) || s[i] != '{' && s[i] != '[' {
		return nil
	}
	t, err := jtree.Parse([]byte(s), MaxDepth)
	if err != nil {
		return nil
	}
	return t
}

// blocksDoc makes the document of a content list:
// {"content":[...],"structuredContent":...}. A text that is JSON is a
// value in it; binary data is left out (its size is kept).
func (b *Bounder) blocksDoc(d *doc, st *jtree.Tree) error {
	d.shape = shapeBlocks
	d.jsonText = make([]bool, len(d.in.Content))
	var out []byte
	out = append(out, `{"content":[`...)
	str := func(name, v string) {
		if v != "" {
			out = append(out, ',', '"')
			out = append(out, name...)
			out = append(out, '"', ':')
			out = jtree.AppendString(out, v)
		}
	}
	text := func(i int, s string) {
		out = append(out, `,"text":`...)
		if t := parseText(s); t != nil {
			d.jsonText[i] = true
			out = append(out, t.Src...)
		} else {
			out = jtree.AppendString(out, s)
		}
	}
	for i, bl := range d.in.Content {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":`...)
		out = jtree.AppendString(out, bl.Type)
		str("uri", bl.URI)
		str("name", bl.Name)
		str("title", bl.Title)
		str("description", bl.Description)
		str("mimeType", bl.MIMEType)
		switch {
		case isBinary(bl):
			out = append(out, `,"size":`...)
			out = strconv.AppendInt(out, int64(len(bl.Data)), 10)
		case bl.Type == TypeResourceLink:
			if bl.Size > 0 {
				out = append(out, `,"size":`...)
				out = strconv.AppendInt(out, bl.Size, 10)
			}
		default:
			text(i, bl.Text)
		}
		out = append(out, '}')
	}
	out = append(out, ']')
	if st != nil {
		out = append(out, `,"structuredContent":`...)
		out = append(out, st.Src...)
	}
	out = append(out, '}')
	t, err := jtree.Parse(out, MaxDepth+3)
	if err != nil {
		return fmt.Errorf("result: internal error: content document: %w", err)
	}
	d.tree = t
	return nil
}

// isBinary reports whether a block holds binary data.
func isBinary(bl Block) bool {
	return bl.Type == TypeImage || bl.Type == TypeAudio || bl.Type == TypeResource && bl.Data != nil
}
