package bounded

import (
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, codec := range []CursorCodec{{}, {Key: []byte("secret")}} {
		for _, cur := range []Cursor{
			{Offset: 0, Keys: []any{int64(1), "a"}},
			{Backward: true, Offset: MaxOffset, Keys: []any{int64(math.MinInt64), math.Inf(-1), "", nil, true, false}},
			{Offset: 42, Keys: []any{-0.5, strings.Repeat("é", 300), int64(math.MaxInt64)}},
		} {
			s, err := codec.Encode("scope", cur)
			if err != nil {
				t.Fatalf("Encode(%+v): %v", cur, err)
			}
			got, err := codec.Decode("scope", s)
			if err != nil {
				t.Fatalf("Decode(Encode(%+v)): %v", cur, err)
			}
			if d := cmp.Diff(cur, got); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			if strings.ContainsAny(s, "+/=") {
				t.Errorf("cursor %q is not URL-safe unpadded base64", s)
			}
		}
	}
	// int keys encode as int64.
	s, _ := CursorCodec{}.Encode("s", Cursor{Keys: []any{7}})
	if got, _ := (CursorCodec{}).Decode("s", s); got.Keys[0] != int64(7) {
		t.Errorf("int key decoded as %T %v, want int64 7", got.Keys[0], got.Keys[0])
	}
}

func TestCursorRejects(t *testing.T) {
	plain, signed := CursorCodec{}, CursorCodec{Key: []byte("k1")}
	good, _ := plain.Encode("scope", Cursor{Offset: 3, Keys: []any{int64(5), "id"}})
	goodSigned, _ := signed.Encode("scope", Cursor{Offset: 3, Keys: []any{int64(5), "id"}})
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x40
		return base64.RawURLEncoding.EncodeToString(b)
	}
	version := append([]byte{9}, raw[1:]...)
	for _, c := range []struct {
		name   string
		codec  CursorCodec
		scope  string
		cursor string
		want   error
	}{
		{"empty", plain, "scope", "", ErrInvalidCursor},
		{"not base64", plain, "scope", "!!!", ErrInvalidCursor},
		{"padded", plain, "scope", good + "==", ErrInvalidCursor},
		{"too long", plain, "scope", strings.Repeat("A", MaxCursorBytes+1), ErrInvalidCursor},
		{"short", plain, "scope", "AQ", ErrInvalidCursor},
		{"version", plain, "scope", base64.RawURLEncoding.EncodeToString(version), ErrInvalidCursor},
		{"other scope", plain, "another scope", good, ErrCursorForeign},
		{"flipped offset", plain, "scope", flip(10), ErrCursorTampered},
		{"flipped key", plain, "scope", flip(len(raw) - 10), ErrCursorTampered},
		{"flipped tag", plain, "scope", flip(len(raw) - 1), ErrCursorTampered},
		{"truncated", plain, "scope", base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1]), ErrCursorTampered},
		{"unsigned on a keyed codec", signed, "scope", good, ErrCursorTampered},
		{"signed on a plain codec", plain, "scope", goodSigned, ErrCursorTampered},
		{"other key", CursorCodec{Key: []byte("k2")}, "scope", goodSigned, ErrCursorTampered},
		{"signed, other scope", signed, "x", goodSigned, ErrCursorForeign},
	} {
		_, err := c.codec.Decode(c.scope, c.cursor)
		if !errors.Is(err, c.want) || !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("%s: error %v, want one wrapping %v and ErrInvalidCursor", c.name, err, c.want)
		}
	}
	if _, err := plain.Encode("s", Cursor{Keys: []any{struct{}{}}}); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("Encode of a struct key: %v, want ErrInvalidCursor", err)
	}
	if _, err := plain.Encode("s", Cursor{Offset: -1}); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("Encode of a negative offset: %v, want ErrInvalidCursor", err)
	}
	// A base64 decoding error is kept as the cause.
	_, err := plain.Decode("s", "a b")
	var cerr base64.CorruptInputError
	if !errors.As(err, &cerr) {
		t.Errorf("Decode(%q): %v does not keep the base64 error", "a b", err)
	}
}

