package bounded

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/probe"
)

// ErrInvalidPage is wrapped by the errors for a page request out of range,
// naming the field, and for a [Paged.CursorAt] position outside the page.
var ErrInvalidPage = errors.New("bounded: invalid page")

// ErrInvalidCursor, which is [driver.ErrInvalidCursor], is wrapped by the
// errors for a refused cursor; [driver.Codec.Decode] lists why.
var ErrInvalidCursor = driver.ErrInvalidCursor

// ErrInvalidSource is wrapped by the errors for a [Source] that broke its
// contract: more items than asked, items past its exact total, an empty
// page inside it, or keys of a type no cursor holds.
var ErrInvalidSource = errors.New("bounded: invalid source")

// ErrNoProgress is yielded by [All] for a page that says HasMore but would
// not advance.
var ErrNoProgress = errors.New("bounded: page did not advance")

// MaxOffset is the most a [Page]'s offset plus limit may be: 2^53-1, exact
// in a JSON number.
const MaxOffset = driver.MaxOffset

// Page is what a caller asks for: up to Limit items from Offset, in the
// method's order.
type Page struct {
	// Limit 0 means [Limits.Default]; over [Limits.Max] it is clamped.
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
	// Cursor, when set, replaces Offset: a cursor of an earlier page of
	// the same query.
	Cursor string `json:"cursor,omitempty"`
	// Count is how the total is counted, capped by default; CountCap is
	// CountCapped's cap, 0 meaning [DefaultCountCap](Limit).
	Count    CountMode `json:"count,omitempty"`
	CountCap int       `json:"countCap,omitempty"`
}

// CountMode is how a paged method counts its total. CountCapped, the
// default, and CountNone keep a deep page as cheap as the first.
type CountMode = driver.CountMode

const (
	// CountCapped, the zero value, counts up to [Page.CountCap] items:
	// exact within it, else a lower bound ([TotalAtLeast]).
	CountCapped CountMode = driver.CountCapped
	// CountExact counts every matching item: [TotalExact].
	CountExact CountMode = driver.CountExact
	// CountNone counts nothing: [TotalUnknown].
	CountNone CountMode = driver.CountNone
)

// MaxCountCap is the largest [Page.CountCap]. A larger cap costs more.
const MaxCountCap = 1_000_000

// countCapPages and minDefaultCountCap make [DefaultCountCap].
const (
	countCapPages      = 10
	minDefaultCountCap = 100
)

// DefaultCountCap is the [Page.CountCap] used for 0: ten pages of limit,
// at least 100, at most [MaxCountCap].
func DefaultCountCap(limit int) int {
	if limit > MaxCountCap/countCapPages {
		return MaxCountCap
	}
	return max(countCapPages*limit, minDefaultCountCap)
}

// Limits is a method's page size: Default when the caller asks for none, at
// most Max.
type Limits struct {
	Default int
	Max     int
}

// Normalize returns the request a [driver.Source] receives for p under l:
// Limit 0 becomes l.Default, and a Limit over l.Max becomes l.Max, marked
// Clamped. A field out of range, or l.Default
// outside [1, l.Max], is an error wrapping [ErrInvalidPage]. Cursors are not
// decoded.
func (l Limits) Normalize(p Page) (driver.Request, error) {
	probe.Normalized()
	if l.Max < 1 || l.Default < 1 || l.Default > l.Max {
		return driver.Request{}, fmt.Errorf("%w: limits default %d, max %d: want 1 <= default <= max", ErrInvalidPage, l.Default, l.Max)
	}
	if p.Limit < 0 {
		return driver.Request{}, fmt.Errorf("%w: limit %d is negative", ErrInvalidPage, p.Limit)
	}
	if p.Offset < 0 {
		return driver.Request{}, fmt.Errorf("%w: offset %d is negative", ErrInvalidPage, p.Offset)
	}
	if p.Offset > MaxOffset {
		return driver.Request{}, fmt.Errorf("%w: offset %d is over the maximum %d", ErrInvalidPage, p.Offset, MaxOffset)
	}
	switch {
	case p.Count > CountNone:
		return driver.Request{}, fmt.Errorf("%w: count strategy %d is unknown", ErrInvalidPage, p.Count)
	case p.CountCap < 0:
		return driver.Request{}, fmt.Errorf("%w: countCap %d is negative", ErrInvalidPage, p.CountCap)
	case p.CountCap > MaxCountCap:
		return driver.Request{}, fmt.Errorf("%w: countCap %d is over the maximum %d", ErrInvalidPage, p.CountCap, MaxCountCap)
	}
	r := driver.Request{Limit: p.Limit, Offset: p.Offset, Cursor: p.Cursor, Requested: p.Limit, Count: p.Count}
	switch {
	case r.Limit == 0:
		r.Limit = l.Default
	case r.Limit > l.Max:
		r.Limit = l.Max
		r.Clamped = true
	}
	if r.Count == CountCapped {
		r.CountCap = p.CountCap
		if r.CountCap == 0 {
			r.CountCap = DefaultCountCap(r.Limit)
		}
	}
	if r.Offset > MaxOffset-r.Limit {
		return driver.Request{}, fmt.Errorf("%w: offset %d plus limit %d is over the maximum %d", ErrInvalidPage, r.Offset, r.Limit, MaxOffset)
	}
	return r, nil
}

