// Command graphemegen writes the Grapheme_Cluster_Break table of package
// internal/grapheme (table.go) from the Unicode data files in ucd/:
// GraphemeBreakProperty.txt and the Extended_Pictographic lines of
// emoji-data.txt. To move to a newer Unicode version, replace both files
// with that version's and internal/grapheme/testdata/GraphemeBreakTest.txt
// with its test file, then run go generate in internal/grapheme.
//
// Usage (from the module's root; grapheme.go's go:generate line runs it
// from internal/grapheme with paths relative to it):
//
//	go run ./internal/graphemegen -ucd internal/graphemegen/ucd -o internal/grapheme/table.go
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// props are the property values the table holds, with the names of their
// constants in package grapheme. Code points of no other value are Other.
var props = map[string]string{
	"CR":                    "gcCR",
	"LF":                    "gcLF",
	"Control":               "gcControl",
	"Extend":                "gcExtend",
	"ZWJ":                   "gcZWJ",
	"Regional_Indicator":    "gcRI",
	"Prepend":               "gcPrepend",
	"SpacingMark":           "gcSpacingMark",
	"L":                     "gcL",
	"V":                     "gcV",
	"T":                     "gcT",
	"LV":                    "gcLV",
	"LVT":                   "gcLVT",
	"Extended_Pictographic": "gcExtPict",
}

// Hangul syllables are left out of the table: package grapheme computes
// them (LV every 28th from U+AC00, LVT between), and the generator checks
// that the data agrees.
const hangulFirst, hangulLast = 0xAC00, 0xD7A3

type rng struct {
	lo, hi rune
	prop   string
}

func main() {
	dir := flag.String("ucd", "internal/graphemegen/ucd", "directory of the Unicode data files")
	out := flag.String("o", "internal/grapheme/table.go", "file to write")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("graphemegen: ")

	gcb, v1, err := parse(filepath.Join(*dir, "GraphemeBreakProperty.txt"), nil)
	if err != nil {
		log.Fatal(err)
	}
	pict, v2, err := parse(filepath.Join(*dir, "emoji-data.txt"), []string{"Extended_Pictographic"})
	if err != nil {
		log.Fatal(err)
	}
	if v1 != v2 {
		log.Fatalf("GraphemeBreakProperty.txt is Unicode %s, emoji-data.txt %s", v1, v2)
	}
	ranges, err := table(append(gcb, pict...))
	if err != nil {
		log.Fatal(err)
	}
	src, err := render(ranges, v1)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

var versionRE = regexp.MustCompile(`(?:Unicode |-)(\d+\.\d+\.\d+)`)

// parse reads the ranges of a UCD property file, "lo..hi ; Value # comment"
// a line, keeping the values in want (all, each one props names, when
// nil), and the Unicode version its header names.
func parse(path string, want []string) ([]rng, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var out []rng
	version := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, comment, _ := strings.Cut(sc.Text(), "#")
		if version == "" {
			if m := versionRE.FindStringSubmatch(comment); m != nil {
				version = m[1]
			}
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cps, value, ok := strings.Cut(line, ";")
		if !ok {
			return nil, "", fmt.Errorf("%s:%d: no ';' in %q", path, n, line)
		}
		value = strings.TrimSpace(value)
		if want != nil && !slices.Contains(want, value) {
			continue
		}
		if _, known := props[value]; !known {
			return nil, "", fmt.Errorf("%s:%d: unknown value %q", path, n, value)
		}
		first, last, isRange := strings.Cut(strings.TrimSpace(cps), "..")
		if !isRange {
			last = first
		}
		lo, err1 := strconv.ParseUint(first, 16, 32)
		hi, err2 := strconv.ParseUint(last, 16, 32)
		if err1 != nil || err2 != nil || lo > hi || hi > 0x10FFFF {
			return nil, "", fmt.Errorf("%s:%d: bad code points %q", path, n, cps)
		}
		out = append(out, rng{rune(lo), rune(hi), value})
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if version == "" {
		return nil, "", fmt.Errorf("%s: no Unicode version in its header", path)
	}
	return out, version, nil
}

// table sorts rs, refuses overlaps, checks and drops the Hangul syllables,
// and merges adjacent ranges of one value.
func table(rs []rng) ([]rng, error) {
	slices.SortFunc(rs, func(a, b rng) int { return int(a.lo - b.lo) })
	hangul := 0
	var out []rng
	for i, r := range rs {
		if i > 0 && r.lo <= rs[i-1].hi {
			return nil, fmt.Errorf("%04X..%04X %s overlaps %04X..%04X %s", r.lo, r.hi, r.prop, rs[i-1].lo, rs[i-1].hi, rs[i-1].prop)
		}
		if r.hi >= hangulFirst && r.lo <= hangulLast {
			for c := r.lo; c <= r.hi; c++ {
				want := "LVT"
				if (c-hangulFirst)%28 == 0 {
					want = "LV"
				}
				if c < hangulFirst || c > hangulLast || r.prop != want {
					return nil, fmt.Errorf("U+%04X is %s; the Hangul rule says %s", c, r.prop, want)
				}
				hangul++
			}
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi+1 == r.lo && out[n-1].prop == r.prop {
			out[n-1].hi = r.hi
			continue
		}
		out = append(out, r)
	}
	if hangul != hangulLast-hangulFirst+1 {
		return nil, fmt.Errorf("%d Hangul syllables have LV or LVT, want %d", hangul, hangulLast-hangulFirst+1)
	}
	return out, nil
}

func render(rs []rng, version string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by go run ./internal/graphemegen; DO NOT EDIT.

package grapheme

// unicodeVersion is the Unicode version of ranges.
const unicodeVersion = %q

// ranges are the code points whose Grapheme_Cluster_Break is not
// Other, or which are Extended_Pictographic, in order, but for the Hangul
// syllables U+AC00..U+D7A3 (see propOf).
var ranges = [...]propRange{
`, version)
	for _, r := range rs {
		fmt.Fprintf(&b, "\t{0x%04X, 0x%04X, %s},\n", r.lo, r.hi, props[r.prop])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