func TestNormalizeCursor(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	codec := CursorCodec{}
	c, _ := codec.Encode("q", Cursor{Offset: 30, Keys: []any{"k"}})
	r, err := l.NormalizeCursor(Page{Cursor: c}, codec, "q")
	if err != nil || r.Offset != 30 || r.At == nil || r.At.Keys[0] != "k" || r.Limit != 10 {
		t.Errorf("NormalizeCursor: %+v, %v; want offset 30, keys [k], limit 10", r, err)
	}
	if _, err := l.NormalizeCursor(Page{Cursor: c, Offset: 1}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor with offset: %v, want ErrInvalidCursor", err)
	}
	if _, err := l.NormalizeCursor(Page{Cursor: c, Limit: -1}, codec, "q"); !errors.Is(err, ErrInvalidPage) {
		t.Errorf("cursor with a negative limit: %v, want ErrInvalidPage", err)
	}
	nokeys, _ := codec.Encode("q", Cursor{Offset: 1})
	if _, err := l.NormalizeCursor(Page{Cursor: nokeys}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor without keys: %v, want ErrInvalidCursor", err)
	}
	deep, _ := codec.Encode("q", Cursor{Offset: MaxOffset, Keys: []any{"k"}})
	if _, err := l.NormalizeCursor(Page{Cursor: deep}, codec, "q"); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("cursor at MaxOffset: %v, want ErrInvalidCursor (offset plus limit overflows)", err)
	}
	if r, err := l.NormalizeCursor(Page{}, codec, "q"); err != nil || r.At != nil {
		t.Errorf("no cursor: %+v, %v", r, err)
	}
}

func TestNeedsExactTotal(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	for _, c := range []struct {
		p        Page
		at       *Cursor
		returned int
		want     bool
	}{
		{Page{Offset: 30, Count: CountNone}, nil, 0, true},
		{Page{Offset: 30, Count: CountCapped}, nil, 0, true},
		{Page{Offset: 30}, nil, 0, false}, // counted exactly already
		{Page{Offset: 30, Count: CountNone}, nil, 1, false},
		{Page{Count: CountNone}, nil, 0, false}, // an empty set: 0
		{Page{Count: CountNone}, &Cursor{Offset: 0, Keys: []any{"k"}}, 0, true},
	} {
		r, err := l.Normalize(c.p)
		if err != nil {
			t.Fatal(err)
		}
		r.At = c.at
		if got := r.NeedsExactTotal(c.returned); got != c.want {
			t.Errorf("%+v (cursor %v), %d returned: NeedsExactTotal %v, want %v", c.p, c.at != nil, c.returned, got, c.want)
		}
	}
	if r := (Request{Count: CountCapped, CountCap: 5}).Exact(); r.Count != CountExact || r.CountCap != 0 {
		t.Errorf("Exact: %+v", r)
	}
}

func TestCompareKeys(t *testing.T) {
	for _, c := range []struct {
		a, b []any
		desc []bool
		want int
	}{
		{[]any{int64(1), "a"}, []any{int64(1), "b"}, []bool{false, false}, -1},
		{[]any{int64(1), "a"}, []any{int64(2), "a"}, []bool{true, false}, 1},
		{[]any{int64(2), "a"}, []any{2.0, "a"}, nil, 0},
		{[]any{1.5}, []any{int64(2)}, nil, -1},
		{[]any{nil}, []any{int64(2)}, []bool{false}, 1}, // NULLS LAST
		{[]any{nil}, []any{int64(2)}, []bool{true}, 1},  // whatever the direction
		{[]any{false}, []any{true}, nil, -1},
		{[]any{"b"}, []any{"a"}, []bool{true}, -1},
		{[]any{"a"}, []any{"a", "b"}, nil, -1},
		{[]any{"é"}, []any{"z"}, nil, 1}, // bytewise
	} {
		if got := CompareKeys(c.a, c.b, c.desc); got != c.want {
			t.Errorf("CompareKeys(%v, %v, %v) = %d, want %d", c.a, c.b, c.desc, got, c.want)
		}
	}
}