// normalizeCursor is [Limits.Normalize] for methods that issue and accept
// cursors: it also decodes p.Cursor, when set, with codec for scope (see
// [driver.Codec]), and returns a request that starts after (or, for a
// backward cursor, before) the cursor's keys, with Offset the cursor's
// offset. A cursor with a non-zero p.Offset, or one that does not decode,
// is an error wrapping [ErrInvalidCursor] (and the decoder's cause).
// Keys are checked by the method: their number and types are its own.
func (l Limits) normalizeCursor(p Page, codec driver.Codec, scope string) (driver.Request, error) {
	r, err := l.Normalize(p)
	if err != nil || p.Cursor == "" {
		return r, err
	}
	if p.Offset != 0 {
		return driver.Request{}, fmt.Errorf("%w: a cursor excludes an offset (offset %d given)", ErrInvalidCursor, p.Offset)
	}
	cur, err := codec.Decode(scope, p.Cursor)
	if err != nil {
		return driver.Request{}, err
	}
	if cur.Offset > MaxOffset-r.Limit {
		return driver.Request{}, fmt.Errorf("%w: offset %d plus limit %d is over the maximum %d", ErrInvalidCursor, cur.Offset, r.Limit, MaxOffset)
	}
	if len(cur.Keys) == 0 {
		return driver.Request{}, fmt.Errorf("%w: no keys", ErrInvalidCursor)
	}
	r.Offset, r.At = cur.Offset, &cur
	return r, nil
}

// FromPageNumber returns the [Page] of 0-based page, of pageSize items
// (l.Default when 0). A pageSize over l.Max stays in Limit, for Normalize to
// clamp, but the offset is page × l.Max. Errors wrap [ErrInvalidPage].
func (l Limits) FromPageNumber(page, pageSize int) (Page, error) {
	if page < 0 {
		return Page{}, fmt.Errorf("%w: page %d is negative", ErrInvalidPage, page)
	}
	if pageSize < 0 {
		return Page{}, fmt.Errorf("%w: pageSize %d is negative", ErrInvalidPage, pageSize)
	}
	size := pageSize
	if size == 0 {
		size = l.Default
	}
	if l.Max > 0 && size > l.Max {
		size = l.Max
	}
	if size <= 0 {
		return Page{}, fmt.Errorf("%w: limits default %d, max %d: want 1 <= default <= max", ErrInvalidPage, l.Default, l.Max)
	}
	if page > MaxOffset/size {
		return Page{}, fmt.Errorf("%w: page %d of size %d starts past the maximum offset %d", ErrInvalidPage, page, size, MaxOffset)
	}
	return Page{Limit: pageSize, Offset: page * size}, nil
}

// TotalKind says how far [PageInfo.Total] can be trusted.
type TotalKind uint8

const (
	// TotalExact: Total is the exact number of matching items.
	TotalExact TotalKind = iota
	// TotalAtLeast: Total is a lower bound, where counting stopped.
	TotalAtLeast
	// TotalUnknown: nothing was counted; Total is the end of this page.
	TotalUnknown
)

