package bounded

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHint renders hints and next calls for fuzzed tools, arguments and
// pages, and walks a result set of fuzzed size by following nothing but the
// next calls, decoded from their JSON as an agent reads them:
//
//   - Hint, Next and Render never panic, whatever the PageInfo (even one no
//     Normalize would build: negative, overflowing, inconsistent);
//   - a hint is valid UTF-8 when the tool name is (argument values are
//     written as JSON), empty exactly with HintOff, and names the exact
//     next call (Render of Next) when there is one;
//   - every next call's arguments survive a JSON round trip (the caller's
//     own arguments unchanged, invalid UTF-8 aside) and start strictly
//     after the current page;
//   - following them from the first page to the last returns every item
//     exactly once, in order, with or without cuts (a budget keeping only
//     the first items of each page) and whatever the paging style, page
//     size, default, maximum and argument names;
//   - a page past the end names a call that lands on the last page.
//
// size, offset, returned and raw fill the PageInfo of the unchecked
// rendering; total, size, def, extra and cut shape the walk;
// flags picks the paging style (bits 0-1), DefaultLimit 0 (bit 2), custom
// argument names (bit 3), the total kind of the raw info (bits 4-5) and
// HasMore of the raw info (bit 6); style picks the hint style.
func FuzzHint(f *testing.F) {
	f.Add("search_knowledge", "auth", uint16(350), uint16(100), uint16(0), uint16(100), int64(0), uint8(99), uint8(100), uint8(0), uint8(1), uint8(0))
	f.Add("get_backlinks", `O'Brien "x" <é> \ %_`, uint16(3000), uint16(7), uint16(20), uint16(3), int64(-1), uint8(9), uint8(40), uint8(2), uint8(0), uint8(1))
	f.Add("t", "\xff\xfe\x00", uint16(0), uint16(0), uint16(0), uint16(0), int64(1<<62), uint8(0), uint8(0), uint8(0), uint8(0x7f), uint8(2))
	f.Add("日本語ツール", "🇯🇵👩‍👩‍👧", uint16(1), uint16(1), uint16(9), uint16(0), int64(-1<<63), uint8(1), uint8(1), uint8(1), uint8(0x1a), uint8(0))
	f.Fuzz(func(t *testing.T, tool, query string, total, size, offset, returned uint16, raw int64, def, extra, cut, flags, style uint8) {
		call := Call{Tool: tool, Args: Args{{"query", query}}, Paging: Paging(flags % 3)}
		if flags&8 != 0 {
			call.LimitArg, call.OffsetArg, call.PageArg, call.PageSizeArg, call.CursorArg = "n", "skip", "p", "per", "c"
		}
		hs := HintStyle(style % 3)

		// Any PageInfo, consistent or not: no panic, valid UTF-8.
		info := PageInfo{
			Total: int(raw), TotalKind: TotalKind(flags >> 4 % 3), Limit: int(int16(size)), Offset: int(int16(offset)),
			Returned: int(returned), HasMore: flags&64 != 0, NextOffset: int(raw >> 32), RequestedLimit: int(raw >> 16),
			Clamped: raw&1 != 0,
		}
		for _, s := range []HintStyle{HintFull, HintTerse, HintOff} {
			h := call.Hint(info, s)
			if utf8.ValidString(tool) && !utf8.ValidString(h) {
				t.Fatalf("Hint(%+v, %d) is not valid UTF-8: %q", info, s, h)
			}
			if (h == "") != (s == HintOff) {
				t.Fatalf("Hint(%+v, %d) = %q", info, s, h)
			}
		}
		if next, ok := call.Next(info); ok {
			_ = call.Render(next)
		}

		// A consistent walk.
		l := Limits{Default: 1 + int(def)%60}
		l.Max = l.Default + int(extra)%200
		if flags&4 == 0 {
			call.DefaultLimit = l.Default
		}
		n := int(total) % 2000
		hintFuzzWalk(t, call, l, n, int(size)%(l.Max+20), int(cut)%(l.Max+1), hs, query)
	})
}

