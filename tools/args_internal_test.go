package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodedRunes(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t cr\r", "\x01\x1f", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "<a&b>"} {
		want := len([]rune(string(mustJSON(s))))
		if got := encodedRunes(s); got != want {
			t.Errorf("encodedRunes(%q) = %d, want %d (%s)", s, got, want, mustJSON(s))
		}
	}
}

func TestClipTextFitsRoom(t *testing.T) {
	r := &request{}
	s := strings.Repeat("line \"quoted\"\n", 500)
	for _, chars := range []int{50, 100, 999, 5000} {
		out, info := r.clipText(s, 0, room{chars, 1 << 30})
		if n := encodedRunes(out); n > chars {
			t.Errorf("room %d: encoded %d runes", chars, n)
		}
		if !info.Clipped {
			t.Errorf("room %d: not reported clipped", chars)
		}
	}
	if out, info := r.clipText("short", 0, room{100, 100}); out != "short" || info.Clipped {
		t.Errorf("short text changed: %q %+v", out, info)
	}
}

// TestClipTextFitsTokenRoom clips texts to a room in tokens, as the
// request's budget counts them: CJK text takes a token a character or
// more, so the token room binds long before the characters'.
func TestClipTextFitsTokenRoom(t *testing.T) {
	r := &request{}
	for _, s := range []string{strings.Repeat("日本語のテキスト。", 300), strings.Repeat("line \"quoted\"\n", 500)} {
		for _, tokens := range []int{30, 100, 999} {
			out, info := r.clipText(s, 0, room{1 << 30, tokens})
			if n := r.budget.CountTokens(string(mustJSON(out))); n > tokens {
				t.Errorf("%.10q, room %d tokens: encoded %d tokens", s, tokens, n)
			}
			if !info.Clipped || utf8.RuneCountInString(out) < tokens/4 {
				t.Errorf("%.10q, room %d tokens: clipped %v to %d characters", s, tokens, info.Clipped, utf8.RuneCountInString(out))
			}
		}
	}
}
