package bounded

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/grapheme/graphemetest"
)

func TestWindowNormalize(t *testing.T) {
	tests := []struct {
		name        string
		in          Window
		want        Window
		wantClamped bool
		wantErr     string
	}{
		{name: "zero gets default", in: Window{}, want: Window{MaxLines: 500}},
		{name: "explicit kept", in: Window{MaxLines: 7, Offset: 3}, want: Window{MaxLines: 7, Offset: 3}},
		{name: "at max", in: Window{MaxLines: 2000}, want: Window{MaxLines: 2000}},
		{name: "above max clamped", in: Window{MaxLines: 2001, Offset: 9}, want: Window{MaxLines: 2000, Offset: 9}, wantClamped: true},
		{name: "negative offset", in: Window{Offset: -3}, wantErr: "bounded: invalid window: offset -3 is negative"},
		{name: "negative maxLines", in: Window{MaxLines: -1}, wantErr: "bounded: invalid window: maxLines -1 is negative"},
		{name: "both negative reports maxLines", in: Window{MaxLines: -2, Offset: -1}, wantErr: "bounded: invalid window: maxLines -2 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, clamped, err := tt.in.Normalize()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("%s: got error %v, want %q", tt.name, err, tt.wantErr)
				}
				if !errors.Is(err, ErrInvalidWindow) {
					t.Fatalf("%s: error %v does not wrap ErrInvalidWindow", tt.name, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: unexpected error %v", tt.name, err)
			}
			if got != tt.want || clamped != tt.wantClamped {
				t.Fatalf("%s: got %+v clamped=%v, want %+v clamped=%v", tt.name, got, clamped, tt.want, tt.wantClamped)
			}
		})
	}
}

func TestApplyWindow(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		w        Window
		want     string
		wantInfo WindowInfo
	}{
		{name: "empty document", doc: "", w: Window{},
			want: "", wantInfo: WindowInfo{}},
		{name: "empty document offset past end", doc: "", w: Window{Offset: 2},
			want: "", wantInfo: WindowInfo{Offset: 2, Truncated: true}},
		{name: "one line no newline", doc: "a", w: Window{},
			want: "a", wantInfo: WindowInfo{TotalLines: 1, ReturnedLines: 1}},
		{name: "one line with newline", doc: "a\n", w: Window{},
			want: "a\n", wantInfo: WindowInfo{TotalLines: 1, ReturnedLines: 1}},
		{name: "two lines no trailing newline", doc: "a\nb", w: Window{},
			want: "a\nb", wantInfo: WindowInfo{TotalLines: 2, ReturnedLines: 2}},
		{name: "only newline is one empty line", doc: "\n", w: Window{},
			want: "\n", wantInfo: WindowInfo{TotalLines: 1, ReturnedLines: 1}},
		{name: "blank lines count", doc: "\n\n\n", w: Window{MaxLines: 2, Offset: 1},
			want: "\n\n", wantInfo: WindowInfo{TotalLines: 3, ReturnedLines: 2, Offset: 1, Truncated: true}},
		{name: "first window", doc: "a\nb\nc\nd\ne", w: Window{MaxLines: 2},
			want: "a\nb\n", wantInfo: WindowInfo{TotalLines: 5, ReturnedLines: 2, Truncated: true, NextOffset: 2}},
		{name: "middle window", doc: "a\nb\nc\nd\ne", w: Window{MaxLines: 2, Offset: 2},
			want: "c\nd\n", wantInfo: WindowInfo{TotalLines: 5, ReturnedLines: 2, Offset: 2, Truncated: true, NextOffset: 4}},
		{name: "last window no trailing newline", doc: "a\nb\nc\nd\ne", w: Window{MaxLines: 2, Offset: 4},
			want: "e", wantInfo: WindowInfo{TotalLines: 5, ReturnedLines: 1, Offset: 4, Truncated: true}},
		{name: "exact fit from start", doc: "a\nb\n", w: Window{MaxLines: 2},
			want: "a\nb\n", wantInfo: WindowInfo{TotalLines: 2, ReturnedLines: 2}},
		{name: "offset at end", doc: "a\nb\n", w: Window{Offset: 2},
			want: "", wantInfo: WindowInfo{TotalLines: 2, Offset: 2, Truncated: true}},
		{name: "offset far past end", doc: "a\nb\n", w: Window{Offset: 1 << 40},
			want: "", wantInfo: WindowInfo{TotalLines: 2, Offset: 1 << 40, Truncated: true}},
		{name: "crlf kept with its line", doc: "a\r\nb\r\nc\r\n", w: Window{MaxLines: 1, Offset: 1},
			want: "b\r\n", wantInfo: WindowInfo{TotalLines: 3, ReturnedLines: 1, Offset: 1, Truncated: true, NextOffset: 2}},
		{name: "crlf no trailing newline", doc: "a\r\nb\r\nc", w: Window{Offset: 1},
			want: "b\r\nc", wantInfo: WindowInfo{TotalLines: 3, ReturnedLines: 2, Offset: 1, Truncated: true}},
		{name: "lone cr is not a line break", doc: "a\rb\nc", w: Window{MaxLines: 1},
			want: "a\rb\n", wantInfo: WindowInfo{TotalLines: 2, ReturnedLines: 1, Truncated: true, NextOffset: 1}},
		{name: "clamped", doc: "x\n", w: Window{MaxLines: 9999},
			want: "x\n", wantInfo: WindowInfo{TotalLines: 1, ReturnedLines: 1, Clamped: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, info, err := ApplyWindow(tt.doc, tt.w)
			if err != nil {
				t.Fatalf("%s: unexpected error %v", tt.name, err)
			}
			if got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			}
			if info != tt.wantInfo {
				t.Errorf("%s: got info %+v, want %+v", tt.name, info, tt.wantInfo)
			}
		})
	}
}

