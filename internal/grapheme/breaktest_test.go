package grapheme_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/internal/grapheme"
	"github.com/boundedkit/bounded/internal/grapheme/graphemetest"
)

// TestBreakTest checks the Scanner against every case of Unicode's
// GraphemeBreakTest.txt, of the version of the property table.
func TestBreakTest(t *testing.T) {
	cases, version, err := graphemetest.Read(filepath.Join("testdata", "GraphemeBreakTest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if version != grapheme.UnicodeVersion {
		t.Fatalf("the test file is Unicode %q, the property table %q", version, grapheme.UnicodeVersion)
	}
	if len(cases) < 600 { // 602 in Unicode 15.0.0: the file was cut short
		t.Fatalf("%d test lines, want 600 or more", len(cases))
	}
	for _, c := range cases {
		if got := graphemetest.Split(strings.Join(c.Clusters, "")); !slices.Equal(got, c.Clusters) {
			t.Errorf("line %d: got %s, want %s", c.Line, breakNotation(got), breakNotation(c.Clusters))
		}
	}
}

// breakNotation writes clusters as GraphemeBreakTest.txt does.
func breakNotation(clusters []string) string {
	var b strings.Builder
	b.WriteString("÷")
	for _, c := range clusters {
		for i, r := range []rune(c) {
			if i > 0 {
				b.WriteString(" ×")
			}
			fmt.Fprintf(&b, " %04X", r)
		}
		b.WriteString(" ÷")
	}
	return b.String()
}
