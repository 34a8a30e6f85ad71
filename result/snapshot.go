package result

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// A value over splitBytes is stored in segments of about chunkBytes: a
// container's children, a text's runes. Smaller values are stored whole
// inside their parent's segment, or in the header.
const (
	splitBytes = 32 << 10
	chunkBytes = 16 << 10
)

// Kinds of a desc beside '{', '[' and '"'.
const (
	kindScalar byte = 0   // a number, true, false or null
	kindText   byte = 't' // the plain text of a shapeText document
)

// desc describes a stored value: whole in Raw, or split into segments
// under its pointer.
type desc struct {
	Kind byte `json:"k"`
	// Count is a container's children or a string's runes; Lines a
	// string's lines; Runes the value's runes as compact JSON (a text's
	// own runes).
	Count int  `json:"n,omitempty"`
	Lines int  `json:"l,omitempty"`
	Runes int  `json:"r,omitempty"`
	Split bool `json:"s,omitempty"`
	// Raw is the compact JSON of a value not split (a text's text).
	Raw []byte `json:"-"`
}

// meta is a snapshot's Header.Meta.
type meta struct {
	Shape byte    `json:"s"`
	Root  desc    `json:"r"`
	Cuts  []mcut  `json:"c,omitempty"`
	Blobs []mblob `json:"b,omitempty"`
}

// mcut is a cut of the preview, for the walk of what it left out.
type mcut struct {
	Ptr  string `json:"p"`
	Path []int  `json:"i"`
	Kind byte   `json:"k"`
	From int    `json:"f,omitempty"`
	To   int    `json:"t,omitempty"`
	Line int    `json:"l,omitempty"`
	Char int    `json:"c,omitempty"`
}

// mblob is a binary block, stored in segment blobNode(Index).
type mblob struct {
	Index    int    `json:"i"`
	Type     string `json:"t"`
	MIMEType string `json:"m,omitempty"`
	URI      string `json:"u,omitempty"`
	Size     int    `json:"n"`
}

func blobNode(i int) string { return "#blob/" + strconv.Itoa(i) }

// encodeMeta writes m: its JSON's length, its JSON, then the root's Raw.
func encodeMeta(m *meta) ([]byte, error) {
	j, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(make([]byte, 0, len(j)+len(m.Root.Raw)+4), uint64(len(j)))
	out = append(out, j...)
	return append(out, m.Root.Raw...), nil
}

var errMeta = errors.New("result: snapshot header is corrupt")

func decodeMeta(b []byte) (*meta, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, errMeta
	}
	m := &meta{}
	if err := json.Unmarshal(b[k:k+int(n)], m); err != nil {
		return nil, fmt.Errorf("%w: %w", errMeta, err)
	}
	if !m.Root.Split {
		m.Root.Raw = b[k+int(n):]
	}
	return m, nil
}

// builder cuts a document into segments.
type builder struct {
	t     *jtree.Tree
	segs  []Segment
	bytes int64
}

func (s *builder) emit(node string, p Pos, data []byte) {
	s.segs = append(s.segs, Segment{Node: node, Pos: p, Data: data})
	s.bytes += int64(len(data))
}

// Item flags of a container segment.
const (
	itemKey  = 1 // a member: the key, as written, comes first
	itemStub = 2 // a split value: its desc, not its JSON
)

// appendItem appends one child to a container segment.
func appendItem(b, key []byte, d desc) []byte {
	var flags byte
	if key != nil {
		flags |= itemKey
	}
	if d.Split {
		flags |= itemStub
	}
	b = append(b, flags)
	if key != nil {
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
	}
	if d.Split {
		b = append(b, d.Kind)
		b = binary.AppendUvarint(b, uint64(d.Count))
		b = binary.AppendUvarint(b, uint64(d.Lines))
		return binary.AppendUvarint(b, uint64(d.Runes))
	}
	b = binary.AppendUvarint(b, uint64(len(d.Raw)))
	return append(b, d.Raw...)
}

// item is one child read back from a container segment.
type item struct {
	key []byte
	d   desc
}

