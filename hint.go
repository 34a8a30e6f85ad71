package bounded

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
	// ByCursor: the tool takes limit and an opaque cursor.
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

// MarshalJSON encodes the arguments as one JSON object, in order.
func (a Args) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, arg := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(arg.Name)
		if err != nil {
			return nil, err
		}
		v, err := marshalNoEscape(arg.Value)
		if err != nil {
			return nil, fmt.Errorf("bounded: argument %s: %w", arg.Name, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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

// Next returns the whole argument list of the call that fetches the page
// after info, and false when there is none. The list is the caller's Args
// followed by the pagination arguments:
//   - ByPage, when the next page starts on a page boundary: page (and
//     pageSize unless it is the default);
//   - ByPage after a cut that left the next item off a boundary, and
//     ByOffset: offset (and limit unless it is the default);
//   - ByCursor, or any style when info has a NextCursor and the style is
//     ByCursor: cursor (and limit unless it is the default).
//
// Following Next from the first page to the last returns every item once.
func (c Call) Next(info PageInfo) (Args, bool) {
	if !info.HasMore {
		return nil, false
	}
	return c.at(info, info.NextOffset, info.NextCursor), true
}

// at returns the arguments of the call that fetches the page of info.Limit
// items starting at offset (or at cursor, for cursor tools when one is given).
func (c Call) at(info PageInfo, offset int, cursor string) Args {
	out := make(Args, 0, len(c.Args)+2)
	out = append(out, c.Args...)
	sizeName := orDefault(c.LimitArg, "limit")
	switch {
	case c.Paging == ByCursor && cursor != "":
		out = append(out, Arg{orDefault(c.CursorArg, "cursor"), cursor})
	case c.Paging == ByPage && info.Limit > 0 && offset%info.Limit == 0:
		out = append(out, Arg{orDefault(c.PageArg, "page"), offset / info.Limit})
		sizeName = orDefault(c.PageSizeArg, "pageSize")
	default:
		out = append(out, Arg{orDefault(c.OffsetArg, "offset"), offset})
		if c.Paging == ByPage {
			sizeName = orDefault(c.PageSizeArg, "pageSize")
		}
	}
	if info.Limit != c.DefaultLimit || c.DefaultLimit == 0 {
		out = append(out, Arg{sizeName, info.Limit})
	}
	return out
}

// Render writes a call as the agent would type it:
// search_knowledge(query="auth", page=1). Values are written as JSON.
func (c Call) Render(args Args) string {
	var b strings.Builder
	b.WriteString(c.Tool)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name)
		b.WriteByte('=')
		v, err := marshalNoEscape(a.Value)
		if err != nil {
			v = []byte(strconv.Quote(fmt.Sprint(a.Value)))
		}
		b.Write(v)
	}
	b.WriteByte(')')
	return b.String()
}

// Hint returns the sentence that tells an agent where a page sits and the
// exact call that continues it, in the given style ("" for [HintOff]):
//
//	Found 350 results, showing 1-100 (page 1 of 4). 3 pages remain: call search_knowledge(query="auth", page=1) for the next.
//
// A last page says so; an empty result set says "No results."; an offset
// past the end names the call for the last page; a lower-bound total is
// written "10,000+"; a clamped limit is reported with the maximum used.
// Pages and ranges are written 1-based for people; the arguments in the call
// are exactly what the tool takes (0-based pages).
func (c Call) Hint(info PageInfo, style HintStyle) string {
	if style == HintOff {
		return ""
	}
	var b strings.Builder
	total := FormatCount(info.Total)
	switch info.TotalKind {
	case TotalAtLeast:
		total += "+"
	}
	noun := "results"
	if info.Total == 1 && info.TotalKind == TotalExact {
		noun = "result"
	}
	first, last := info.Offset+1, info.Offset+info.Returned
	switch {
	case info.Total == 0 && info.Returned == 0 && info.TotalKind != TotalAtLeast:
		b.WriteString("No results.")
	case info.Returned == 0:
		// Past the end (or an empty page of a lower-bound total).
		lastPage := c.at(info, info.LastPageOffset(), "")
		if style == HintTerse {
			fmt.Fprintf(&b, "Offset %s is past the end (%s %s). Last page: %s", FormatCount(info.Offset), total, noun, c.Render(lastPage))
			break
		}
		fmt.Fprintf(&b, "Found %s %s; offset %s is past the end. ", total, noun, FormatCount(info.Offset))
		if c.Paging == ByPage && info.Limit > 0 {
			fmt.Fprintf(&b, "The last page is page %d of %d: call %s.", info.LastPageOffset()/info.Limit+1, info.TotalPages(), c.Render(lastPage))
		} else {
			fmt.Fprintf(&b, "The last page starts at offset %s: call %s.", FormatCount(info.LastPageOffset()), c.Render(lastPage))
		}
	default:
		if style == HintTerse {
			fmt.Fprintf(&b, "%s-%s of %s.", FormatCount(first), FormatCount(last), total)
		} else {
			if info.TotalKind == TotalUnknown {
				fmt.Fprintf(&b, "Showing %s-%s", FormatCount(first), FormatCount(last))
			} else {
				fmt.Fprintf(&b, "Found %s %s, showing %s-%s", total, noun, FormatCount(first), FormatCount(last))
			}
			if c.Paging == ByPage && info.Limit > 0 && info.Offset%info.Limit == 0 && info.TotalKind == TotalExact {
				fmt.Fprintf(&b, " (page %d of %d)", info.PageNumber()+1, info.TotalPages())
			}
			b.WriteByte('.')
		}
		next, ok := c.Next(info)
		switch {
		case !ok:
			if style != HintTerse {
				b.WriteString(" This is the last page.")
			} else {
				b.WriteString(" Last page.")
			}
		case style == HintTerse:
			fmt.Fprintf(&b, " Next: %s", c.Render(next))
		default:
			b.WriteByte(' ')
			switch n := info.PagesRemaining(); {
			case info.TotalKind != TotalExact:
				b.WriteString("More remain")
			case n == 1:
				b.WriteString("1 page remains")
			default:
				fmt.Fprintf(&b, "%d pages remain", n)
			}
			fmt.Fprintf(&b, ": call %s for the next.", c.Render(next))
		}
	}
	if info.Clamped && style != HintTerse {
		fmt.Fprintf(&b, " The limit %s is over the maximum; %s was used.", FormatCount(info.RequestedLimit), FormatCount(info.Limit))
	}
	return b.String()
}