var totalKindNames = [...]string{"exact", "atLeast", "unknown"}

// String returns "exact", "atLeast" or "unknown".
func (k TotalKind) String() string {
	if int(k) < len(totalKindNames) {
		return totalKindNames[k]
	}
	return fmt.Sprintf("TotalKind(%d)", k)
}

// MarshalText encodes the kind as its [TotalKind.String] name.
func (k TotalKind) MarshalText() ([]byte, error) {
	if int(k) >= len(totalKindNames) {
		return nil, fmt.Errorf("bounded: unknown TotalKind %d", k)
	}
	return []byte(totalKindNames[k]), nil
}

// UnmarshalText decodes a name written by [TotalKind.MarshalText].
func (k *TotalKind) UnmarshalText(b []byte) error {
	for i, n := range totalKindNames {
		if n == string(b) {
			*k = TotalKind(i)
			return nil
		}
	}
	return fmt.Errorf("bounded: unknown TotalKind %q", b)
}

// PageInfo is where a page sits in its result set and how to get the rest.
type PageInfo struct {
	// Total is the number of matching items, as TotalKind says.
	Total     int       `json:"total"`
	TotalKind TotalKind `json:"totalKind"`
	// Limit and Offset are the request as applied (after defaults and
	// clamping).
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	// Returned is the number of items in this page.
	Returned int `json:"returned"`
	// HasMore reports that items follow this page.
	HasMore bool `json:"hasMore"`
	// NextOffset is the Offset of the next page; 0 when HasMore is false.
	NextOffset int `json:"nextOffset,omitempty"`
	// NextCursor, for methods with cursors, continues where NextOffset
	// does, by sort keys: writes meanwhile do not shift it.
	NextCursor string `json:"nextCursor,omitempty"`
	// PrevCursor, when items precede the page, fetches the Limit items
	// before it.
	PrevCursor string `json:"prevCursor,omitempty"`
	// Clamped reports that the caller's RequestedLimit was lowered to the
	// maximum, Limit.
	Clamped        bool `json:"clamped,omitempty"`
	RequestedLimit int  `json:"requestedLimit,omitempty"`
	// AfterCursor reports a page read from a cursor: Offset and NextOffset
	// are as of the cursor's issue, so the next call uses NextCursor.
	AfterCursor bool `json:"afterCursor,omitempty"`
	// Importing reports that the results are still being written (an
	// import in progress): Total is a lower bound. The source's caller
	// sets it.
	Importing bool `json:"importing,omitempty"`
}

// pageInfo builds the [PageInfo] of a page of returned items out of total
// matching ones, counted exactly. It is the one place where HasMore and
// NextOffset are derived, so every source reports them alike. An offset past
// the end gives Returned 0, HasMore false and the exact total.
func pageInfo(r driver.Request, total, returned int) PageInfo {
	pi := PageInfo{
		Total:          total,
		TotalKind:      TotalExact,
		Limit:          r.Limit,
		Offset:         r.Offset,
		Returned:       returned,
		Clamped:        r.Clamped,
		RequestedLimit: 0,
	}
	if r.Clamped {
		pi.RequestedLimit = r.Requested
	}
	if end := r.Offset + returned; returned > 0 && end < total {
		pi.HasMore = true
		pi.NextOffset = end
	}
	return pi
}

// pageInfoMore builds the [PageInfo] of a page whose total was not counted
// exactly: hasMore comes from fetching one item past the page, and atLeast
// is a lower bound on the total (or -1 when nothing was counted, which makes
// the kind [TotalUnknown] and the total the end of this page). A counted
// page that returns items and has none after them knows its total exactly:
// Offset + returned, whatever atLeast says.
func pageInfoMore(r driver.Request, returned int, hasMore bool, atLeast int) PageInfo {
	pi := pageInfo(r, 0, returned)
	pi.HasMore = hasMore && returned > 0
	if pi.HasMore {
		pi.NextOffset = r.Offset + returned
	}
	end := r.Offset + returned
	switch {
	case atLeast < 0:
		pi.TotalKind = TotalUnknown
		pi.Total = end
	case !pi.HasMore && returned > 0:
		// The set ends inside this page: its total is known exactly.
		pi.Total = end
	default:
		pi.Total = max(atLeast, end)
		pi.TotalKind = TotalAtLeast
	}
	return pi
}

