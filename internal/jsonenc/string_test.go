package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/estimate"
)

// TestAppendJSONStringSequences holds appendJSONString and runeCount to
// encoding/json and utf8 on every byte from 0x80 followed by two bytes of
// every class a UTF-8 decoder tells apart (the edges of each lead byte's
// continuation range, ASCII, a lead byte, the end of the string), in the
// middle of a long string and at its end.
func TestAppendJSONStringSequences(t *testing.T) {
	next := []string{"", "a", "\x7f", "\x80", "\x8f", "\x90", "\x9f", "\xa0", "\xa8", "\xa9", "\xbf", "\xc0", "\xe2", "\xff"}
	for c := 0x80; c <= 0xff; c++ {
		for _, n1 := range next {
			for _, n2 := range next {
				seq := string([]byte{byte(c)}) + n1 + n2
				checkJSONString(t, seq)
				checkJSONString(t, "x"+seq)
				checkJSONString(t, strings.Repeat("w", 13)+seq+strings.Repeat("z", 9))
				checkJSONString(t, strings.Repeat("v", 40)+seq)
			}
		}
	}
}

func TestAppendJSONStringAndRuneCount(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\b\f\n\r\t\x00\x1f\x7f", "<>&", "é日本👩‍👩‍👧", "\u2028\u2029", "\xff", "a\xe2\x82", "\xed\xa0\x80", strings.Repeat("abcdefgh", 9) + "é"} {
		checkJSONString(t, s)
	}
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	if got, want := string(AppendString(nil, s)), strings.TrimSuffix(want.String(), "\n"); got != want {
		t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
	}
	if got, want := RuneCount([]byte(s)), utf8.RuneCountInString(s); got != want {
		t.Errorf("RuneCount(%q) = %d, want %d", s, got, want)
	}
}

// TestRuneCount compares runeCount with utf8.RuneCount on ASCII runs of
// every length around its 32-byte steps, with non-ASCII and invalid bytes
// at every position.
func TestRuneCount(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	pieces := []string{"a", "é", "日", "😀", "\xff", "\xe6\x97", "\x80", strings.Repeat("x", 31), strings.Repeat("y", 64)}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := []byte(b.String())
		for i := range min(len(s), 40) + 1 {
			if got, want := RuneCount(s[i:]), utf8.RuneCount(s[i:]); got != want {
				t.Fatalf("RuneCount(%q) = %d, want %d", s[i:], got, want)
			}
		}
	}
}

// FuzzAppendJSONString checks the hand-written string encoding and rune
// count against encoding/json and unicode/utf8, and the runes the encoding
// adds up against runeCosts.
func FuzzAppendJSONString(f *testing.F) {
	f.Add("plain")
	f.Add("\b\f\n\r\t\x00\x1f\x7f\"\\<>&\u2028\u2029\xff\xe2\x82é日👩‍👩‍👧")
	f.Add("overlong \xe0\x80\xaf, surrogate \xed\xa0\x80, \xed\x9f\xbf, \xc1\xbf, \xf4\x90\x80\x80, \xe2\x80\xa8\xe2\x80")
	f.Fuzz(func(t *testing.T, s string) {
		checkJSONString(t, s)
		// The runes it adds up are those the Estimator reads in what it
		// writes.
		var sum estimate.RuneSum
		out := AppendStringSum(nil, s, &sum)
		if milli, extra := estimate.RuneCosts(out); sum != (estimate.RuneSum{Milli: milli, Extra: extra}) || string(out) != string(AppendString(nil, s)) {
			t.Fatalf("AppendStringSum(%q): %s, %+v; want %d, %d", s, out, sum, milli, extra)
		}
	})
}
