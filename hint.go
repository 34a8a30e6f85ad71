package bounded

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Paging names the pagination arguments a tool takes, and so the form of the
// next call a hint tells the agent to make.
type Paging uint8

const (
	// ByOffset: the tool takes limit and offset.
	ByOffset Paging = iota
	// ByPage: the tool takes a 0-based page and a pageSize. It must also
	// take an offset: a page cut by a budget no longer ends on a page
	// boundary, and its next call continues by offset.
	ByPage
	// ByCursor: the tool takes limit and an opaque cursor, and the next
	// call continues by NextCursor: after a budget cut, by the cursor of
	// the cut position ([Paged.CursorAt]). It must also take an offset,
	// for pages without a NextCursor (a cut page without CursorAt).
	ByCursor
)

// HintStyle sets how much a hint says.
type HintStyle uint8

const (
	// HintFull is a sentence with the total, the range shown, the pages
	// remaining and the exact next call.
	HintFull HintStyle = iota
	// HintTerse names the range and the next call only.
	HintTerse
	// HintOff writes no hint; the envelope's next arguments still say how
	// to continue. Eager hints make some agents loop.
	HintOff
)

// Arg is one named argument of a tool call.
type Arg struct {
	Name  string
	Value any
}

// Args is an ordered list of tool arguments. It encodes as a JSON object
// whose keys keep their order.
type Args []Arg

// MarshalJSON encodes the arguments as one JSON object, in order, without
// HTML escaping (json.Marshal escapes <, > and & in what MarshalJSON
// returns; a json.Encoder with SetEscapeHTML(false) does not).
func (a Args) MarshalJSON() ([]byte, error) {
	return appendArgs(nil, a)
}

// UnmarshalJSON decodes a JSON object into arguments, keeping the order of
// its keys. Numbers decode as [json.Number], so that an integer argument
// keeps its exact value; other values decode as encoding/json decodes into
// an interface value. A key given twice is an error.
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
			return fmt.Errorf("bounded: argument %q given twice", name)
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
		return appendJSONString(b, v), nil
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
			b = appendJSONString(b, s)
		}
		return append(b, ']'), nil
	}
	enc, err := marshalNoEscape(v)
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

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Call describes the tool call that produced a page, so that a hint can name
// the exact call that continues it.
type Call struct {
	// Tool is the tool's name, e.g. "search_knowledge".
	Tool string
	// Args are the caller's arguments other than pagination ones, in the
	// order the hint writes them, e.g. {"query", "auth"}.
	Args Args
	// Paging is the tool's pagination style.
	Paging Paging
	// DefaultLimit is the tool's default page size: a next call leaves the
	// size argument out when it equals this. 0 always writes it.
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

// Next returns the arguments of the call that reads the page after info,
// or false after the last page: c.Args, then page for ByPage, offset for
// ByOffset or cursor for ByCursor, and the page size unless it is
// c.DefaultLimit. ByPage continues by offset when a cut left the next page
// off a page boundary, and ByCursor when info has no NextCursor. A page
// read from a cursor (info.AfterCursor) continues by cursor whatever
// c.Paging. Following Next from the first page to the last returns every
// item once.
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

// Render writes a call as the agent would type it:
// search_knowledge(query="auth", page=1). Values are written as JSON.
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

// MaxHintValue is the longest value, in bytes of JSON, a hint writes in the
// call it names. A longer argument of the caller's is written <as before>,
// and a longer cursor <pagination.nextCursor> (the response holds it), so
// that long ids and cursors are not repeated whole in a hint, crowding
// results out of the budget. The call's arguments in full are
// [Call.Next]'s.
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
			b = appendJSONString(b, a.cursor)
		default:
			b = strconv.AppendInt(b, int64(a.n), 10)
		}
	}
	return append(b, ')')
}

// Hint returns the sentence that tells an agent where a page sits and the
// exact call that continues it ([Call.Next]), "" for [HintOff]:
//
//	Found 350 results, showing 1-100 (page 1 of 4). 3 pages remain: call search_knowledge(query="auth", page=1) for the next.
//
// Ranges and pages are 1-based; the call's arguments are as the tool takes
// them. Past the end, it names the last page; a lower-bound total reads
// "10,000+"; a clamped limit names the maximum used; long values are
// written by reference ([MaxHintValue]).
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
		switch {
		case info.AfterCursor && style == HintTerse:
			count(info.Returned)
			str(" after the cursor.")
		case info.AfterCursor:
			// Positions are as of the cursor's issue: not stated.
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
			case info.TotalKind != TotalExact || info.AfterCursor:
				str(" More remain")
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
