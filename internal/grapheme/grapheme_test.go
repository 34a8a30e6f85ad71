package grapheme

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

// TestBreakTest checks the Scanner against every case of Unicode's
// GraphemeBreakTest.txt, of the version of the property table.
func TestBreakTest(t *testing.T) {
	tests, version := readBreakTests(t, filepath.Join("testdata", "GraphemeBreakTest.txt"))
	if version != unicodeVersion {
		t.Fatalf("the test file is Unicode %q, the property table %q", version, unicodeVersion)
	}
	if len(tests) < 600 { // 602 in Unicode 15.0.0: the file was cut short
		t.Fatalf("%d test lines, want 600 or more", len(tests))
	}
	for _, bt := range tests {
		s := strings.Join(bt.clusters, "")
		if got := split(s); !slices.Equal(got, bt.clusters) {
			t.Errorf("line %d: got %s, want %s", bt.line, breakNotation(got), breakNotation(bt.clusters))
		}
	}
}

// split splits s into extended grapheme clusters with a Scanner.
func split(s string) []string {
	var g Scanner
	var out []string
	start := 0
	for i, r := range s {
		if g.Next(r) && i > 0 {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// TestPropFastPaths checks propOf's shortcuts against the
// table, on every code point but the Hangul syllables, which the table
// leaves to the shortcut (graphemegen checks it against the data).
func TestPropFastPaths(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xAC00 && r <= 0xD7A3 {
			continue
		}
		if got, want := propOf(r), lookup(r); got != want {
			t.Errorf("propOf(%U) = %d, the table says %d", r, got, want)
		}
	}
}

// TestTableGenerated checks that table.go is what its
// generator writes from the data files.
func TestTableGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out := filepath.Join(t.TempDir(), "table.go")
	if b, err := exec.Command("go", "run", "../graphemegen", "-ucd", "../graphemegen/ucd", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("graphemegen: %v\n%s", err, b)
	}
	got, err := os.ReadFile("table.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("table.go differs from what graphemegen writes: run go generate")
	}
}
