// Package graphemetest reads Unicode's GraphemeBreakTest.txt and splits
// text into clusters, for the tests of the segmenter and of clipping.
package graphemetest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded/internal/grapheme"
)

// Case is one line of GraphemeBreakTest.txt: its number and the clusters
// of its string.
type Case struct {
	Line     int
	Clusters []string
}

var versionRE = regexp.MustCompile(`Unicode (\d+\.\d+\.\d+)`)

// Read parses the GraphemeBreakTest.txt at path and returns its cases and
// the Unicode version its header names. A malformed line is an error.
func Read(path string) ([]Case, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	version := ""
	var cases []Case
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, comment, _ := strings.Cut(sc.Text(), "#")
		if m := versionRE.FindStringSubmatch(comment); version == "" && m != nil {
			version = m[1]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		// ÷ cp (÷|×) cp ... ÷: marks and code points alternate.
		if len(fields)%2 == 0 || fields[0] != "÷" || fields[len(fields)-1] != "÷" {
			return nil, "", fmt.Errorf("%s:%d: malformed: %q", path, n, line)
		}
		c := Case{Line: n}
		var cluster []rune
		for i := 1; i < len(fields); i += 2 {
			cp, err := strconv.ParseUint(fields[i], 16, 32)
			if err != nil {
				return nil, "", fmt.Errorf("%s:%d: %v", path, n, err)
			}
			cluster = append(cluster, rune(cp))
			switch fields[i+1] {
			case "÷":
				c.Clusters = append(c.Clusters, string(cluster))
				cluster = cluster[:0]
			case "×":
			default:
				return nil, "", fmt.Errorf("%s:%d: %q is neither ÷ nor ×", path, n, fields[i+1])
			}
		}
		cases = append(cases, c)
	}
	return cases, version, sc.Err()
}

// Split splits s into extended grapheme clusters with a grapheme.Scanner.
func Split(s string) []string {
	var g grapheme.Scanner
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
