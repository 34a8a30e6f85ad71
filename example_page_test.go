package bounded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// A tool that lists tasks returns 20 by default and at most 50, whatever the
// agent asks.
func ExampleLimits_Normalize() {
	limits := bounded.Limits{Default: 20, Max: 50}

	r, _ := limits.Normalize(bounded.Page{}) // no limit asked: the default
	fmt.Printf("limit %d offset %d\n", r.Limit, r.Offset)

	r, _ = limits.Normalize(bounded.Page{Limit: 500, Offset: 40}) // too many: clamped
	fmt.Printf("limit %d offset %d clamped %v (asked %d)\n", r.Limit, r.Offset, r.Clamped, r.Requested)

	_, err := limits.Normalize(bounded.Page{Offset: -5})
	fmt.Println(err, errors.Is(err, bounded.ErrInvalidPage))
	// Output:
	// limit 20 offset 0
	// limit 50 offset 40 clamped true (asked 500)
	// bounded: invalid page: offset -5 is negative true
}

// A tool that takes a 0-based page and a pageSize turns them into a Page.
// A pageSize over the maximum is clamped by Normalize, and the offset is
// counted in pages of the maximum, so that pages 0, 1, 2... still follow
// each other.
func ExampleLimits_FromPageNumber() {
	limits := bounded.Limits{Default: 25, Max: 100}

	p, _ := limits.FromPageNumber(2, 0) // the third page of the default size
	fmt.Printf("%+v\n", p)

	p, _ = limits.FromPageNumber(3, 250) // pages of 250 are pages of 100
	r, _ := limits.Normalize(p)
	fmt.Printf("%+v -> limit %d offset %d clamped %v\n", p, r.Limit, r.Offset, r.Clamped)
	// Output:
	// {Limit:0 Offset:50 Cursor: Count:capped CountCap:0}
	// {Limit:250 Offset:300 Cursor: Count:capped CountCap:0} -> limit 100 offset 300 clamped true
}

// A capped count stops at ten pages' worth of items, and never below 100.
func ExampleDefaultCountCap() {
	for _, limit := range []int{5, 20, 100, 500_000} {
		fmt.Println(limit, bounded.DefaultCountCap(limit))
	}

	// A page that asks for a capped count gets that cap.
	r, _ := bounded.Limits{Default: 20, Max: 100}.Normalize(bounded.Page{Count: bounded.CountCapped})
	fmt.Println(r.Count, r.CountCap)
	// Output:
	// 5 100
	// 20 200
	// 100 1000
	// 500000 1000000
	// capped 200
}

// A budget kept 3 of the 10 search results of a page: the page now ends
// after them, and the next one starts at the first result cut.
func ExamplePageInfo_Cut() {
	hits := make([]int, 87) // the ids of a search's 87 results
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: 20}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	info := pg.Page // results 21-30 of 87

	cut := info.Cut(3)
	fmt.Printf("returned %d, next offset %d -> %d\n", info.Returned, info.NextOffset, cut.NextOffset)
	fmt.Println("has more:", cut.HasMore, "aligned:", cut.Aligned())
	// Output:
	// returned 10, next offset 30 -> 23
	// has more: true aligned: false
}

func ExamplePageInfo_TotalPages() {
	hits := make([]int, 87) // the ids of a search's 87 results
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: 20}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	info := pg.Page // results 21-30 of 87

	fmt.Printf("page %d of %d, %d pages remain, the last starts at %d\n",
		info.PageNumber()+1, info.TotalPages(), info.PagesRemaining(), info.LastPageOffset())
	// Output:
	// page 3 of 9, 6 pages remain, the last starts at 80
}

// An offset past the end returns nothing and says so: the hint of such a page
// names the last page instead.
func ExamplePageInfo_PastEnd() {
	hits := make([]int, 87) // the ids of a search's 87 results
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: 120}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	info := pg.Page
	fmt.Println(info.PastEnd(), info.HasMore, info.LastPageOffset())
	// Output:
	// true false 80
}

// All walks every page of a paged method, here a store of 7 tasks read 3 at
// a time, following each page's NextOffset.
func ExampleAll() {
	tasks := []string{"write spec", "review PR", "fix flaky test", "update deps", "tag release", "café menu", "reply to Zoë"}
	limits := bounded.Limits{Default: 3, Max: 10}
	fetch := func(ctx context.Context, p bounded.Page) (bounded.Paged[string], error) {
		fmt.Printf("(fetch offset %d)\n", p.Offset)
		return bounded.FetchPage(ctx, bounded.FromSlice(tasks), "", p, limits, driver.Codec{})
	}
	for t, err := range bounded.All(context.Background(), bounded.Page{}, fetch) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(t)
	}
	// Output:
	// (fetch offset 0)
	// write spec
	// review PR
	// fix flaky test
	// (fetch offset 3)
	// update deps
	// tag release
	// café menu
	// (fetch offset 6)
	// reply to Zoë
}

// A query that counts its matches exactly gets the page's pagination from
// FetchPage, as every store does.
func ExampleFromFunc_pagination() {
	// LIMIT r.Limit OFFSET r.Offset over 63 invoices, and count(*).
	invoices := func(_ context.Context, r driver.Request) ([]int, int, error) {
		ids := make([]int, 0, r.Limit)
		for id := r.Offset + 1; id <= min(r.Offset+r.Limit, 63); id++ {
			ids = append(ids, id)
		}
		return ids, 63, nil
	}
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromFunc(invoices), "", bounded.Page{Offset: 25}, bounded.Limits{Default: 25, Max: 100}, driver.Codec{})
	b, _ := json.Marshal(pg.Page)
	fmt.Println(string(b))
	// Output:
	// {"total":63,"totalKind":"exact","limit":25,"offset":25,"returned":25,"hasMore":true,"nextOffset":50}
}

