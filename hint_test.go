package bounded

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/driver"
)

var knowledgeCall = Call{
	Tool:         "search_knowledge",
	Args:         Args{{"query", "auth"}},
	Paging:       ByPage,
	DefaultLimit: 100,
}

func TestHint(t *testing.T) {
	byOffset := Call{Tool: "get_backlinks", Args: Args{{"id", "Home"}}, DefaultLimit: 100}
	tests := []struct {
		name  string
		call  Call
		info  PageInfo
		style HintStyle
		want  string
	}{
		{"first page by page number", knowledgeCall, pageInfo(driver.Request{Limit: 100}, 350, 100), HintFull,
			`Found 350 results, showing 1-100 (page 1 of 4). 3 pages remain: call search_knowledge(query="auth", page=1) for the next.`},
		{"second page", knowledgeCall, pageInfo(driver.Request{Limit: 100, Offset: 100}, 350, 100), HintFull,
			`Found 350 results, showing 101-200 (page 2 of 4). 2 pages remain: call search_knowledge(query="auth", page=2) for the next.`},
		{"one page remains", knowledgeCall, pageInfo(driver.Request{Limit: 100, Offset: 200}, 350, 100), HintFull,
			`Found 350 results, showing 201-300 (page 3 of 4). 1 page remains: call search_knowledge(query="auth", page=3) for the next.`},
		{"last page", knowledgeCall, pageInfo(driver.Request{Limit: 100, Offset: 300}, 350, 50), HintFull,
			`Found 350 results, showing 301-350 (page 4 of 4). This is the last page.`},
		{"non-default page size is repeated", knowledgeCall, pageInfo(driver.Request{Limit: 50, Requested: 50}, 120, 50), HintFull,
			`Found 120 results, showing 1-50 (page 1 of 3). 2 pages remain: call search_knowledge(query="auth", page=1, pageSize=50) for the next.`},
		{"budget cut continues by offset, never page+1", knowledgeCall, pageInfo(driver.Request{Limit: 100}, 350, 100).Cut(57), HintFull,
			`Found 350 results, showing 1-57 (page 1 of 4). 293 results remain: call search_knowledge(query="auth", offset=57) for the next.`},
		{"no results", knowledgeCall, pageInfo(driver.Request{Limit: 100}, 0, 0), HintFull, `No results.`},
		{"one result", byOffset, pageInfo(driver.Request{Limit: 100}, 1, 1), HintFull, `Found 1 result, showing 1-1. This is the last page.`},
		{"past the end by page", knowledgeCall, pageInfo(driver.Request{Limit: 100, Offset: 900}, 350, 0), HintFull,
			`Found 350 results; offset 900 is past the end. The last page is page 4 of 4: call search_knowledge(query="auth", page=3).`},
		{"past the end by offset", byOffset, pageInfo(driver.Request{Limit: 100, Offset: 900}, 350, 0), HintFull,
			`Found 350 results; offset 900 is past the end. The last page starts at offset 300: call get_backlinks(id="Home", offset=300).`},
		{"offset style", byOffset, pageInfo(driver.Request{Limit: 100, Offset: 100}, 3000, 100), HintFull,
			`Found 3,000 results, showing 101-200. 28 pages remain: call get_backlinks(id="Home", offset=200) for the next.`},
		{"lower bound", byOffset, pageInfoMore(driver.Request{Limit: 100}, 100, true, 10000), HintFull,
			`Found 10,000+ results, showing 1-100. More remain: call get_backlinks(id="Home", offset=100) for the next.`},
		{"unknown total", byOffset, pageInfoMore(driver.Request{Limit: 100}, 100, true, -1), HintFull,
			`Showing 1-100. More remain: call get_backlinks(id="Home", offset=100) for the next.`},
		{"clamped", byOffset, pageInfo(driver.Request{Limit: 500, Requested: 5000, Clamped: true}, 3, 3), HintFull,
			`Found 3 results, showing 1-3. This is the last page. The limit 5,000 is over the maximum; 500 was used.`},
		{"terse", knowledgeCall, pageInfo(driver.Request{Limit: 100}, 350, 100), HintTerse,
			`1-100 of 350. Next: search_knowledge(query="auth", page=1)`},
		{"terse last", knowledgeCall, pageInfo(driver.Request{Limit: 100, Offset: 300}, 350, 50), HintTerse, `301-350 of 350. Last page.`},
		{"off", knowledgeCall, pageInfo(driver.Request{Limit: 100}, 350, 100), HintOff, ``},
		{"cursor", Call{Tool: "get_response_history", Args: Args{{"endpointId", "e1"}}, Paging: ByCursor, DefaultLimit: 2},
			PageInfo{Total: 9, Limit: 2, Returned: 2, HasMore: true, NextOffset: 2, NextCursor: "Y3Vy"}, HintFull,
			`Found 9 results, showing 1-2. 4 pages remain: call get_response_history(endpointId="e1", cursor="Y3Vy") for the next.`},
		{"quotes and unicode in arguments", Call{Tool: "search_notes", Args: Args{{"query", `O'Brien "x" <é>`}}, DefaultLimit: 20},
			pageInfo(driver.Request{Limit: 20}, 21, 20), HintFull,
			`Found 21 results, showing 1-20. 1 page remains: call search_notes(query="O'Brien \"x\" <é>", offset=20) for the next.`},
	}
	for _, tt := range tests {
		if got := tt.call.Hint(tt.info, tt.style); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestArgsJSON(t *testing.T) {
	a := Args{{"query", "a<b"}, {"tags", []string{"x"}}, {"page", 2}}
	b, err := a.MarshalJSON() // json.Marshal would escape < as \u003c afterwards

	if err != nil {
		t.Fatal(err)
	}
	if want := `{"query":"a<b","tags":["x"],"page":2}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if v, ok := a.Get("page"); !ok || v != 2 {
		t.Errorf("Get(page) = %v, %v", v, ok)
	}
	if _, ok := a.Get("nope"); ok {
		t.Error("Get(nope) found something")
	}
}

// tool simulates a tool handler: it reads pagination arguments the way a
// real handler does and answers from items, cutting pages at cut items when
// cut > 0 (as a budget would).
func tool(t *testing.T, items []int, l Limits, call Call, args Args, cut int) ([]int, PageInfo) {
	t.Helper()
	get := func(name string) int {
		v, ok := args.Get(name)
		if !ok {
			return 0
		}
		return v.(int)
	}
	var p Page
	var err error
	switch {
	case hasArg(args, "offset"):
		p = Page{Limit: get("limit") + get("pageSize"), Offset: get("offset")}
	case call.Paging == ByPage:
		p, err = l.FromPageNumber(get("page"), get("pageSize"))
	default:
		p = Page{Limit: get("limit")}
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Normalize(p)
	if err != nil {
		t.Fatalf("args %v: %v", args, err)
	}
	lo := min(r.Offset, len(items))
	hi := min(lo+r.Limit, len(items))
	info := pageInfo(r, len(items), hi-lo)
	page := items[lo:hi]
	if cut > 0 && len(page) > cut {
		page = page[:cut]
		info = info.Cut(cut)
	}
	return page, info
}

func hasArg(a Args, name string) bool { _, ok := a.Get(name); return ok }

// TestFollowingNextWalksOnce checks the hint's promise: an agent that does
// nothing but make the call the previous response names walks every item
// exactly once, whatever the pagination style, page size and cuts.
func TestFollowingNextWalksOnce(t *testing.T) {
	l := Limits{Default: 10, Max: 25}
	for _, n := range []int{0, 1, 9, 10, 11, 100, 251} {
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		for _, paging := range []Paging{ByOffset, ByPage} {
			for _, size := range []int{0, 1, 3, 10, 25, 40} {
				for _, cut := range []int{0, 1, 4, 7} {
					name := fmt.Sprintf("n=%d/paging=%d/size=%d/cut=%d", n, paging, size, cut)
					call := Call{Tool: "t", Args: Args{{"q", "x"}}, Paging: paging, DefaultLimit: l.Default}
					args := slices.Clone(call.Args)
					if size > 0 {
						if paging == ByPage {
							args = append(args, Arg{"pageSize", size})
						} else {
							args = append(args, Arg{"limit", size})
						}
					}
					var got []int
					for step := 0; ; step++ {
						if step > 2*n+5 {
							t.Fatalf("%s: walk does not end", name)
						}
						page, info := tool(t, items, l, call, args, cut)
						got = append(got, page...)
						next, ok := call.Next(info)
						hint := call.Hint(info, HintFull)
						if !ok {
							break
						}
						if rendered := call.Render(next); !strings.Contains(hint, rendered) {
							t.Fatalf("%s: hint %q does not name the next call %s", name, hint, rendered)
						}
						args = next
					}
					if !slices.Equal(got, items) {
						t.Fatalf("%s: walked %v, want %v", name, got, items)
					}
				}
			}
		}
	}
}

func TestArgsRoundTrip(t *testing.T) {
	in := `{"query":"a<b","tags":["x","y"],"page":2,"big":9007199254740991,"ok":true}`
	var a Args
	if err := a.UnmarshalJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if names := []string{a[0].Name, a[1].Name, a[2].Name, a[3].Name, a[4].Name}; !slices.Equal(names, []string{"query", "tags", "page", "big", "ok"}) {
		t.Errorf("order lost: %v", names)
	}
	out, err := a.MarshalJSON()
	if err != nil || string(out) != in {
		t.Errorf("round trip: got %s, %v; want %s", out, err, in)
	}
	for _, bad := range []string{`[1]`, `{"a":1,"a":2}`, `{"a":}`, `"s"`} {
		var b Args
		if err := b.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("UnmarshalJSON(%s) accepted it: %v", bad, b)
		}
	}
}

// TestHintReferencesLongValues: a hint writes a long argument of the
// caller's <as before> and a long cursor <pagination.nextCursor>, so that
// neither is repeated whole; short values are written as they are, and
// Next keeps every value whole.
func TestHintReferencesLongValues(t *testing.T) {
	long := strings.Repeat("x", MaxHintValue)
	cursor := strings.Repeat("C", MaxHintValue)
	info := PageInfo{Total: 30, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10, NextCursor: cursor}
	c := Call{Tool: "t", Args: Args{{"id", long}, {"q", "short"}}, Paging: ByCursor, DefaultLimit: 10}
	h := c.Hint(info, HintFull)
	if want := `call t(id=<as before>, q="short", cursor=<pagination.nextCursor>) for the next.`; !strings.Contains(h, want) {
		t.Errorf("hint %q, want it to contain %q", h, want)
	}
	next, _ := c.Next(info)
	if v, _ := next.Get("id"); v != long {
		t.Errorf("next id %v, want the whole value", v)
	}
	if v, _ := next.Get("cursor"); v != cursor {
		t.Errorf("next cursor %v, want the whole value", v)
	}
	short := Call{Tool: "t", Args: Args{{"id", long[:MaxHintValue-2]}}, Paging: ByCursor, DefaultLimit: 10}
	info.NextCursor = cursor[:MaxHintValue-2]
	if h := short.Hint(info, HintTerse); !strings.Contains(h, fmt.Sprintf("t(id=%q, cursor=%q)", long[:MaxHintValue-2], cursor[:MaxHintValue-2])) {
		t.Errorf("hint %q, want values of %d bytes of JSON written whole", h, MaxHintValue)
	}
}

// TestHintAfterCursor: a page read from a cursor states the positions of
// the cursor's issue, or none when writes since make them disagree with
// the total, and continues by cursor, whatever the tool's paging.
func TestHintAfterCursor(t *testing.T) {
	info := PageInfo{Total: 30, Limit: 10, Offset: 10, Returned: 10, HasMore: true, NextOffset: 20, NextCursor: "c2", AfterCursor: true}
	atLeast := info
	atLeast.Total, atLeast.TotalKind = 1000, TotalAtLeast
	shrunk := info // 15 deleted before the cursor since its issue
	shrunk.Total = 15
	tests := []struct {
		name   string
		info   PageInfo
		paging Paging
		style  HintStyle
		want   string
	}{
		{"by cursor", info, ByCursor, HintFull, `Found 30 results, showing 11-20. 1 page remains: call t(cursor="c2") for the next.`},
		{"by offset", info, ByOffset, HintFull, `Found 30 results, showing 11-20. 1 page remains: call t(cursor="c2") for the next.`},
		{"by page", info, ByPage, HintFull, `Found 30 results, showing 11-20 (page 2 of 3). 1 page remains: call t(cursor="c2") for the next.`},
		{"capped total", atLeast, ByCursor, HintFull, `Found 1,000+ results, showing 11-20. More remain: call t(cursor="c2") for the next.`},
		{"terse", atLeast, ByCursor, HintTerse, `11-20 of 1,000+. Next: t(cursor="c2")`},
		{"stale positions", shrunk, ByCursor, HintFull, `Found 15 results, showing 10 after the cursor. More remain: call t(cursor="c2") for the next.`},
		{"stale positions, terse", shrunk, ByCursor, HintTerse, `10 after the cursor. Next: t(cursor="c2")`},
	}
	for _, tt := range tests {
		c := Call{Tool: "t", Paging: tt.paging, DefaultLimit: 10}
		if h := c.Hint(tt.info, tt.style); h != tt.want {
			t.Errorf("%s: hint %q, want %q", tt.name, h, tt.want)
		}
		next, _ := c.Next(tt.info)
		if v, ok := next.Get("cursor"); !ok || v != "c2" || len(next) != 1 {
			t.Errorf("%s: next %v, want the cursor alone", tt.name, next)
		}
	}
	pastEnd := PageInfo{Total: 30, Limit: 10, Offset: 40, AfterCursor: true}
	if h := (Call{Tool: "t", DefaultLimit: 10}).Hint(pastEnd, HintFull); h != "Found 30 results; none follow the cursor. The last page: call t(offset=20)." {
		t.Errorf("past the end: %q", h)
	}
}

// TestHintOneNumberFormat: page numbers are written as counts are, with
// thousands separators.
func TestHintOneNumberFormat(t *testing.T) {
	info := PageInfo{Total: 20_000_000, Limit: 10, Offset: 12_340, Returned: 10, HasMore: true, NextOffset: 12_350}
	h := Call{Tool: "t", Paging: ByPage, DefaultLimit: 10}.Hint(info, HintFull)
	if want := "Found 20,000,000 results, showing 12,341-12,350 (page 1,235 of 2,000,000). 1,998,765 pages remain: call t(page=1235) for the next."; h != want {
		t.Errorf("hint %q, want %q", h, want)
	}
}

// TestArgsTwiceClipsName: the error of an argument given twice repeats a
// long name clipped, not whole.
func TestArgsTwiceClipsName(t *testing.T) {
	name := strings.Repeat("n", 1<<20)
	var a Args
	err := a.UnmarshalJSON([]byte(`{"` + name + `":1,"` + name + `":2}`))
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("an argument of %d bytes given twice: an error of %d bytes", len(name), len(fmt.Sprint(err)))
	}
}
