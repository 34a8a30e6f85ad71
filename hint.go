package bounded

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// Paging is the form of a tool's pagination arguments, and so of its next
// call. A page read from a cursor continues by cursor in every form.
type Paging uint8

const (
	// ByCursor, the zero value: the tool takes limit, cursor and offset,
	// and continues by cursor, or by offset for a page without a
	// NextCursor.
	ByCursor Paging = iota
	// ByOffset: the tool takes limit and offset, and continues by offset.
	ByOffset
	// ByPage: the tool takes a 0-based page and pageSize, and an offset to
	// continue a page a budget cut.
	ByPage
)

// HintStyle sets how much a hint says.
type HintStyle uint8

const (
	// HintFull names the total, the range shown, the pages remaining and
	// the next call.
	HintFull HintStyle = iota
	// HintTerse names the range and the next call only.
	HintTerse
	// HintOff writes no hint; the envelope's next still says how to
	// continue.
	HintOff
)

// Arg is one named argument of a tool call.
type Arg struct {
	Name  string
	Value any
}

// Args is an ordered list of tool arguments, a JSON object in that order.
type Args []Arg

// MarshalJSON encodes a as a JSON object, in order, without HTML escaping.
func (a Args) MarshalJSON() ([]byte, error) {
	return appendArgs(nil, a)
}

// UnmarshalJSON decodes a JSON object into a, in order, numbers as
// [json.Number]. A key given twice is an error.
func (a *Args) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("bounded: arguments must be a JSON object, not %v", tok)
	}
	out := Args{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // object keys are always strings
		if _, dup := out.Get(name); dup {
			return fmt.Errorf("bounded: argument %q given twice", clipName(name))
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("bounded: argument %q: %w", name, err)
		}
		out = append(out, Arg{Name: name, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*a = out
	return nil
}

// appendArgValue appends v as JSON without HTML escaping, without reflection
// for the values Call.Next writes.
func appendArgValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return jsonenc.AppendString(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return nil, fmt.Errorf("invalid number %q", string(v))
		}
		return append(b, v...), nil
	case []string:
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, s)
		}
		return append(b, ']'), nil
	}
	enc, err := jsonenc.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// Get returns the value of the argument called name, and whether there is one.
func (a Args) Get(name string) (any, bool) {
	for _, arg := range a {
		if arg.Name == name {
			return arg.Value, true
		}
	}
	return nil, false
}