func TestApplyWindowInvalid(t *testing.T) {
	for _, w := range []Window{{Offset: -1}, {MaxLines: -5}} {
		got, info, err := ApplyWindow("a\nb\n", w)
		if !errors.Is(err, ErrInvalidWindow) {
			t.Errorf("%+v: got error %v, want ErrInvalidWindow", w, err)
		}
		if got != "" || info != (WindowInfo{}) {
			t.Errorf("%+v: got %q %+v, want zero values", w, got, info)
		}
	}
}

func TestWindowInfoJSON(t *testing.T) {
	b, err := json.Marshal(WindowInfo{TotalLines: 10, ReturnedLines: 2, Offset: 3, Truncated: true, NextOffset: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"totalLines":10,"returnedLines":2,"offset":3,"isTruncated":true,"nextOffset":5}`
	if string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}

// windowTestDoc returns a document of n lines mixing "\n" and "\r\n" endings, with
// lines of varying length, Unicode content and blank lines, and no trailing
// newline when noFinal is set.
func windowTestDoc(n int, noFinal bool) string {
	var b strings.Builder
	for i := range n {
		switch i % 7 {
		case 0:
			// blank line
		case 3:
			fmt.Fprintf(&b, "línea %d 👩‍👩‍👧 %s", i, strings.Repeat("x", i%37))
		default:
			fmt.Fprintf(&b, "line %d", i)
		}
		if i == n-1 && noFinal {
			break
		}
		if i%5 == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// walkWindows reads doc window by window following NextOffset and returns the
// concatenation and the number of windows.
func walkWindows(t testing.TB, doc string, maxLines int) (string, int) {
	t.Helper()
	var b strings.Builder
	off, windows := 0, 0
	total := countDocLines(doc)
	for {
		text, info, err := ApplyWindow(doc, Window{MaxLines: maxLines, Offset: off})
		if err != nil {
			t.Fatalf("maxLines %d offset %d: %v", maxLines, off, err)
		}
		windows++
		if info.TotalLines != total {
			t.Fatalf("maxLines %d offset %d: got TotalLines %d, want %d", maxLines, off, info.TotalLines, total)
		}
		if got := countDocLines(text); got != info.ReturnedLines {
			t.Fatalf("maxLines %d offset %d: text has %d lines, info says %d", maxLines, off, got, info.ReturnedLines)
		}
		if pos := b.Len(); text != "" && (pos+len(text) > len(doc) || doc[pos:pos+len(text)] != text) {
			t.Fatalf("maxLines %d offset %d: returned text is not the next part of doc", maxLines, off)
		}
		b.WriteString(text)
		if info.NextOffset == 0 {
			if total > 0 && info.Offset+info.ReturnedLines != total {
				t.Fatalf("maxLines %d: stopped at offset %d+%d of %d lines", maxLines, info.Offset, info.ReturnedLines, total)
			}
			break
		}
		if !info.Truncated || info.NextOffset != off+info.ReturnedLines {
			t.Fatalf("maxLines %d offset %d: inconsistent info %+v", maxLines, off, info)
		}
		off = info.NextOffset
		if windows > total+1 {
			t.Fatalf("maxLines %d: walk does not terminate", maxLines)
		}
	}
	return b.String(), windows
}

func TestApplyWindowWalkReproducesDocument(t *testing.T) {
	for _, noFinal := range []bool{false, true} {
		doc := windowTestDoc(12000, noFinal)
		if got := countDocLines(doc); got != 12000 {
			t.Fatalf("windowTestDoc: got %d lines, want 12000", got)
		}
		for _, maxLines := range []int{0, 1, 7, 333, 500, 1999, 2000, 5000} {
			if maxLines == 1 && testing.Short() {
				continue // 12,000 windows, each scanning the document
			}
			name := fmt.Sprintf("noFinal=%v maxLines=%d", noFinal, maxLines)
			got, windows := walkWindows(t, doc, maxLines)
			if got != doc {
				t.Errorf("%s: concatenation differs from document (len %d vs %d)", name, len(got), len(doc))
			}
			per := min(max(maxLines, 0), MaxWindowLines)
			if maxLines == 0 {
				per = DefaultWindowLines
			}
			if want := (12000 + per - 1) / per; windows != want {
				t.Errorf("%s: got %d windows, want %d", name, windows, want)
			}
		}
	}
	for _, doc := range []string{"", "a", "a\n", "\n", "a\r\nb", "\r\n\r\n", "x\ny\nz"} {
		for maxLines := 1; maxLines <= 4; maxLines++ {
			if got, _ := walkWindows(t, doc, maxLines); got != doc {
				t.Errorf("maxLines %d: got %q, want %q", maxLines, got, doc)
			}
		}
	}
}

func TestApplyWindowDoesNotAllocate(t *testing.T) {
	doc := windowTestDoc(10000, false)
	allocs := testing.AllocsPerRun(100, func() {
		_, _, _ = ApplyWindow(doc, Window{MaxLines: 500, Offset: 4000})
	})
	if allocs != 0 {
		t.Errorf("got %v allocations, want 0", allocs)
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		in   int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {2345, "2,345"},
		{99999, "99,999"}, {100000, "100,000"}, {1234567, "1,234,567"},
		{-1, "-1"}, {-1000, "-1,000"}, {-123456, "-123,456"},
		{9223372036854775807, "9,223,372,036,854,775,807"},
		{-9223372036854775808, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := FormatCount(tt.in); got != tt.want {
			t.Errorf("FormatCount(%d): got %q, want %q", tt.in, got, tt.want)
		}
		if tt.in >= 0 {
			if got := formatCountLen(tt.in); got != len(tt.want) {
				t.Errorf("formatCountLen(%d): got %d, want %d", tt.in, got, len(tt.want))
			}
		}
	}
}

// Cluster fixtures used by several tests.
const (
	clusFamily    = "👩\u200d👩\u200d👧"    // ZWJ sequence
	clusThumbs    = "👍\U0001F3FD"        // skin-tone modifier
	clusFlagUS    = "🇺🇸"                 // regional indicator pair
	clusFlagFR    = "🇫🇷"                 // regional indicator pair
	clusEAcute    = "e\u0301"            // combining mark
	clusHeart     = "\u2764\ufe0f"       // variation selector
	clusHangulJam = "\u1100\u1161\u11a8" // L V T jamo
	clusHangulSyl = "\uac01\u11a8"       // LVT syllable + T (rare but valid)
	clusRainbow   = "🏳\ufe0f\u200d🌈"     // flag ZWJ sequence
	clusScotland  = "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
	clusDevaMc    = "\u0915\u093f" // KA + vowel sign I (SpacingMark)
	clusCRLF      = "\r\n"
)

func TestGraphemeClusters(t *testing.T) {
	tests := []struct {
		name string
		in   []string // expected clusters
	}{
		{"ascii", []string{"a", "b", "c"}},
		{"zwj family", []string{"a", clusFamily, "b"}},
		{"skin tone", []string{clusThumbs, clusThumbs}},
		{"flags", []string{clusFlagUS, clusFlagFR, clusFlagUS}},
		{"odd regional indicator", []string{clusFlagUS, "🇫", "x"}},
		{"combining", []string{clusEAcute, "e\u0301\u0308", "x"}},
		{"variation selector", []string{clusHeart, "a\ufe0e"}},
		{"hangul", []string{clusHangulJam, clusHangulSyl, "\uac00\u1161", "한", "국"}},
		{"rainbow flag", []string{clusRainbow, "x"}},
		{"tag flag", []string{clusScotland, clusFlagFR}},
		{"spacing mark", []string{clusDevaMc, "a"}},
		{"crlf", []string{"a", clusCRLF, "b", "\r", "\r", clusCRLF}},
		{"control breaks", []string{"\t", "\u0301", "a"}},
		{"zwj without pictographic", []string{"a\u200d", "b"}},
		{"invalid utf8", []string{"\xff", "\xfe", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := graphemetest.Split(strings.Join(tt.in, ""))
			if !slices.Equal(got, tt.in) {
				t.Errorf("%s: got %q, want %q", tt.name, got, tt.in)
			}
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		name     string
		s        string
		max      int
		want     string
		wantInfo ClipInfo
	}{
		{name: "fits", s: "hello", max: 5, want: "hello",
			wantInfo: ClipInfo{OriginalChars: 5, ReturnedChars: 5}},
		{name: "empty", s: "", max: 0, want: "",
			wantInfo: ClipInfo{}},
		{name: "fits counts runes not bytes", s: "héllo 世界", max: 8, want: "héllo 世界",
			wantInfo: ClipInfo{OriginalChars: 8, ReturnedChars: 8}},
		{name: "ascii", s: strings.Repeat("a", 100), max: 30, want: "aaaaaaaaa…[truncated 91 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 100, ReturnedChars: 30, RemovedChars: 91}},
		{name: "thousands separator", s: strings.Repeat("b", 2400), max: 60,
			want:     strings.Repeat("b", 36) + "…[truncated 2,364 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 2400, ReturnedChars: 60, RemovedChars: 2364}},
		{name: "marker shrinks across 1,000", s: strings.Repeat("c", 1000), max: 23, want: "c…[truncated 999 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 1000, ReturnedChars: 23, RemovedChars: 999}},
		{name: "marker alone", s: strings.Repeat("d", 50), max: 21, want: "…[truncated 50 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 50, ReturnedChars: 21, RemovedChars: 50}},
		{name: "too small for marker", s: "hello world", max: 5, want: "…",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 11, ReturnedChars: 1, RemovedChars: 11}},
		{name: "zero", s: "hello", max: 0, want: "",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 5, RemovedChars: 5}},
		{name: "negative is zero", s: "hello", max: -4, want: "",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 5, RemovedChars: 5}},
		{name: "negative empty fits", s: "", max: -1, want: "",
			wantInfo: ClipInfo{}},
		{name: "combining marks kept whole", s: strings.Repeat(clusEAcute, 30), max: 30,
			want:     strings.Repeat(clusEAcute, 4) + "…[truncated 52 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 60, ReturnedChars: 29, RemovedChars: 52}},
		{name: "family not split", s: "abcdefgh" + clusFamily + strings.Repeat("z", 40), max: 31,
			want:     "abcdefgh…[truncated 45 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 53, ReturnedChars: 29, RemovedChars: 45}},
		{name: "flag pair not split", s: "abcdefgh" + clusFlagUS + strings.Repeat("z", 40), max: 30,
			want:     "abcdefgh…[truncated 42 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 50, ReturnedChars: 29, RemovedChars: 42}},
		{name: "crlf not split", s: "abcdefgh\r\n" + strings.Repeat("z", 40), max: 30,
			want:     "abcdefgh…[truncated 42 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 50, ReturnedChars: 29, RemovedChars: 42}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, info := Clip(tt.s, tt.max)
			if got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			}
			if info != tt.wantInfo {
				t.Errorf("%s: got info %+v, want %+v", tt.name, info, tt.wantInfo)
			}
			if n := utf8.RuneCountInString(got); n != info.ReturnedChars {
				t.Errorf("%s: result has %d runes, ReturnedChars %d", tt.name, n, info.ReturnedChars)
			}
		})
	}
}

func TestClipInfoJSON(t *testing.T) {
	b, err := json.Marshal(ClipInfo{Clipped: true, OriginalChars: 100, ReturnedChars: 30, RemovedChars: 91})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"clipped":true,"originalChars":100,"returnedChars":30,"removedChars":91}`
	if string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}

// clusterStrings are built from known clusters so that the valid cut points
// are known independently of the scanner.
var clusterStrings = [][]string{
	repeatClusters([]string{clusFamily, "a", clusThumbs, clusFlagUS, clusFlagFR, clusEAcute, clusHeart, clusHangulJam, "한", clusRainbow, clusScotland, clusDevaMc, clusCRLF, "z"}, 6),
	repeatClusters([]string{clusFamily}, 40),
	repeatClusters([]string{clusFlagUS, clusFlagFR}, 30),
	repeatClusters([]string{clusEAcute, "o\u0308\u0301"}, 40),
	repeatClusters([]string{"x", clusCRLF}, 50),
	repeatClusters([]string{clusHangulJam, clusHangulSyl}, 25),
	repeatClusters([]string{"日", "本", "語", clusThumbs}, 60),
	repeatClusters([]string{"a"}, 2500),
}

func repeatClusters(cs []string, n int) []string {
	var out []string
	for range n {
		out = append(out, cs...)
	}
	return out
}

// clipKeptPrefix returns the prefix of s that a Clip result keeps.
func clipKeptPrefix(t testing.TB, s, got string, info ClipInfo) string {
	t.Helper()
	keptRunes := info.OriginalChars - info.RemovedChars
	if !info.Clipped {
		return got
	}
	i := 0
	for range keptRunes {
		_, size := utf8.DecodeRuneInString(got[i:])
		i += size
	}
	kept := got[:i]
	marker := got[i:]
	if keptRunes == 0 && (marker == "" || marker == "…") {
		return ""
	}
	if want := "…[truncated " + FormatCount(info.RemovedChars) + " chars]"; marker != want {
		t.Fatalf("got marker %q, want %q", marker, want)
	}
	return kept
}

func TestClipNeverExceedsMaxAndKeepsClusters(t *testing.T) {
	extra := []string{"", "a", "hello, world", "\xff\xfeinvalid\xc3", strings.Repeat("é", 1200)}
	type input struct {
		s          string
		boundaries map[int]bool // byte offsets where a cut is allowed; nil = any rune boundary
	}
	var inputs []input
	for _, cs := range clusterStrings {
		b := map[int]bool{0: true}
		off := 0
		for _, c := range cs {
			off += len(c)
			b[off] = true
		}
		inputs = append(inputs, input{strings.Join(cs, ""), b})
	}
	for _, s := range extra {
		inputs = append(inputs, input{s, nil})
	}
	for idx, in := range inputs {
		s := in.s
		n := utf8.RuneCountInString(s)
		for max := 0; max <= n+2; max++ {
			name := fmt.Sprintf("input %d max %d", idx, max)
			got, info := Clip(s, max)
			rc := utf8.RuneCountInString(got)
			if rc > max || rc != info.ReturnedChars {
				t.Fatalf("%s: got %d runes (ReturnedChars %d), want <= %d", name, rc, info.ReturnedChars, max)
			}
			if info.OriginalChars != n || info.Clipped != (n > max) {
				t.Fatalf("%s: got info %+v for %d runes", name, info, n)
			}
			if !info.Clipped && got != s {
				t.Fatalf("%s: got %q, want %q", name, got, s)
			}
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Fatalf("%s: result %q is not valid UTF-8", name, got)
			}
			kept := clipKeptPrefix(t, s, got, info)
			if !strings.HasPrefix(s, kept) {
				t.Fatalf("%s: kept %q is not a prefix of the input", name, kept)
			}
			if info.Clipped && in.boundaries != nil && !in.boundaries[len(kept)] {
				t.Fatalf("%s: kept %q ends inside a grapheme cluster", name, kept)
			}
			// The cut must be maximal: the next cluster would not fit.
			if info.Clipped && max >= 20 && in.boundaries != nil {
				for next := len(kept) + 1; next <= len(s); next++ {
					if in.boundaries[next] {
						k := utf8.RuneCountInString(s[:next])
						if next < len(s) && k+clipMarkerLen(n-k) <= max {
							t.Fatalf("%s: kept %d bytes but a cut at %d bytes would fit", name, len(kept), next)
						}
						break
					}
				}
			}
			// ClipPrefix with exactly the first max runes, and with more.
			for _, extraRunes := range []int{0, 3} {
				p := firstRunes(s, max+extraRunes)
				gotP, infoP := ClipPrefix(p, max, n)
				if gotP != got || infoP != info {
					t.Fatalf("%s: ClipPrefix(+%d) got %q %+v, want %q %+v", name, extraRunes, gotP, infoP, got, info)
				}
			}
		}
	}
}