// finishPage builds the [PageInfo] of a page read for r: returned items, more
// reporting whether an item lies beyond them in the reading direction (the
// store reads Limit+1 items to know), and counted the store's count under
// r.Count: the exact total for CountExact, the number of matching items up to
// CountCap+1 for CountCapped, anything for CountNone.
//
// HasMore comes from more, never from arithmetic on a count, so that a
// cursor walk stays exact while items are written between its pages. The
// total is exact (CountExact, or a capped count that stayed under its cap),
// a lower bound ([TotalAtLeast]: the cap, or the end of this page if
// further), or [TotalUnknown] (CountNone: the end of the page, also on a
// last page, whose offset a cursor may have carried stale; 0 with an exact
// kind on an empty first page). A page that returns no items after
// the start must report the exact total whatever r.Count, so that its hint
// names the real last page: [FetchPage] asks needsExactTotal and then
// counts exactly with countExactly. For a backward request, the page ends where the cursor's offset
// stood: its Offset is that offset minus returned (0 when nothing precedes
// the page), and HasMore is true when it returned items.
//
// finishPage leaves NextCursor and PrevCursor empty: setCursors fills them.
func finishPage(r driver.Request, returned int, more bool, counted int) PageInfo {
	off := r.Offset
	after := more
	if r.Backward() {
		off = max(0, r.Offset-returned)
		if !more {
			off = 0
		}
		after = returned > 0
	}
	rr := r
	rr.Offset = off
	var pi PageInfo
	switch {
	case r.Count == CountNone && returned == 0 && off == 0 && !r.Backward():
		pi = pageInfo(rr, 0, 0) // an empty set: nothing to count
	case r.Count == CountNone:
		pi = pageInfoMore(rr, returned, after, -1)
	case r.Count == CountCapped && counted > r.CountCap:
		pi = pageInfoMore(rr, returned, after, r.CountCap)
	default:
		pi = pageInfo(rr, counted, returned)
		pi.HasMore = after && returned > 0
		pi.NextOffset = 0
		if pi.HasMore {
			pi.NextOffset = off + returned
		}
	}
	pi.AfterCursor = r.At != nil
	return pi
}

// needsExactTotal reports whether a page of returned items read for r
// must report an exact total although r.Count did not count one: it
// returned nothing after the start of the results (an offset at or past
// the end, or a cursor at an end), and its hint names the last page.
func needsExactTotal(r driver.Request, returned int) bool {
	return returned == 0 && r.Count != CountExact && (r.Offset > 0 || r.At != nil)
}

// countExactly returns r counting exactly ([CountExact]).
func countExactly(r driver.Request) driver.Request {
	r.Count, r.CountCap = CountExact, 0
	return r
}

// setCursors fills the page's cursors for a method that issues them:
// NextCursor, at last (the last item's keys) when HasMore, and PrevCursor,
// at first (the first item's keys) when items precede the page (Offset > 0,
// or before is true: the page was read backward and found more). scope and
// codec are the method's, as given to normalizeCursor. Keys no cursor can
// hold leave a cursor out ([encodeAt]).
func (pi *PageInfo) setCursors(codec driver.Codec, scope string, first, last []any, before bool) error {
	pi.NextCursor, pi.PrevCursor = "", ""
	if pi.Returned == 0 {
		return nil
	}
	var err error
	if pi.HasMore {
		if pi.NextCursor, err = encodeAt(codec, scope, driver.Cursor{Offset: pi.NextOffset, Keys: last}); err != nil {
			return err
		}
	}
	if pi.Offset > 0 || before {
		if pi.PrevCursor, err = encodeAt(codec, scope, driver.Cursor{Backward: true, Offset: pi.Offset, Keys: first}); err != nil {
			return err
		}
	}
	return nil
}