// Call is the tool call that produced a page, for naming the call that
// continues it.
type Call struct {
	// Tool is the tool's name, e.g. "search_knowledge".
	Tool string
	// Args are the caller's arguments but pagination, in the order written.
	Args Args
	// Paging is the tool's pagination form: by cursor unless set.
	Paging Paging
	// DefaultLimit is the tool's default page size, which a next call
	// leaves out; 0 always writes it.
	DefaultLimit int
	// LimitArg, OffsetArg, PageArg, PageSizeArg and CursorArg name the
	// pagination arguments; empty means "limit", "offset", "page",
	// "pageSize" and "cursor".
	LimitArg, OffsetArg, PageArg, PageSizeArg, CursorArg string
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Next returns the arguments of the call for the page after info, or false
// after the last: c.Args, the position as c.Paging takes it, and the page
// size unless it is c.DefaultLimit. A page read from a cursor continues by
// cursor.
func (c Call) Next(info PageInfo) (Args, bool) {
	if !info.HasMore {
		return nil, false
	}
	return c.at(info, info.NextOffset, info.NextCursor), true
}

// at returns the arguments of the call that fetches the page of info.Limit
// items starting at offset (or at cursor, for cursor tools when one is given).
func (c Call) at(info PageInfo, offset int, cursor string) Args {
	p, n := c.paging(info, offset, cursor)
	out := make(Args, 0, len(c.Args)+2)
	out = append(out, c.Args...)
	for _, a := range p[:n] {
		if a.isCursor {
			out = append(out, Arg{a.name, a.cursor})
		} else {
			out = append(out, Arg{a.name, a.n})
		}
	}
	return out
}

// pagingArg is one pagination argument of a call: an int, or a cursor.
type pagingArg struct {
	name     string
	n        int
	cursor   string
	isCursor bool
}

// paging returns the pagination arguments that at appends to the caller's
// arguments, in order: the first n of p.
func (c Call) paging(info PageInfo, offset int, cursor string) (p [2]pagingArg, n int) {
	sizeName := orDefault(c.LimitArg, "limit")
	switch {
	case cursor != "" && (c.Paging == ByCursor || info.AfterCursor):
		p[0] = pagingArg{name: orDefault(c.CursorArg, "cursor"), cursor: cursor, isCursor: true}
		if c.Paging == ByPage {
			sizeName = orDefault(c.PageSizeArg, "pageSize")
		}
	case c.Paging == ByPage && info.Limit > 0 && offset%info.Limit == 0:
		p[0] = pagingArg{name: orDefault(c.PageArg, "page"), n: offset / info.Limit}
		sizeName = orDefault(c.PageSizeArg, "pageSize")
	default:
		p[0] = pagingArg{name: orDefault(c.OffsetArg, "offset"), n: offset}
		if c.Paging == ByPage {
			sizeName = orDefault(c.PageSizeArg, "pageSize")
		}
	}
	n = 1
	if info.Limit != c.DefaultLimit || c.DefaultLimit == 0 {
		p[1] = pagingArg{name: sizeName, n: info.Limit}
		n = 2
	}
	return p, n
}

// Render returns the call with args as an agent types it, values in JSON.
func (c Call) Render(args Args) string {
	var buf [128]byte
	return string(c.appendCall(buf[:0], args))
}

func (c Call) appendCall(b []byte, args Args) []byte {
	b = append(b, c.Tool...)
	b = append(b, '(')
	for i, a := range args {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendCallArg(b, a)
	}
	return append(b, ')')
}

// appendCallArg appends one argument of a rendered call, name=value.
func appendCallArg(b []byte, a Arg) []byte {
	b = append(b, a.Name...)
	b = append(b, '=')
	mark := len(b)
	out, err := appendArgValue(b, a.Value)
	if err != nil {
		return strconv.AppendQuote(b[:mark], fmt.Sprint(a.Value))
	}
	return out
}

// MaxHintValue is the longest JSON value, in bytes, a hint writes: a longer
// argument is written <as before>, a longer cursor <pagination.nextCursor>.
const MaxHintValue = 40

// appendCallAt appends the call c.at(info, offset, cursor) as a hint writes
// it: long values by reference (see [MaxHintValue]).
func (c Call) appendCallAt(b []byte, info PageInfo, offset int, cursor string) []byte {
	b = append(b, c.Tool...)
	b = append(b, '(')
	for i, a := range c.Args {
		if i > 0 {
			b = append(b, ", "...)
		}
		mark := len(b)
		if b = appendCallArg(b, a); len(b)-mark-len(a.Name)-1 > MaxHintValue {
			b = append(append(b[:mark], a.Name...), "=<as before>"...)
		}
	}
	p, n := c.paging(info, offset, cursor)
	for i, a := range p[:n] {
		if i > 0 || len(c.Args) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, a.name...)
		b = append(b, '=')
		switch {
		case a.isCursor && len(a.cursor)+2 > MaxHintValue:
			b = append(b, "<pagination.nextCursor>"...)
		case a.isCursor:
			b = jsonenc.AppendString(b, a.cursor)
		default:
			b = strconv.AppendInt(b, int64(a.n), 10)
		}
	}
	return append(b, ')')
}

// Hint returns the sentence telling an agent where the page sits and the
// call that continues it ([Call.Next]), or "" for [HintOff]. Past the end,
// it names the last page; [MaxHintValue] shortens long values.
func (c Call) Hint(info PageInfo, style HintStyle) string {
	if style == HintOff {
		return ""
	}
	var buf [192]byte
	return string(c.appendHint(buf[:0], info, style))
}

