package bounded

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/internal/grapheme/graphemetest"
)

// TestClipGraphemeBreakTest cuts every case of Unicode's
// GraphemeBreakTest.txt with Clip at every rune, between controls and
// before a tail: Clip keeps the first control and the clusters of the case
// that end at or before that rune (a control other than CR and LF breaks
// on both sides: GB4, GB5). Package internal/grapheme checks its segmenter
// against the same file.
func TestClipGraphemeBreakTest(t *testing.T) {
	path := filepath.Join("internal", "grapheme", "testdata", "GraphemeBreakTest.txt")
	tests, _, err := graphemetest.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	const tailLen = 2000 // removed counts of 4 digits: one marker length
	cases := 0
	for _, tc := range tests {
		n, clusters := tc.Line, tc.Clusters
		cases++
		s := strings.Join(clusters, "")
		text := "\x01" + s + "\x01" + strings.Repeat("y", tailLen)
		total := 1 + len([]rune(s)) + 1 + tailLen
		kept, keptRunes, c := "\x01", 1, 0
		for j := 0; j <= len([]rune(s)); j++ {
			if c < len(clusters) && keptRunes+len([]rune(clusters[c])) == 1+j {
				kept += clusters[c]
				keptRunes += len([]rune(clusters[c]))
				c++
			}
			limit := 1 + j + clipMarkerLen(total-1-j)
			want := kept + clipMarkerOpen + FormatCount(total-keptRunes) + clipMarkerClose
			if got, _ := Clip(text, limit); got != want {
				t.Errorf("line %d: Clip to %d runes kept %q, want %q", n, limit, strings.TrimSuffix(got, got[strings.Index(got, clipMarkerOpen):]), kept)
			}
		}
	}
	if cases < 600 { // 602 in Unicode 15.0.0: the file was cut short
		t.Fatalf("%d test lines, want 600 or more", cases)
	}
}