// firstRunes returns the first n runes of s (all of s if shorter).
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func TestClipPrefixContractViolations(t *testing.T) {
	tests := []struct {
		name      string
		prefix    string
		max, tot  int
		want      string
		wantInfo  ClipInfo
		maxResult int
	}{
		{name: "total smaller than prefix", prefix: strings.Repeat("a", 50), max: 30, tot: 10,
			want:     "aaaaaaaaa…[truncated 41 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 50, ReturnedChars: 30, RemovedChars: 41}},
		{name: "prefix shorter than promised", prefix: "abc", max: 30, tot: 100,
			want:     "abc…[truncated 97 chars]",
			wantInfo: ClipInfo{Clipped: true, OriginalChars: 100, ReturnedChars: 24, RemovedChars: 97}},
		{name: "whole body fits", prefix: "short", max: 30, tot: 5,
			want:     "short",
			wantInfo: ClipInfo{OriginalChars: 5, ReturnedChars: 5}},
	}
	for _, tt := range tests {
		got, info := ClipPrefix(tt.prefix, tt.max, tt.tot)
		if got != tt.want || info != tt.wantInfo {
			t.Errorf("%s: got %q %+v, want %q %+v", tt.name, got, info, tt.want, tt.wantInfo)
		}
	}
}

func numberedLines(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

func TestClipHeadTail(t *testing.T) {
	fm := "---\ntitle: x\n---\n"
	bigFM := "---\na: 1\nb: 2\nc: 3\n...\n"
	tests := []struct {
		name     string
		doc      string
		max      int
		want     string
		wantInfo HeadTailInfo
	}{
		{name: "fits unchanged", doc: "a\nb\nc", max: 3, want: "a\nb\nc",
			wantInfo: HeadTailInfo{TotalLines: 3, KeptLines: 3}},
		{name: "empty", doc: "", max: 0, want: "",
			wantInfo: HeadTailInfo{}},
		{name: "head and tail", doc: numberedLines("l", 1, 10), max: 5,
			want:     "l1\nl2\nl3\n…[6 lines omitted: lines 4-9]\nl10\n",
			wantInfo: HeadTailInfo{TotalLines: 10, KeptLines: 4, OmittedLines: 6, OmittedFrom: 4, OmittedTo: 9}},
		{name: "two thirds head", doc: numberedLines("l", 1, 1000), max: 10,
			want:     numberedLines("l", 1, 6) + "…[991 lines omitted: lines 7-997]\n" + numberedLines("l", 998, 1000),
			wantInfo: HeadTailInfo{TotalLines: 1000, KeptLines: 9, OmittedLines: 991, OmittedFrom: 7, OmittedTo: 997}},
		{name: "thousands in count", doc: numberedLines("l", 1, 1500), max: 4,
			want:     numberedLines("l", 1, 2) + "…[1,497 lines omitted: lines 3-1499]\n" + numberedLines("l", 1500, 1500),
			wantInfo: HeadTailInfo{TotalLines: 1500, KeptLines: 3, OmittedLines: 1497, OmittedFrom: 3, OmittedTo: 1499}},
		{name: "no trailing newline", doc: strings.TrimSuffix(numberedLines("l", 1, 10), "\n"), max: 5,
			want:     "l1\nl2\nl3\n…[6 lines omitted: lines 4-9]\nl10",
			wantInfo: HeadTailInfo{TotalLines: 10, KeptLines: 4, OmittedLines: 6, OmittedFrom: 4, OmittedTo: 9}},
		{name: "crlf", doc: "a\r\nb\r\nc\r\nd\r\ne\r\n", max: 4,
			want:     "a\r\nb\r\n…[2 lines omitted: lines 3-4]\r\ne\r\n",
			wantInfo: HeadTailInfo{TotalLines: 5, KeptLines: 3, OmittedLines: 2, OmittedFrom: 3, OmittedTo: 4}},
		{name: "max one", doc: "a\nb\n", max: 1,
			want:     "…[2 lines omitted: lines 1-2]\n",
			wantInfo: HeadTailInfo{TotalLines: 2, OmittedLines: 2, OmittedFrom: 1, OmittedTo: 2}},
		{name: "max zero is one", doc: "a\nb", max: 0,
			want:     "…[2 lines omitted: lines 1-2]",
			wantInfo: HeadTailInfo{TotalLines: 2, OmittedLines: 2, OmittedFrom: 1, OmittedTo: 2}},
		{name: "max two keeps head only", doc: "a\nb\nc\n", max: 2,
			want:     "a\n…[2 lines omitted: lines 2-3]\n",
			wantInfo: HeadTailInfo{TotalLines: 3, KeptLines: 1, OmittedLines: 2, OmittedFrom: 2, OmittedTo: 3}},
		{name: "front matter kept", doc: fm + numberedLines("l", 1, 20), max: 8,
			want:     fm + numberedLines("l", 1, 3) + "…[16 lines omitted: lines 7-22]\n" + numberedLines("l", 20, 20),
			wantInfo: HeadTailInfo{TotalLines: 23, KeptLines: 7, OmittedLines: 16, OmittedFrom: 7, OmittedTo: 22, FrontMatter: true}},
		{name: "front matter in fitting doc", doc: fm + "body\n", max: 8, want: fm + "body\n",
			wantInfo: HeadTailInfo{TotalLines: 4, KeptLines: 4, FrontMatter: true}},
		{name: "front matter too large is head", doc: bigFM + numberedLines("l", 1, 20), max: 7,
			want:     "---\na: 1\nb: 2\nc: 3\n…[19 lines omitted: lines 5-23]\n" + numberedLines("l", 19, 20),
			wantInfo: HeadTailInfo{TotalLines: 25, KeptLines: 6, OmittedLines: 19, OmittedFrom: 5, OmittedTo: 23}},
		{name: "front matter crlf and dots", doc: "---\r\nk: v\r\n...\r\n" + strings.ReplaceAll(numberedLines("l", 1, 9), "\n", "\r\n"), max: 6,
			want:     "---\r\nk: v\r\n...\r\nl1\r\n…[7 lines omitted: lines 5-11]\r\nl9\r\n",
			wantInfo: HeadTailInfo{TotalLines: 12, KeptLines: 5, OmittedLines: 7, OmittedFrom: 5, OmittedTo: 11, FrontMatter: true}},
		{name: "unclosed front matter is head", doc: "---\n" + numberedLines("l", 1, 9), max: 4,
			want:     "---\nl1\n…[7 lines omitted: lines 3-9]\nl9\n",
			wantInfo: HeadTailInfo{TotalLines: 10, KeptLines: 3, OmittedLines: 7, OmittedFrom: 3, OmittedTo: 9}},
		{name: "dashes not at start are not front matter", doc: "x\n---\na\n---\n" + numberedLines("l", 1, 9), max: 8,
			want:     "x\n---\na\n---\nl1\n…[6 lines omitted: lines 6-11]\nl8\nl9\n",
			wantInfo: HeadTailInfo{TotalLines: 13, KeptLines: 7, OmittedLines: 6, OmittedFrom: 6, OmittedTo: 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, info := ClipHeadTail(tt.doc, tt.max)
			if got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			}
			if info != tt.wantInfo {
				t.Errorf("%s: got info %+v, want %+v", tt.name, info, tt.wantInfo)
			}
			if n := countDocLines(got); n > max(tt.max, 1) && tt.doc != got {
				t.Errorf("%s: got %d lines, want <= %d", tt.name, n, tt.max)
			}
		})
	}
}

func TestClipHeadTailProperties(t *testing.T) {
	for _, doc := range []string{numberedLines("l", 1, 200), frontMatterOf(3) + numberedLines("l", 1, 200), frontMatterOf(60) + numberedLines("l", 1, 30)} {
		total := countDocLines(doc)
		for maxLines := 1; maxLines <= total+1; maxLines++ {
			got, info := ClipHeadTail(doc, maxLines)
			name := fmt.Sprintf("total %d maxLines %d", total, maxLines)
			if n := countDocLines(got); n > maxLines {
				t.Fatalf("%s: got %d lines, want <= %d", name, n, maxLines)
			}
			if info.KeptLines+info.OmittedLines != total {
				t.Fatalf("%s: kept %d + omitted %d != %d", name, info.KeptLines, info.OmittedLines, total)
			}
			if info.OmittedLines == 0 {
				if got != doc {
					t.Fatalf("%s: got %q, want unchanged", name, got)
				}
				continue
			}
			// Reconstruct the kept lines from the document with windows.
			head, _, _ := ApplyWindow(doc, Window{MaxLines: info.OmittedFrom - 1})
			tail, _, _ := ApplyWindow(doc, Window{MaxLines: MaxWindowLines, Offset: info.OmittedTo})
			if info.OmittedFrom == 1 {
				head = ""
			}
			mid := fmt.Sprintf("…[%s lines omitted: lines %d-%d]\n", FormatCount(info.OmittedLines), info.OmittedFrom, info.OmittedTo)
			if want := head + mid + tail; got != want {
				t.Fatalf("%s: got %q, want %q", name, got, want)
			}
		}
	}
}

func frontMatterOf(n int) string {
	return "---\n" + numberedLines("key", 1, n-2) + "---\n"
}

func TestContentPolicyLimit(t *testing.T) {
	tests := []struct {
		name  string
		p     ContentPolicy
		count int
		want  int
	}{
		{"default 0", DefaultContentPolicy, 0, 0},
		{"default 9", DefaultContentPolicy, 9, 0},
		{"default 10", DefaultContentPolicy, 10, 500},
		{"default 50", DefaultContentPolicy, 50, 500},
		{"default 51", DefaultContentPolicy, 51, 250},
		{"default huge", DefaultContentPolicy, 1 << 40, 250},
		{"default negative", DefaultContentPolicy, -5, 0},
		{"empty policy", ContentPolicy{}, 1000, 0},
		{"last step applies above all", ContentPolicy{Steps: []ContentStep{{MaxResults: 5, MaxChars: 100}, {MaxResults: 10, MaxChars: 50}}}, 11, 50},
		{"negative chars is no clip", ContentPolicy{Steps: []ContentStep{{MaxResults: 5, MaxChars: -1}}}, 1, 0},
	}
	for _, tt := range tests {
		if got := tt.p.Limit(tt.count); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

func BenchmarkApplyWindow(b *testing.B) {
	doc := windowTestDoc(10000, false)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ApplyWindow(doc, Window{MaxLines: 500, Offset: 5000})
	}
}

func BenchmarkClip(b *testing.B) {
	s := strings.Repeat("Lorem ipsum dolor sit amet, 👩‍👩‍👧 consectetur é adipiscing elit.\n", 1<<20/70)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Clip(s, 10000)
	}
}