// A count strategy prints as its name, as a flag or a log writes it.
func ExampleCountMode_String() {
	for _, m := range []bounded.CountMode{bounded.CountExact, bounded.CountCapped, bounded.CountNone} {
		fmt.Println(m)
	}
	// Output:
	// exact
	// capped
	// none
}

// Page numbers are 0-based: results 41-50 are page 4.
func ExamplePageInfo_PageNumber() {
	hits := make([]int, 87) // the ids of a search's 87 results
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: 40}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	fmt.Println(pg.Page.PageNumber())
	// Output: 4
}

// Pages remaining are counted after this one; the last page has none.
func ExamplePageInfo_PagesRemaining() {
	hits := make([]int, 87) // the ids of a search's 87 results
	limits := bounded.Limits{Default: 10, Max: 50}
	for _, offset := range []int{40, 80} {
		pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: offset}, limits, driver.Codec{})
		fmt.Println(offset, pg.Page.PagesRemaining())
	}
	// Output:
	// 40 4
	// 80 0
}

// An agent that wants the last results jumps to the last page.
func ExamplePageInfo_LastPageOffset() {
	hits := make([]int, 87) // the ids of a search's 87 results
	src, limits := bounded.FromSlice(hits), bounded.Limits{Default: 10, Max: 50}
	first, _ := bounded.FetchPage(context.Background(), src, "", bounded.Page{}, limits, driver.Codec{})
	last, _ := bounded.FetchPage(context.Background(), src, "", bounded.Page{Offset: first.Page.LastPageOffset()}, limits, driver.Codec{})
	fmt.Println(last.Page.Offset, last.Page.Returned, last.Page.HasMore)
	// Output: 80 7 false
}

// A loop reads pages while one follows.
func ExamplePageInfo_HasNext() {
	hits := make([]int, 87) // the ids of a search's 87 results
	p := bounded.Page{Limit: 40}
	for {
		pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", p, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
		fmt.Println(pg.Page.Offset, pg.Page.Returned)
		if !pg.Page.HasNext() {
			break
		}
		p.Offset = pg.Page.NextOffset
	}
	// Output:
	// 0 40
	// 40 40
	// 80 7
}

// Only the first page has nothing before it.
func ExamplePageInfo_HasPrevious() {
	hits := make([]int, 87) // the ids of a search's 87 results
	src, limits := bounded.FromSlice(hits), bounded.Limits{Default: 10, Max: 50}
	first, _ := bounded.FetchPage(context.Background(), src, "", bounded.Page{}, limits, driver.Codec{})
	second, _ := bounded.FetchPage(context.Background(), src, "", bounded.Page{Offset: first.Page.NextOffset}, limits, driver.Codec{})
	fmt.Println(first.Page.HasPrevious(), second.Page.HasPrevious())
	// Output: false true
}

// A page cut by a budget is not aligned: its next page can be asked for by
// offset, not by page number.
func ExamplePageInfo_Aligned() {
	hits := make([]int, 87) // the ids of a search's 87 results
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", bounded.Page{Offset: 20}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	cut := pg.Page.Cut(3) // a budget kept 3 of the 10 results
	fmt.Println(pg.Page.NextOffset, pg.Page.Aligned())
	fmt.Println(cut.NextOffset, cut.Aligned())
	// Output:
	// 30 true
	// 23 false
}

// A capped count that stopped before the end is a lower bound.
func ExampleTotalKind_String() {
	hits := make([]int, 5000) // the ids of a broad search's 5,000 results
	p := bounded.Page{Count: bounded.CountCapped}
	pg, _ := bounded.FetchPage(context.Background(), bounded.FromSlice(hits), "", p, bounded.Limits{Default: 20, Max: 100}, driver.Codec{})
	fmt.Println(pg.Page.Total, pg.Page.TotalKind)
	// Output: 200 atLeast
}

// A total kind is written as its name in JSON; an unknown kind is an error.
func ExampleTotalKind_MarshalText() {
	b, _ := json.Marshal(map[string]bounded.TotalKind{"totalKind": bounded.TotalAtLeast})
	fmt.Println(string(b))
	_, err := bounded.TotalKind(7).MarshalText()
	fmt.Println(err)
	// Output:
	// {"totalKind":"atLeast"}
	// bounded: unknown TotalKind 7
}

// A client decodes a response's pagination; an unknown name is an error.
func ExampleTotalKind_UnmarshalText() {
	var info bounded.PageInfo
	err := json.Unmarshal([]byte(`{"total":1000,"totalKind":"atLeast","limit":100,"returned":100,"hasMore":true,"nextOffset":100}`), &info)
	fmt.Println(bounded.FormatCount(info.Total), info.TotalKind == bounded.TotalAtLeast, err)

	err = json.Unmarshal([]byte(`{"totalKind":"approximate"}`), &info)
	fmt.Println(err)
	// Output:
	// 1,000 true <nil>
	// bounded: unknown TotalKind "approximate"
}
