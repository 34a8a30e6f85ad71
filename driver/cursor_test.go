package driver

import (
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, codec := range []Codec{{}, {Key: []byte("secret")}} {
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
	s, _ := Codec{}.Encode("s", Cursor{Keys: []any{7}})
	if got, _ := (Codec{}).Decode("s", s); got.Keys[0] != int64(7) {
		t.Errorf("int key decoded as %T %v, want int64 7", got.Keys[0], got.Keys[0])
	}
}

func TestCursorRejects(t *testing.T) {
	plain, signed := Codec{}, Codec{Key: []byte("k1")}
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
		codec  Codec
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
		{"other key", Codec{Key: []byte("k2")}, "scope", goodSigned, ErrCursorTampered},
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

func FuzzCursorDecode(f *testing.F) {
	for _, codec := range []Codec{{}, {Key: []byte("k")}} {
		for _, cur := range []Cursor{{Keys: []any{int64(1), "a"}}, {Backward: true, Offset: 9, Keys: []any{1.5, nil, true}}} {
			s, _ := codec.Encode("scope", cur)
			f.Add(s, len(codec.Key) > 0)
		}
	}
	f.Add("", false)
	f.Add("!!", false)
	f.Add("AQA", true)
	f.Fuzz(func(t *testing.T, s string, keyed bool) {
		codec := Codec{}
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

// TestEncodeTooLong: Encode refuses a cursor Decode would refuse for its
// length, with ErrCursorTooLong; one just under the limit round-trips.
func TestEncodeTooLong(t *testing.T) {
	var c Codec
	if _, err := c.Encode("s", Cursor{Keys: []any{strings.Repeat("k", MaxCursorBytes)}}); !errors.Is(err, ErrCursorTooLong) || !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("a cursor over MaxCursorBytes: %v; want ErrCursorTooLong", err)
	}
	under := Cursor{Keys: []any{strings.Repeat("k", MaxCursorBytes*3/4-64)}}
	s, err := c.Encode("s", under)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Decode("s", s); err != nil || len(s) > MaxCursorBytes {
		t.Errorf("a cursor of %d bytes: %v", len(s), err)
	}
}
