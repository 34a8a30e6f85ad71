package driver

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// cursorAlphabet is the URL-safe base64 alphabet cursors are written in.
const cursorAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// strictCursors are cursors of every key type and of each length modulo 4
// (so that the last character has 0, 2 or 4 unused bits), plain and
// signed.
func strictCursors(t *testing.T) []struct {
	codec Codec
	s     string
} {
	t.Helper()
	var out []struct {
		codec Codec
		s     string
	}
	for _, codec := range []Codec{{}, {Key: []byte("strict")}} {
		for _, cur := range []Cursor{
			{Offset: 3, Keys: []any{int64(5), "id"}},
			{Offset: 4, Keys: []any{int64(5), "ide"}},
			{Offset: 5, Keys: []any{int64(5), "idee"}},
			{Backward: true, Offset: 300, Keys: []any{0.5, "src/a.go", int64(12), "chunk-7"}},
			{Offset: 0, Keys: []any{nil, true, false, int64(math.MinInt64), math.Inf(1), ""}},
			{Offset: MaxOffset, Keys: []any{strings.Repeat("é", 40)}},
		} {
			s, err := codec.Encode("scope", cur)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := codec.Decode("scope", s); err != nil {
				t.Fatalf("Decode of the issued %q: %v", s, err)
			}
			out = append(out, struct {
				codec Codec
				s     string
			}{codec, s})
		}
	}
	return out
}

// alterations returns every string one edit away from s: each character
// replaced by every other character of the alphabet and by characters
// outside it, each of those inserted at every position, each character
// deleted, and line breaks and padding appended.
func alterations(s string) []string {
	chars := cursorAlphabet + "\n\r\t =+/.\x00\xff"
	var out []string
	for i := 0; i <= len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if i < len(s) && chars[j] != s[i] {
				out = append(out, s[:i]+chars[j:j+1]+s[i+1:])
			}
			out = append(out, s[:i]+chars[j:j+1]+s[i:])
		}
		if i < len(s) {
			out = append(out, s[:i]+s[i+1:])
		}
	}
	for _, tail := range []string{"\r\n", "==", "%0A"} {
		out = append(out, s+tail)
	}
	return out
}

// TestCursorStrictAlterations: a cursor altered in any one character,
// including in the unused bits of its last one or by a line break the
// base64 decoder would skip, is refused, whatever it decodes to.
func TestCursorStrictAlterations(t *testing.T) {
	tried, sameBytes := 0, 0
	for _, c := range strictCursors(t) {
		issued, _ := base64.RawURLEncoding.DecodeString(c.s)
		for _, alt := range alterations(c.s) {
			if alt == c.s {
				continue
			}
			tried++
			if b, err := base64.RawURLEncoding.DecodeString(alt); err == nil && string(b) == string(issued) {
				sameBytes++ // what a lax decoder would accept
			}
			if cur, err := c.codec.Decode("scope", alt); !errors.Is(err, ErrInvalidCursor) {
				t.Errorf("Decode(%q), one edit from the issued %q: %+v, %v; want an error wrapping ErrInvalidCursor", alt, c.s, cur, err)
			}
		}
	}
	if sameBytes == 0 {
		t.Errorf("none of the %d alterations decodes to the issued bytes: the test no longer covers unused bits and skipped line breaks", tried)
	}
	t.Logf("%d alterations refused, %d of which decode to the issued bytes", tried, sameBytes)
}

