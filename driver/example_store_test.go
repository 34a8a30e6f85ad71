package driver_test

import (
	"context"
	"fmt"
	"sort"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// bookmark is a saved link. The store lists bookmarks newest first: by
// Saved descending, then by ID descending, the unique tie-breaker.
type bookmark struct {
	ID    int64  `json:"id"`
	Saved string `json:"saved"`
	Title string `json:"title"`
}

func bookmarkKeys(b bookmark) []any { return []any{b.Saved, b.ID} }

// bookmarkStore is a store's index of bookmarks, sorted in its order, as a
// database keeps one. It is a hand-written Source, and has a paged method of
// its own, List.
type bookmarkStore []bookmark

var (
	bookmarkDesc   = []bool{true, true}
	bookmarkLimits = bounded.Limits{Default: 2, Max: 20}
	bookmarkCodec  = driver.Codec{Key: []byte("bookmarks signing key")}
)

const bookmarkScope = "bookmarks.list"

// read returns the bookmarks r asks for, in the store's order, and whether
// one lies beyond them in the reading direction. In SQL, forward from a
// cursor: WHERE (saved, id) < (?, ?) ORDER BY saved DESC, id DESC LIMIT
// r.Limit+1.
func (s bookmarkStore) read(r driver.Request) ([]bookmark, bool, error) {
	if r.At == nil {
		start, end := min(r.Offset, len(s)), min(r.Offset+r.Limit, len(s))
		return s[start:end], end < len(s), nil
	}
	if len(r.At.Keys) != 2 {
		return nil, false, fmt.Errorf("%w: %d keys, want 2", driver.ErrInvalidCursor, len(r.At.Keys))
	}
	at := func(i int) int { return driver.CompareKeys(bookmarkKeys(s[i]), r.At.Keys, bookmarkDesc) }
	if r.Backward() {
		end := sort.Search(len(s), func(i int) bool { return at(i) >= 0 })
		start := max(0, end-r.Limit)
		return s[start:end], start > 0, nil
	}
	start := sort.Search(len(s), func(i int) bool { return at(i) > 0 })
	end := min(start+r.Limit, len(s))
	return s[start:end], end < len(s), nil
}

// Fetch is the store as a [driver.Source]: the rows, the count r.Count asks
// for, and the keys that let Respond issue cursors.
func (s bookmarkStore) Fetch(_ context.Context, r driver.Request) (driver.Rows[bookmark], error) {
	items, more, err := s.read(r)
	count := len(s)
	if r.Count == driver.CountCapped {
		count = min(count, r.CountCap+1)
	}
	return driver.Rows[bookmark]{Items: items, More: more, Count: count, Keys: bookmarkKeys}, err
}

// List is the store's own paged method: [bounded.FetchPage] validates the
// page, calls Fetch and builds the page's totals and cursors, as every
// store method built on a Source does.
func (s bookmarkStore) List(ctx context.Context, p bounded.Page) (bounded.Paged[bookmark], error) {
	return bounded.FetchPage(ctx, s, bookmarkScope, p, bookmarkLimits, bookmarkCodec)
}

var savedBookmarks = bookmarkStore{
	{7, "2024-06-12", "Go 1.23 release notes"},
	{9, "2024-06-10", "Ramen in Tōkyō"},
	{4, "2024-06-10", "SQLite WAL mode"},
	{2, "2024-05-30", "Café opening hours"},
	{5, "2024-05-02", "Hiking near Genève"},
}

// A hand-written Source pages by cursor through Respond: the response's next
// call carries the cursor after the last bookmark shown.
func ExampleSource() {
	call := bounded.Call{Tool: "list_bookmarks"}
	opts := bounded.Options[bookmark]{Limits: bookmarkLimits, Cursors: bookmarkCodec}
	ctx := context.Background()
	p := bounded.Page{}
	for {
		out, err := bounded.Respond(ctx, savedBookmarks, call, p, opts)
		if err != nil {
			panic(err)
		}
		fmt.Println(out.Page.Returned, "from", out.Page.Offset, "next cursor:", out.Page.NextCursor != "")
		if out.Next == nil {
			fmt.Println(out.Hint)
			break
		}
		cursor, _ := out.Next.Get("cursor")
		p = bounded.Page{Cursor: cursor.(string)}
	}
	// Output:
	// 2 from 0 next cursor: true
	// 2 from 2 next cursor: true
	// 1 from 4 next cursor: false
	// Found 5 results, showing 5-5. This is the last page.
}

// A store method built on FetchPage walks whole with All, here without a
// count: each page's total is the end of the page read, and HasMore comes
// from the row read past it.
func ExampleSource_all() {
	for b, err := range bounded.All(context.Background(), bounded.Page{Count: bounded.CountNone}, savedBookmarks.List) {
		if err != nil {
			panic(err)
		}
		fmt.Println(b.Saved, b.Title)
	}
	// Output:
	// 2024-06-12 Go 1.23 release notes
	// 2024-06-10 Ramen in Tōkyō
	// 2024-06-10 SQLite WAL mode
	// 2024-05-30 Café opening hours
	// 2024-05-02 Hiking near Genève
}

// A page read by cursor has the next cursor after its last bookmark, and,
// since bookmarks precede it, the previous one before its first.
func ExampleSource_cursors() {
	ctx := context.Background()
	first, _ := savedBookmarks.List(ctx, bounded.Page{})
	second, _ := savedBookmarks.List(ctx, bounded.Page{Cursor: first.Page.NextCursor})
	for _, b := range second.Items {
		fmt.Println(b.Title)
	}
	fmt.Println("next:", second.Page.NextCursor != "", "prev:", second.Page.PrevCursor != "")

	back, _ := savedBookmarks.List(ctx, bounded.Page{Cursor: second.Page.PrevCursor})
	for _, b := range back.Items {
		fmt.Println(b.Title)
	}
	fmt.Println("offset", back.Page.Offset, "prev:", back.Page.PrevCursor != "")
	// Output:
	// SQLite WAL mode
	// Café opening hours
	// next: true prev: true
	// Go 1.23 release notes
	// Ramen in Tōkyō
	// offset 0 prev: false
}

// tracedBookmarks is the bookmark store, printing each request it gets.
type tracedBookmarks struct{ bookmarkStore }

func (s tracedBookmarks) Fetch(ctx context.Context, r driver.Request) (driver.Rows[bookmark], error) {
	fmt.Printf("Fetch: offset %d, backward %v\n", r.Offset, r.Backward())
	return s.bookmarkStore.Fetch(ctx, r)
}

// A page's PrevCursor asks the source for the bookmarks before the
// cursor's keys: the request reads backward.
func ExampleRequest_Backward() {
	ctx, src := context.Background(), tracedBookmarks{savedBookmarks}
	third, _ := bounded.FetchPage(ctx, src, bookmarkScope, bounded.Page{Offset: 4}, bookmarkLimits, bookmarkCodec)
	back, _ := bounded.FetchPage(ctx, src, bookmarkScope, bounded.Page{Cursor: third.Page.PrevCursor}, bookmarkLimits, bookmarkCodec)
	for _, b := range back.Items {
		fmt.Println(b.Title)
	}
	// Output:
	// Fetch: offset 4, backward false
	// Fetch: offset 4, backward true
	// SQLite WAL mode
	// Café opening hours
}
