package bounded

import (
	"strings"
	"testing"
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
