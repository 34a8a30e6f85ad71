package bounded

import (
	"errors"
	"testing"

	"github.com/boundedkit/bounded/driver"
	"github.com/google/go-cmp/cmp"
)

func TestNormalizeCursor(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	codec := driver.Codec{}
	c, _ := codec.Encode("q", driver.Cursor{Offset: 30, Keys: []any{"k"}})
	r, err := l.normalizeCursor(Page{Cursor: c}, codec, "q")
	if err != nil || r.Offset != 30 || r.At == nil || r.At.Keys[0] != "k" || r.Limit != 10 {
		t.Errorf("NormalizeCursor: %+v, %v; want offset 30, keys [k], limit 10", r, err)
	}
	if _, err := l.normalizeCursor(Page{Cursor: c, Offset: 1}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor with offset: %v, want ErrInvalidCursor", err)
	}
	if _, err := l.normalizeCursor(Page{Cursor: c, Limit: -1}, codec, "q"); !errors.Is(err, ErrInvalidPage) {
		t.Errorf("cursor with a negative limit: %v, want ErrInvalidPage", err)
	}
	nokeys, _ := codec.Encode("q", driver.Cursor{Offset: 1})
	if _, err := l.normalizeCursor(Page{Cursor: nokeys}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor without keys: %v, want ErrInvalidCursor", err)
	}
	deep, _ := codec.Encode("q", driver.Cursor{Offset: MaxOffset, Keys: []any{"k"}})
	if _, err := l.normalizeCursor(Page{Cursor: deep}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor at MaxOffset: %v, want ErrInvalidCursor (offset plus limit overflows)", err)
	}
	if r, err := l.normalizeCursor(Page{}, codec, "q"); err != nil || r.At != nil {
		t.Errorf("no cursor: %+v, %v", r, err)
	}
}

func TestNeedsExactTotal(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	for _, c := range []struct {
		p        Page
		at       *driver.Cursor
		returned int
		want     bool
	}{
		{Page{Offset: 30, Count: CountNone}, nil, 0, true},
		{Page{Offset: 30, Count: CountCapped}, nil, 0, true},
		{Page{Offset: 30}, nil, 0, true},                     // capped, the default
		{Page{Offset: 30, Count: CountExact}, nil, 0, false}, // counted exactly already
		{Page{Offset: 30, Count: CountNone}, nil, 1, false},
		{Page{Count: CountNone}, nil, 0, false}, // an empty set: 0
		{Page{Count: CountNone}, &driver.Cursor{Offset: 0, Keys: []any{"k"}}, 0, true},
	} {
		r, err := l.Normalize(c.p)
		if err != nil {
			t.Fatal(err)
		}
		r.At = c.at
		if got := needsExactTotal(r, c.returned); got != c.want {
			t.Errorf("%+v (cursor %v), %d returned: NeedsExactTotal %v, want %v", c.p, c.at != nil, c.returned, got, c.want)
		}
	}
	if r := countExactly(driver.Request{Count: CountCapped, CountCap: 5}); r.Count != CountExact || r.CountCap != 0 {
		t.Errorf("Exact: %+v", r)
	}
}

func TestFinish(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	req := func(p Page) driver.Request {
		r, err := l.Normalize(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name     string
		r        driver.Request
		returned int
		more     bool
		counted  int
		want     PageInfo
	}{
		{"exact", req(Page{Offset: 10, Count: CountExact}), 10, true, 35, PageInfo{Total: 35, Limit: 10, Offset: 10, Returned: 10, HasMore: true, NextOffset: 20}},
		{"exact last", req(Page{Offset: 30, Count: CountExact}), 5, false, 35, PageInfo{Total: 35, Limit: 10, Offset: 30, Returned: 5}},
		{"exact past end", req(Page{Offset: 40, Count: CountExact}), 0, false, 35, PageInfo{Total: 35, Limit: 10, Offset: 40}},
		{"capped under cap", req(Page{Count: CountCapped, CountCap: 100}), 10, true, 35, PageInfo{Total: 35, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"capped over cap", req(Page{Count: CountCapped, CountCap: 20}), 10, true, 21, PageInfo{Total: 20, TotalKind: TotalAtLeast, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"capped deep", req(Page{Offset: 100, Count: CountCapped, CountCap: 20}), 10, true, 21, PageInfo{Total: 110, TotalKind: TotalAtLeast, Limit: 10, Offset: 100, Returned: 10, HasMore: true, NextOffset: 110}},
		{"none", req(Page{Count: CountNone}), 10, true, 0, PageInfo{Total: 10, TotalKind: TotalUnknown, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"none, empty set", req(Page{Count: CountNone}), 0, false, 0, PageInfo{Limit: 10}},
		{"forward cursor", driver.Request{Limit: 10, Offset: 20, Count: CountExact, At: &driver.Cursor{Offset: 20}}, 10, true, 40, PageInfo{Total: 40, Limit: 10, Offset: 20, Returned: 10, HasMore: true, NextOffset: 30, AfterCursor: true}},
		{"backward", driver.Request{Limit: 10, Offset: 25, Count: CountExact, At: &driver.Cursor{Backward: true, Offset: 25}}, 10, true, 40, PageInfo{Total: 40, Limit: 10, Offset: 15, Returned: 10, HasMore: true, NextOffset: 25, AfterCursor: true}},
		{"backward to start", driver.Request{Limit: 10, Offset: 25, Count: CountExact, At: &driver.Cursor{Backward: true, Offset: 25}}, 7, false, 40, PageInfo{Total: 40, Limit: 10, Offset: 0, Returned: 7, HasMore: true, NextOffset: 7, AfterCursor: true}},
	} {
		if d := cmp.Diff(c.want, finishPage(c.r, c.returned, c.more, c.counted)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// FuzzCursorDecode: any string decodes to a cursor or an error wrapping
// ErrInvalidCursor, never a panic; a decoded cursor re-encodes to the
// string it was decoded from, which decodes to the same cursor.
