package bounded

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// breakTest is one line of GraphemeBreakTest.txt: a string and its
// clusters.
type breakTest struct {
	line     int
	clusters []string
}

// readBreakTests parses a GraphemeBreakTest.txt, and returns its test lines
// and the Unicode version its header names.
func readBreakTests(t *testing.T, path string) ([]breakTest, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	version := ""
	var tests []breakTest
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, comment, _ := strings.Cut(sc.Text(), "#")
		if m := regexp.MustCompile(`Unicode (\d+\.\d+\.\d+)`).FindStringSubmatch(comment); version == "" && m != nil {
			version = m[1]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		// ÷ cp (÷|×) cp ... ÷: marks and code points alternate.
		if len(fields)%2 == 0 || fields[0] != "÷" || fields[len(fields)-1] != "÷" {
			t.Fatalf("%s:%d: malformed: %q", path, n, line)
		}
		bt := breakTest{line: n}
		var cluster []rune
		for i := 1; i < len(fields); i += 2 {
			cp, err := strconv.ParseUint(fields[i], 16, 32)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			cluster = append(cluster, rune(cp))
			switch fields[i+1] {
			case "÷":
				bt.clusters = append(bt.clusters, string(cluster))
				cluster = cluster[:0]
			case "×":
			default:
				t.Fatalf("%s:%d: %q is neither ÷ nor ×", path, n, fields[i+1])
			}
		}
		tests = append(tests, bt)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tests, version
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

// TestGraphemeBreakTest checks the segmenter Clip uses against every case of
// Unicode's GraphemeBreakTest.txt, of the version of the property table;
// and Clip itself, cutting each case at every rune.
func TestGraphemeBreakTest(t *testing.T) {
	tests, version := readBreakTests(t, filepath.Join("testdata", "GraphemeBreakTest.txt"))
	if version != graphemeUnicodeVersion {
		t.Fatalf("the test file is Unicode %q, the property table %q", version, graphemeUnicodeVersion)
	}
	if len(tests) < 600 { // 602 in Unicode 15.0.0: the file was cut short
		t.Fatalf("%d test lines, want 600 or more", len(tests))
	}
	const tailLen = 2000 // removed counts of 4 digits: one marker length
	for _, bt := range tests {
		s := strings.Join(bt.clusters, "")
		if got := splitGraphemes(s); !slices.Equal(got, bt.clusters) {
			t.Errorf("line %d: got %s, want %s", bt.line, breakNotation(got), breakNotation(bt.clusters))
			continue
		}
		// Clip of s between controls and before a tail, at every rune of
		// s: it keeps the first control and the clusters of s that end at
		// or before that rune (a control other than CR and LF breaks on
		// both sides: GB4, GB5).
		text := "\x01" + s + "\x01" + strings.Repeat("y", tailLen)
		n := 1 + len([]rune(s)) + 1 + tailLen
		kept, keptRunes, c := "\x01", 1, 0
		for j := 0; j <= len([]rune(s)); j++ {
			if c < len(bt.clusters) && keptRunes+len([]rune(bt.clusters[c])) == 1+j {
				kept += bt.clusters[c]
				keptRunes += len([]rune(bt.clusters[c]))
				c++
			}
			limit := 1 + j + clipMarkerLen(n-1-j)
			want := kept + clipMarkerOpen + FormatCount(n-keptRunes) + clipMarkerClose
			if got, _ := Clip(text, limit); got != want {
				t.Errorf("line %d, %s: Clip to %d runes kept %q, want %q", bt.line, breakNotation(bt.clusters), limit, strings.TrimSuffix(got, got[strings.Index(got, clipMarkerOpen):]), kept)
			}
		}
	}
}

// TestGraphemePropFastPaths checks graphemeProp's shortcuts against the
// table, on every code point but the Hangul syllables, which the table
// leaves to the shortcut (graphemegen checks it against the data).
func TestGraphemePropFastPaths(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xAC00 && r <= 0xD7A3 {
			continue
		}
		if got, want := graphemeProp(r), graphemeLookup(r); got != want {
			t.Errorf("graphemeProp(%U) = %d, the table says %d", r, got, want)
		}
	}
}

// TestGraphemeTableGenerated checks that grapheme_table.go is what its
// generator writes from the data files.
func TestGraphemeTableGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out := filepath.Join(t.TempDir(), "grapheme_table.go")
	if b, err := exec.Command("go", "run", "./internal/graphemegen", "-ucd", "internal/graphemegen/ucd", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("graphemegen: %v\n%s", err, b)
	}
	got, err := os.ReadFile("grapheme_table.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("grapheme_table.go differs from what graphemegen writes: run go generate")
	}
}
