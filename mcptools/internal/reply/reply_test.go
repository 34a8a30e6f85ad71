package reply

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
)

// TestClipMiddle: a text over its limit keeps its head and tail, valid
// UTF-8, within the limit, whatever the limit.
func TestClipMiddle(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("ä", 100), strings.Repeat("ab€", 5000), "x\xffy" + strings.Repeat("z", 200)} {
		n := utf8.RuneCountInString(s)
		for most := 0; most <= n+2; most += 1 + most/7 {
			got := ClipMiddle(s, most)
			switch m := utf8.RuneCountInString(got); {
			case n <= most && got != s:
				t.Errorf("ClipMiddle(%.20q, %d) = %.40q, want it unchanged", s, most, got)
			case m > most:
				t.Errorf("ClipMiddle(%.20q, %d): %d runes", s, most, m)
			case utf8.ValidString(s) && !utf8.ValidString(got):
				t.Errorf("ClipMiddle(%.20q, %d): invalid UTF-8", s, most)
			case n > most && most >= 60 && (!strings.Contains(got, "…[truncated ") || got[:8] != s[:8] || !strings.HasSuffix(s, got[len(got)-4:])):
				t.Errorf("ClipMiddle(%.20q, %d) = %.80q, want its head, a marker and its tail", s, most, got)
			}
		}
	}
}

// TestFitText: a text fits the characters and the tokens of a budget.
func TestFitText(t *testing.T) {
	s := strings.Repeat("1 a;", 50_000)
	for _, b := range []bounded.Budget{{}, {MaxChars: 1000}, {MaxChars: 20_000, MaxTokens: 350}, {MaxChars: 1000, MaxTokens: 10, Margin: 1}} {
		got := fitText(s, b)
		if n, tokens := utf8.RuneCountInString(got), b.CountTokens(got); n > b.LimitChars() || tokens > b.LimitTokens() || n < min(b.LimitChars(), b.LimitTokens()) {
			t.Errorf("%+v: %d characters, %d tokens; want at most %d and %d", b, n, tokens, b.LimitChars(), b.LimitTokens())
		}
	}
}
