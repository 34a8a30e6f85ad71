package bounded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/boundedkit/bounded"
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
	// {Limit:0 Offset:50 Cursor: Count:exact CountCap:0}
	// {Limit:250 Offset:300 Cursor: Count:exact CountCap:0} -> limit 100 offset 300 clamped true
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
	r, _ := bounded.Limits{Default: 10, Max: 50}.Normalize(bounded.Page{Offset: 20})
	info := r.Info(87, 10) // results 21-30 of 87

	cut := info.Cut(3)
	fmt.Printf("returned %d, next offset %d -> %d\n", info.Returned, info.NextOffset, cut.NextOffset)
	fmt.Println("has more:", cut.HasMore, "aligned:", cut.Aligned())
	// Output:
	// returned 10, next offset 30 -> 23
	// has more: true aligned: false
}

func ExamplePageInfo_TotalPages() {
	r, _ := bounded.Limits{Default: 10, Max: 50}.Normalize(bounded.Page{Offset: 20})
	info := r.Info(87, 10) // results 21-30 of 87

	fmt.Printf("page %d of %d, %d pages remain, the last starts at %d\n",
		info.PageNumber()+1, info.TotalPages(), info.PagesRemaining(), info.LastPageOffset())
	// Output:
	// page 3 of 9, 6 pages remain, the last starts at 80
}

// An offset past the end returns nothing and says so: the hint of such a page
// names the last page instead.
func ExamplePageInfo_PastEnd() {
	r, _ := bounded.Limits{Default: 10, Max: 50}.Normalize(bounded.Page{Offset: 120})
	info := r.Info(87, 0)
	fmt.Println(info.PastEnd(), info.HasMore, info.LastPageOffset())
	// Output:
	// true false 80
}

// All walks every page of a paged method, here a store of 7 tasks read 3 at
// a time, following each page's NextOffset.
func ExampleAll() {
	tasks := []string{"write spec", "review PR", "fix flaky test", "update deps", "tag release", "café menu", "reply to Zoë"}
	limits := bounded.Limits{Default: 3, Max: 10}
	fetch := func(_ context.Context, p bounded.Page) (bounded.Paged[string], error) {
		r, err := limits.Normalize(p)
		if err != nil {
			return bounded.Paged[string]{}, err
		}
		end := min(r.Offset+r.Limit, len(tasks))
		start := min(r.Offset, end)
		fmt.Printf("(fetch offset %d)\n", r.Offset)
		return bounded.Paged[string]{Items: tasks[start:end], Page: r.Info(len(tasks), end-start)}, nil
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

// An adapter that counted its matches exactly builds the page's metadata
// with Info, so that every adapter reports HasMore and NextOffset alike.
func ExampleRequest_Info() {
	r, _ := bounded.Limits{Default: 25, Max: 100}.Normalize(bounded.Page{Offset: 25})
	b, _ := json.Marshal(r.Info(63, 25)) // LIMIT 25 OFFSET 25 returned 25; count(*) 63
	fmt.Println(string(b))
	// Output:
	// {"total":63,"totalKind":"exact","limit":25,"offset":25,"returned":25,"hasMore":true,"nextOffset":50}
}