// appendHint appends c.Hint(info, style) to b.
func (c Call) appendHint(b []byte, info PageInfo, style HintStyle) []byte {
	if style == HintOff {
		return b
	}
	count := func(n int) { b = appendCount(b, n) }
	str := func(s string) { b = append(b, s...) }
	total := func() {
		count(info.Total)
		if info.TotalKind == TotalAtLeast {
			str("+")
		}
	}
	noun := "results"
	if info.Total == 1 && info.TotalKind == TotalExact {
		noun = "result"
	}
	// showing writes the start of a page's sentence: the total, when
	// counted, and "showing".
	showing := func() {
		if info.TotalKind == TotalUnknown {
			str("Showing ")
			return
		}
		str("Found ")
		total()
		str(" ")
		str(noun)
		str(", showing ")
	}
	first, last := info.Offset+1, info.Offset+info.Returned
	switch {
	case info.Total == 0 && info.Returned == 0 && info.TotalKind != TotalAtLeast:
		str("No results.")
	case info.Returned == 0 && info.AfterCursor:
		// Nothing follows the cursor: its offset may be stale, the total
		// is not.
		if style == HintTerse {
			str("None after the cursor (")
			total()
			str(" ")
			str(noun)
			str("). Last page: ")
		} else {
			str("Found ")
			total()
			str(" ")
			str(noun)
			str("; none follow the cursor. The last page: call ")
		}
		b = c.appendCallAt(b, info, info.LastPageOffset(), "")
		if style != HintTerse {
			str(".")
		}
	case info.Returned == 0:
		// Past the end (or an empty page of a lower-bound total).
		lastOffset := info.LastPageOffset()
		if style == HintTerse {
			str("Offset ")
			count(info.Offset)
			str(" is past the end (")
			total()
			str(" ")
			str(noun)
			str("). Last page: ")
			b = c.appendCallAt(b, info, lastOffset, "")
			break
		}
		str("Found ")
		total()
		str(" ")
		str(noun)
		str("; offset ")
		count(info.Offset)
		str(" is past the end. ")
		if c.Paging == ByPage && info.Limit > 0 {
			str("The last page is page ")
			count(info.LastPageOffset()/info.Limit + 1)
			str(" of ")
			count(info.TotalPages())
		} else {
			str("The last page starts at offset ")
			count(info.LastPageOffset())
		}
		str(": call ")
		b = c.appendCallAt(b, info, lastOffset, "")
		str(".")
	default:
		// A page read from a cursor states the positions of the cursor's
		// issue, unless writes since make them disagree with the total.
		stale := info.AfterCursor && info.TotalKind == TotalExact && (last > info.Total || info.HasMore && info.NextOffset >= info.Total)
		switch {
		case stale && style == HintTerse:
			count(info.Returned)
			str(" after the cursor.")
		case stale:
			showing()
			count(info.Returned)
			str(" after the cursor.")
		case style == HintTerse:
			count(first)
			str("-")
			count(last)
			str(" of ")
			total()
			str(".")
		default:
			showing()
			count(first)
			str("-")
			count(last)
			if c.Paging == ByPage && info.Limit > 0 && info.Offset%info.Limit == 0 && info.TotalKind == TotalExact {
				str(" (page ")
				count(info.PageNumber() + 1)
				str(" of ")
				count(info.TotalPages())
				str(")")
			}
			str(".")
		}
		switch {
		case !info.HasMore && style == HintTerse:
			str(" Last page.")
		case !info.HasMore:
			str(" This is the last page.")
		case style == HintTerse:
			str(" Next: ")
			b = c.appendCallAt(b, info, info.NextOffset, info.NextCursor)
		default:
			switch n := info.PagesRemaining(); {
			case info.TotalKind != TotalExact || stale:
				str(" More remain")
			case info.Returned < info.Limit:
				// The budget cut the page: pages of Limit would not fit
				// either, so count the results.
				str(" ")
				count(info.Total - info.NextOffset)
				str(" ")
				str(noun)
				str(" remain")
			case n == 1:
				str(" 1 page remains")
			default:
				str(" ")
				count(n)
				str(" pages remain")
			}
			str(": call ")
			b = c.appendCallAt(b, info, info.NextOffset, info.NextCursor)
			str(" for the next.")
		}
	}
	if info.Clamped && style != HintTerse {
		str(" The limit ")
		count(info.RequestedLimit)
		str(" is over the maximum; ")
		count(info.Limit)
		str(" was used.")
	}
	return b
}

// clipName returns an argument's name as an error repeats it: at most
// MaxHintValue bytes, clipped with the marker.
func clipName(name string) string {
	c, _ := Clip(name, MaxHintValue)
	return c
}