func TestFinish(t *testing.T) {
	l := Limits{Default: 10, Max: 50}
	req := func(p Page) Request {
		r, err := l.Normalize(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name     string
		r        Request
		returned int
		more     bool
		counted  int
		want     PageInfo
	}{
		{"exact", req(Page{Offset: 10}), 10, true, 35, PageInfo{Total: 35, Limit: 10, Offset: 10, Returned: 10, HasMore: true, NextOffset: 20}},
		{"exact last", req(Page{Offset: 30}), 5, false, 35, PageInfo{Total: 35, Limit: 10, Offset: 30, Returned: 5}},
		{"exact past end", req(Page{Offset: 40}), 0, false, 35, PageInfo{Total: 35, Limit: 10, Offset: 40}},
		{"capped under cap", req(Page{Count: CountCapped, CountCap: 100}), 10, true, 35, PageInfo{Total: 35, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"capped over cap", req(Page{Count: CountCapped, CountCap: 20}), 10, true, 21, PageInfo{Total: 20, TotalKind: TotalAtLeast, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"capped deep", req(Page{Offset: 100, Count: CountCapped, CountCap: 20}), 10, true, 21, PageInfo{Total: 110, TotalKind: TotalAtLeast, Limit: 10, Offset: 100, Returned: 10, HasMore: true, NextOffset: 110}},
		{"none", req(Page{Count: CountNone}), 10, true, 0, PageInfo{Total: 10, TotalKind: TotalUnknown, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10}},
		{"none, empty set", req(Page{Count: CountNone}), 0, false, 0, PageInfo{Limit: 10}},
		{"forward cursor", Request{Limit: 10, Offset: 20, At: &Cursor{Offset: 20}}, 10, true, 40, PageInfo{Total: 40, Limit: 10, Offset: 20, Returned: 10, HasMore: true, NextOffset: 30, AfterCursor: true}},
		{"backward", Request{Limit: 10, Offset: 25, At: &Cursor{Backward: true, Offset: 25}}, 10, true, 40, PageInfo{Total: 40, Limit: 10, Offset: 15, Returned: 10, HasMore: true, NextOffset: 25, AfterCursor: true}},
		{"backward to start", Request{Limit: 10, Offset: 25, At: &Cursor{Backward: true, Offset: 25}}, 7, false, 40, PageInfo{Total: 40, Limit: 10, Offset: 0, Returned: 7, HasMore: true, NextOffset: 7, AfterCursor: true}},
	} {
		if d := cmp.Diff(c.want, c.r.Finish(c.returned, c.more, c.counted)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// FuzzCursorDecode: any string decodes to a cursor or an error wrapping
// ErrInvalidCursor, never a panic; a decoded cursor re-encodes to the
// string it was decoded from, which decodes to the same cursor.
func FuzzCursorDecode(f *testing.F) {
	for _, codec := range []CursorCodec{{}, {Key: []byte("k")}} {
		for _, cur := range []Cursor{{Keys: []any{int64(1), "a"}}, {Backward: true, Offset: 9, Keys: []any{1.5, nil, true}}} {
			s, _ := codec.Encode("scope", cur)
			f.Add(s, len(codec.Key) > 0)
		}
	}
	f.Add("", false)
	f.Add("!!", false)
	f.Add("AQA", true)
	f.Fuzz(func(t *testing.T, s string, keyed bool) {
		codec := CursorCodec{}
		if keyed {
			codec.Key = []byte("k")
		}
		cur, err := codec.Decode("scope", s)
		if err != nil {
			if !errors.Is(err, ErrInvalidCursor) {
				t.Fatalf("Decode(%q): error %v does not wrap ErrInvalidCursor", s, err)
			}
			return
		}
		if cur.Offset < 0 || cur.Offset > MaxOffset {
			t.Fatalf("Decode(%q): offset %d out of range", s, cur.Offset)
		}
		again, err := codec.Encode("scope", cur)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", cur, err)
		}
		if again != s {
			t.Fatalf("Decode accepted %q, but the cursor it reads is written %q", s, again)
		}
		back, err := codec.Decode("scope", again)
		if err != nil {
			t.Fatalf("decode of re-encoded %+v: %v", cur, err)
		}
		if d := cmp.Diff(cur, back, cmp.Comparer(func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) })); d != "" {
			t.Fatalf("round trip (-first +second):\n%s", d)
		}
	})
}