// payloadCursor returns the cursor string of payload (the bytes after the
// scope hash) as codec would tag it, for scope.
func payloadCursor(codec Codec, backward bool, scope string, payload []byte) string {
	var flags byte
	if backward {
		flags |= cursorBackward
	}
	if len(codec.Key) > 0 {
		flags |= cursorSigned
	}
	h := scopeHash(scope)
	b := append([]byte{Version, flags}, h[:]...)
	if len(codec.Key) > 0 {
		id := keyID(codec.Key)
		b = append(b, id[:]...)
	}
	b = append(b, payload...)
	b = append(b, tag(codec.Key, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestCursorStrictNumbers: a number written in more bytes than Encode
// writes it (offset, key count, string length, integer key) is refused,
// though its checksum is right and it reads as the same number.
func TestCursorStrictNumbers(t *testing.T) {
	codec := Codec{}
	canonical := []byte{3, 2, keyInt, 10, keyString, 2, 'i', 'd'} // offset 3, keys 5 and "id"
	if s := payloadCursor(codec, false, "scope", canonical); s != mustEncode(t, codec, "scope", Cursor{Offset: 3, Keys: []any{int64(5), "id"}}) {
		t.Fatalf("payloadCursor does not build what Encode writes: %q", s)
	}
	for _, c := range []struct {
		name    string
		payload []byte
	}{
		{"offset", []byte{0x83, 0x00, 2, keyInt, 10, keyString, 2, 'i', 'd'}},
		{"offset, 10 bytes", append(append([]byte{0x83}, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}...), 0x00, 2, keyInt, 10, keyString, 2, 'i', 'd')},
		{"key count", []byte{3, 0x82, 0x00, keyInt, 10, keyString, 2, 'i', 'd'}},
		{"integer key", []byte{3, 2, keyInt, 0x8a, 0x00, keyString, 2, 'i', 'd'}},
		{"string length", []byte{3, 2, keyInt, 10, keyString, 0x82, 0x00, 'i', 'd'}},
		{"zero offset", []byte{0x80, 0x00, 2, keyInt, 10, keyString, 2, 'i', 'd'}},
	} {
		s := payloadCursor(codec, false, "scope", c.payload)
		if cur, err := codec.Decode("scope", s); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("%s written long: Decode(%q) = %+v, %v; want an error wrapping ErrInvalidCursor", c.name, s, cur, err)
		}
	}
}

func mustEncode(t *testing.T, codec Codec, scope string, cur Cursor) string {
	t.Helper()
	s, err := codec.Encode(scope, cur)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzCursorStrict: Decode accepts no string but the one Encode writes for
// the cursor it decodes to. The fuzzer edits issued cursors; see
// FuzzCursorPayload for contents with a valid checksum.
func FuzzCursorStrict(f *testing.F) {
	for _, codec := range []Codec{{}, {Key: []byte("strict")}} {
		for _, cur := range []Cursor{{Offset: 3, Keys: []any{int64(5), "id"}}, {Offset: 4, Keys: []any{int64(5), "ide"}}, {Backward: true, Offset: 9, Keys: []any{1.5, nil, true}}} {
			s, _ := codec.Encode("scope", cur)
			f.Add(s, len(codec.Key) > 0)
			f.Add(s+"\n", len(codec.Key) > 0)
		}
	}
	f.Fuzz(func(t *testing.T, s string, keyed bool) {
		codec := Codec{}
		if keyed {
			codec.Key = []byte("strict")
		}
		checkStrict(t, codec, s)
	})
}

// FuzzCursorPayload: cursors whose contents are arbitrary bytes under a
// valid checksum (as anyone can compute for an unsigned cursor) decode to
// an error or to a cursor that Encode writes as the same string.
func FuzzCursorPayload(f *testing.F) {
	f.Add([]byte{3, 2, keyInt, 10, keyString, 2, 'i', 'd'}, false, false)
	f.Add([]byte{0x83, 0x00, 2, keyInt, 10, keyString, 2, 'i', 'd'}, false, true)
	f.Add([]byte{0, 3, keyNil, keyTrue, keyFloat, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1}, true, false)
	f.Fuzz(func(t *testing.T, payload []byte, backward, keyed bool) {
		codec := Codec{}
		if keyed {
			codec.Key = []byte("strict")
		}
		checkStrict(t, codec, payloadCursor(codec, backward, "scope", payload))
	})
}

// checkStrict fails t when codec decodes s to a cursor it encodes as
// another string, or fails with an error not wrapping ErrInvalidCursor.
func checkStrict(t *testing.T, codec Codec, s string) {
	t.Helper()
	cur, err := codec.Decode("scope", s)
	if err != nil {
		if !errors.Is(err, ErrInvalidCursor) {
			t.Fatalf("Decode(%q): error %v does not wrap ErrInvalidCursor", s, err)
		}
		return
	}
	again, err := codec.Encode("scope", cur)
	if err != nil {
		t.Fatalf("Decode(%q) = %+v, which does not encode: %v", s, cur, err)
	}
	if again != s {
		t.Fatalf("Decode accepted %q, but the cursor it reads (%+v) is written %q", s, cur, again)
	}
}

// The varint forms the strict decoder refuses are longer forms of numbers
// binary.AppendUvarint writes shorter.
func TestCursorStrictVarintForms(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 1 << 40, math.MaxUint64} {
		b := binary.AppendUvarint(nil, v)
		r := cursorReader{b: b}
		if got := r.uvarint(); got != v || r.err != nil {
			t.Errorf("uvarint(%x) = %d, %v; want %d", b, got, r.err, v)
		}
		if len(b) < binary.MaxVarintLen64 {
			long := append(append(b[:len(b)-1:len(b)-1], b[len(b)-1]|0x80), 0)
			r := cursorReader{b: long}
			if r.uvarint(); r.err == nil {
				t.Errorf("uvarint(%x), %d written in %d bytes: no error", long, v, len(long))
			}
		}
	}
}