// hintFuzzWalk walks n items with pages of size (0: the default) cut to cut
// items (0: no cut), following only the next calls decoded from JSON, and
// checks the properties FuzzHint lists.
func hintFuzzWalk(t *testing.T, call Call, l Limits, n, size, cut int, style HintStyle, query string) {
	t.Helper()
	wantQuery := string([]rune(query)) // what JSON makes of invalid UTF-8
	args := append(Args(nil), call.Args...)
	if size > 0 {
		args = append(args, Arg{hintFuzzArgName(call.LimitArg, "limit"), size})
		if call.Paging == ByPage {
			args[len(args)-1].Name = hintFuzzArgName(call.PageSizeArg, "pageSize")
		}
	}
	seen := 0
	prevOffset := -1
	for step := 0; ; step++ {
		if step > n+2 {
			t.Fatalf("%d items, size %d, cut %d, %+v: the walk does not end after %d calls", n, size, cut, l, step)
		}
		decoded := hintFuzzRoundTrip(t, args)
		if q, ok := decoded.Get("query"); !ok || q != wantQuery {
			t.Fatalf("the query argument came back as %#v, want %q", q, wantQuery)
		}
		p := hintFuzzPage(t, call, l, decoded)
		r, err := l.Normalize(p)
		if err != nil {
			t.Fatalf("args %v: %v", decoded, err)
		}
		if r.Offset <= prevOffset {
			t.Fatalf("the next call starts at %d, not after the previous page at %d", r.Offset, prevOffset)
		}
		prevOffset = r.Offset
		got := min(r.Limit, max(n-r.Offset, 0))
		info := pageInfo(r, n, got)
		if cut > 0 && got > cut {
			info = info.Cut(cut)
			got = cut
		}
		if r.Offset != seen {
			t.Fatalf("page at offset %d, but %d items were returned so far: an item was skipped or repeated", r.Offset, seen)
		}
		seen += got
		h := call.Hint(info, style)
		next, ok := call.Next(info)
		if !ok {
			if info.HasMore {
				t.Fatalf("%+v: HasMore without a next call", info)
			}
			break
		}
		if style != HintOff {
			hintFuzzNames(t, call, h, next)
		}
		args = next
	}
	if seen != n {
		t.Fatalf("%d items, size %d, cut %d, %+v: the walk returned %d", n, size, cut, l, seen)
	}

	// Past the end: the hint names a call for the last page.
	if n == 0 {
		return
	}
	r, err := l.Normalize(Page{Limit: size, Offset: n + cut})
	if err != nil {
		t.Fatal(err)
	}
	info := pageInfo(r, n, 0)
	last := call.at(info, info.LastPageOffset(), "")
	hintFuzzNames(t, call, call.Hint(info, HintFull), last)
	lp, err := l.Normalize(hintFuzzPage(t, call, l, hintFuzzRoundTrip(t, last)))
	if err != nil {
		t.Fatal(err)
	}
	if lp.Offset != info.LastPageOffset() || lp.Offset >= n {
		t.Fatalf("the last page's call %s starts at %d, want %d (of %d items)", call.Render(last), lp.Offset, info.LastPageOffset(), n)
	}
}

// hintFuzzNames checks that hint h names the call of args to c.Tool: each
// argument as the call renders it, but a value longer than MaxHintValue
// by reference (<as before>, a cursor <pagination.nextCursor>).
func hintFuzzNames(t *testing.T, c Call, h string, args Args) {
	t.Helper()
	if !strings.Contains(h, c.Tool+"(") {
		t.Fatalf("hint %q does not name the tool of the call %s", h, c.Render(args))
	}
	for _, a := range args {
		want := string(appendCallArg(nil, a))
		if len(want)-len(a.Name)-1 > MaxHintValue {
			want = a.Name + "=<as before>"
			if a.Name == hintFuzzArgName(c.CursorArg, "cursor") {
				want = a.Name + "=<pagination.nextCursor>"
			}
		}
		if !strings.Contains(h, want) {
			t.Fatalf("hint %q does not name %s of the call %s", h, want, c.Render(args))
		}
	}
}

func hintFuzzArgName(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

// hintFuzzRoundTrip encodes args as a tool call's JSON and decodes them back, as an
// agent passes them on.
func hintFuzzRoundTrip(t *testing.T, args Args) Args {
	t.Helper()
	b, err := args.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON(%v): %v", args, err)
	}
	if !json.Valid(b) {
		t.Fatalf("MarshalJSON(%v) = %q: invalid JSON", args, b)
	}
	var out Args
	if err := out.UnmarshalJSON(b); err != nil {
		t.Fatalf("UnmarshalJSON(%s): %v", b, err)
	}
	return out
}

// hintFuzzPage reads the page a tool handler would from decoded arguments.
func hintFuzzPage(t *testing.T, c Call, l Limits, a Args) Page {
	t.Helper()
	get := func(name string) (int, bool) {
		v, ok := a.Get(name)
		if !ok {
			return 0, false
		}
		n, err := v.(json.Number).Int64()
		if err != nil {
			t.Fatalf("argument %s = %v: %v", name, v, err)
		}
		return int(n), true
	}
	size, _ := get(hintFuzzArgName(c.LimitArg, "limit"))
	if c.Paging == ByPage {
		size, _ = get(hintFuzzArgName(c.PageSizeArg, "pageSize"))
	}
	if off, ok := get(hintFuzzArgName(c.OffsetArg, "offset")); ok {
		return Page{Limit: size, Offset: off}
	}
	if c.Paging == ByPage {
		page, _ := get(hintFuzzArgName(c.PageArg, "page"))
		p, err := l.FromPageNumber(page, size)
		if err != nil {
			t.Fatalf("args %v: %v", a, err)
		}
		return p
	}
	return Page{Limit: size}
}