// readItems decodes a container segment.
func readItems(b []byte) ([]item, error) {
	var out []item
	uv := func() int {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > 1<<53 {
			b = nil
			return -1
		}
		b = b[k:]
		return int(v)
	}
	for len(b) > 0 {
		flags := b[0]
		b = b[1:]
		var it item
		if flags&itemKey != 0 {
			n := uv()
			if n < 0 || n > len(b) {
				return nil, errMeta
			}
			it.key, b = b[:n], b[n:]
		}
		if flags&itemStub != 0 {
			if len(b) == 0 {
				return nil, errMeta
			}
			it.d.Kind, b = b[0], b[1:]
			it.d.Split = true
			it.d.Count, it.d.Lines, it.d.Runes = uv(), uv(), uv()
			if it.d.Count < 0 || it.d.Lines < 0 || it.d.Runes < 0 {
				return nil, errMeta
			}
		} else {
			n := uv()
			if n < 0 || n > len(b) {
				return nil, errMeta
			}
			it.d.Raw, b = b[:n], b[n:]
			it.d.Kind = rawKind(it.d.Raw)
		}
		out = append(out, it)
	}
	return out, nil
}

// rawKind is the kind of a compact JSON value.
func rawKind(raw []byte) byte {
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[' || raw[0] == '"') {
		return raw[0]
	}
	return kindScalar
}

// ref names a value by its parent's pointer and its key or index; its
// own pointer is made only for a value split.
type ref struct {
	parent string
	key    []byte
	idx    int
	root   bool
}

func (r ref) ptr() string {
	switch {
	case r.root:
		return ""
	case r.key != nil:
		return r.parent + "/" + jtree.EscapeToken(jtree.Unquote(r.key))
	}
	return r.parent + "/" + strconv.Itoa(r.idx)
}

// node stores the value at start (node n, or -1), which at names, and
// returns its desc.
func (s *builder) node(start, n int, at ref) desc {
	src := s.t.Src
	if n < 0 {
		raw := src[start:jtree.SkipValue(src, start)]
		return desc{Kind: rawKind(raw), Raw: raw}
	}
	nd := s.t.Nodes[n]
	if nd.End-nd.Start <= splitBytes {
		raw := src[nd.Start:nd.End]
		return desc{Kind: raw[0], Raw: raw}
	}
	p := at.ptr()
	if src[start] == '"' {
		lines := s.text(p, jtree.Unquote(src[nd.Start:nd.End]))
		return desc{Kind: '"', Count: int(nd.Count), Lines: lines, Runes: int(nd.Runes), Split: true}
	}
	// Segments are built in chunk and stored at their size.
	chunk := make([]byte, 0, chunkBytes+chunkBytes/4)
	first, idx := 0, 0
	s.t.Children(start, n, func(c jtree.Child) bool {
		d := s.node(c.Start, c.Node, ref{parent: p, key: c.Key, idx: idx})
		chunk = appendItem(chunk, c.Key, d)
		idx++
		if len(chunk) >= chunkBytes {
			s.emit(p, Pos{int64(first), 0}, bytes.Clone(chunk))
			chunk, first = chunk[:0], idx
		}
		return true
	})
	if len(chunk) > 0 {
		s.emit(p, Pos{int64(first), 0}, bytes.Clone(chunk))
	}
	return desc{Kind: src[start], Count: int(nd.Count), Runes: int(nd.Runes), Split: true}
}

// text stores a text in segments under node, each at the line and rune
// where it starts, with its rune offset first, and returns its lines.
func (s *builder) text(node, text string) int {
	line, char, runes := int64(0), int64(0), 0
	for i := 0; i < len(text); {
		j := min(i+chunkBytes, len(text))
		for j < len(text) && !utf8.RuneStart(text[j]) {
			j++
		}
		chunk := text[i:j]
		data := binary.AppendUvarint(make([]byte, 0, len(chunk)+4), uint64(runes))
		s.emit(node, Pos{line, char}, append(data, chunk...))
		n := utf8.RuneCountInString(chunk)
		runes += n
		if nl := strings.Count(chunk, "\n"); nl > 0 {
			line += int64(nl)
			char = int64(utf8.RuneCountInString(chunk[strings.LastIndexByte(chunk, '\n')+1:]))
		} else {
			char += int64(n)
		}
		i = j
	}
	return countLines(text)
}

// countLines counts lines as bounded.ApplyWindow does.
func countLines(s string) int {
	_, info, _ := bounded.ApplyWindow(s, bounded.Window{MaxLines: 1})
	return info.TotalLines
}

// textDesc stores the plain text of a shapeText document.
func (s *builder) textDesc(text string) desc {
	runes := utf8.RuneCountInString(text)
	if len(text) <= splitBytes {
		return desc{Kind: kindText, Count: runes, Lines: countLines(text), Runes: runes, Raw: []byte(text)}
	}
	lines := s.text("", text)
	return desc{Kind: kindText, Count: runes, Lines: lines, Runes: runes, Split: true}
}