// Cut returns pi keeping only its first kept items. If that cuts any,
// HasMore is true, NextOffset is the first item cut and NextCursor is ""
// ([Fit] sets it from [Paged.CursorAt]); PrevCursor is "" if kept is 0.
func (pi PageInfo) Cut(kept int) PageInfo {
	if kept < 0 {
		kept = 0
	}
	if kept >= pi.Returned {
		return pi
	}
	pi.Returned = kept
	pi.HasMore = true
	pi.NextOffset = pi.Offset + kept
	pi.NextCursor = ""
	if kept == 0 {
		pi.PrevCursor = ""
	}
	return pi
}

// PastEnd reports whether Offset is at or past the end of a non-empty
// result set.
func (pi PageInfo) PastEnd() bool {
	return pi.Returned == 0 && pi.Total > 0 && pi.Offset >= pi.Total
}

// PageNumber is Offset / Limit, rounded down.
func (pi PageInfo) PageNumber() int {
	if pi.Limit <= 0 {
		return 0
	}
	return pi.Offset / pi.Limit
}

// TotalPages is Total / Limit, rounded up.
func (pi PageInfo) TotalPages() int {
	if pi.Limit <= 0 {
		return 0
	}
	return (pi.Total + pi.Limit - 1) / pi.Limit
}

// PagesRemaining is the number of pages after this one: 0 without HasMore,
// else at least 1.
func (pi PageInfo) PagesRemaining() int {
	if !pi.HasMore || pi.Limit <= 0 {
		return 0
	}
	rest := pi.Total - pi.NextOffset
	if rest <= 0 {
		return 1 // TotalUnknown or a stale lower bound: at least one more.
	}
	return (rest + pi.Limit - 1) / pi.Limit
}

// HasNext reports HasMore.
func (pi PageInfo) HasNext() bool { return pi.HasMore }

// HasPrevious reports whether items precede this page.
func (pi PageInfo) HasPrevious() bool { return pi.Offset > 0 }

// Aligned reports whether NextOffset is a multiple of Limit, so that the
// next page has a page number.
func (pi PageInfo) Aligned() bool {
	return pi.Limit > 0 && pi.NextOffset%pi.Limit == 0
}

// LastPageOffset is the offset of the last page, 0 for an empty set.
func (pi PageInfo) LastPageOffset() int {
	if pi.Total <= 0 || pi.Limit <= 0 {
		return 0
	}
	return (pi.Total - 1) / pi.Limit * pi.Limit
}

// Paged is one page of items in a method's documented order, with its
// [PageInfo].
type Paged[T any] struct {
	Items []T      `json:"results"`
	Page  PageInfo `json:"pagination"`
	// CursorAt(n), for 1 <= n <= len(Items), returns the forward cursor
	// after the first n items, as NextCursor is after all of them; [Fit]
	// continues a cut page with it. CursorAt(0) may return the cursor a
	// forward page was read from; other n are errors wrapping
	// [ErrInvalidPage]. It is nil without cursors or items, and stays
	// valid when items are converted one for one, in order.
	CursorAt func(n int) (string, error) `json:"-"`
}

// Fetcher returns the page p of some ordered result set.
type Fetcher[T any] func(ctx context.Context, p Page) (Paged[T], error)

// All yields every item from start to the end, following NextCursor, else
// NextOffset, with start's Limit and Count. It stops after yielding one
// error: fetch's, the context's, or [ErrNoProgress].
func All[T any](ctx context.Context, start Page, fetch Fetcher[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		p := start
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			pg, err := fetch(ctx, p)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range pg.Items {
				if !yield(it, nil) {
					return
				}
			}
			info := pg.Page
			if !info.HasMore {
				return
			}
			if len(pg.Items) == 0 {
				yield(zero, fmt.Errorf("%w: empty page at offset %d says more follow", ErrNoProgress, info.Offset))
				return
			}
			if info.NextCursor != "" {
				if info.NextCursor == p.Cursor {
					yield(zero, fmt.Errorf("%w: next cursor repeats the current one", ErrNoProgress))
					return
				}
				p = start
				p.Offset, p.Cursor = 0, info.NextCursor
				continue
			}
			if info.NextOffset <= info.Offset {
				yield(zero, fmt.Errorf("%w: next offset %d is not past offset %d", ErrNoProgress, info.NextOffset, info.Offset))
				return
			}
			p = start
			p.Offset, p.Cursor = info.NextOffset, ""
		}
	}
}
