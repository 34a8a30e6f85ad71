package bounded

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWindow walks a fuzzed document window by window following NextOffset
// and checks that the windows concatenate to the document exactly.
func FuzzWindow(f *testing.F) {
	f.Add("", uint8(1))
	f.Add("a\nb\nc", uint8(2))
	f.Add("a\r\nb\r\n\r\n", uint8(1))
	f.Add("\n\n\nx", uint8(3))
	f.Fuzz(func(t *testing.T, doc string, m uint8) {
		maxLines := int(m)%50 + 1
		total := countDocLines(doc)
		var b strings.Builder
		off := 0
		for steps := 0; ; steps++ {
			text, info, err := ApplyWindow(doc, Window{MaxLines: maxLines, Offset: off})
			if err != nil {
				t.Fatalf("offset %d: %v", off, err)
			}
			if info.TotalLines != total || info.ReturnedLines > maxLines || countDocLines(text) != info.ReturnedLines {
				t.Fatalf("offset %d maxLines %d: inconsistent info %+v for %q", off, maxLines, info, text)
			}
			b.WriteString(text)
			if info.NextOffset == 0 {
				break
			}
			if info.NextOffset <= off || steps > total {
				t.Fatalf("offset %d: NextOffset %d does not advance", off, info.NextOffset)
			}
			off = info.NextOffset
		}
		if got := b.String(); got != doc {
			t.Fatalf("maxLines %d: got %q, want %q", maxLines, got, doc)
		}
	})
}

// FuzzClip checks Clip's limit, UTF-8 validity, prefix property and its
// agreement with ClipPrefix.
func FuzzClip(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add(strings.Repeat("a", 1000), 23)
	f.Add("abcdefgh👩\u200d👩\u200d👧zzzzzzzzzzzzzzzzzzzzzzzzzz", 31)
	f.Add("🇺🇸🇫🇷🇺🇸🇫🇷🇺🇸🇫🇷🇺🇸🇫🇷🇺🇸🇫🇷🇺🇸🇫🇷", 21)
	f.Add("e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301", 20)
	f.Add("\xff\xfe\xfd invalid", -3)
	f.Fuzz(func(t *testing.T, s string, m int) {
		n := utf8.RuneCountInString(s)
		maxChars := m
		if m >= 0 {
			maxChars = m % (n + 30)
		}
		got, info := Clip(s, maxChars)
		rc := utf8.RuneCountInString(got)
		if rc > max(maxChars, 0) || rc != info.ReturnedChars {
			t.Fatalf("max %d: got %d runes (ReturnedChars %d)", maxChars, rc, info.ReturnedChars)
		}
		if info.OriginalChars != n || info.Clipped != (n > max(maxChars, 0)) {
			t.Fatalf("max %d: info %+v for %d runes", maxChars, info, n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("max %d: result %q is not valid UTF-8", maxChars, got)
		}
		if kept := clipKeptPrefix(t, s, got, info); !strings.HasPrefix(s, kept) {
			t.Fatalf("max %d: kept %q is not a prefix of %q", maxChars, kept, s)
		}
		for _, extra := range []int{0, 1, 7} {
			gotP, infoP := ClipPrefix(firstRunes(s, max(maxChars, 0)+extra), maxChars, n)
			if gotP != got || infoP != info {
				t.Fatalf("max %d: ClipPrefix(+%d) got %q %+v, want %q %+v", maxChars, extra, gotP, infoP, got, info)
			}
		}
	})
}

// FuzzHeadTail checks that ClipHeadTail does not panic, respects maxLines
// and only ever omits a middle range.
func FuzzHeadTail(f *testing.F) {
	f.Add("a\nb\nc\nd\ne\n", 3)
	f.Add("---\nk: v\n---\nbody\nbody\nbody\nbody\n", 6)
	f.Add("---\r\nk: v\r\n...\r\nx\r\ny\r\nz", 4)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, doc string, maxLines int) {
		maxLines %= 200
		got, info := ClipHeadTail(doc, maxLines)
		total := countDocLines(doc)
		if info.TotalLines != total || info.KeptLines+info.OmittedLines != total {
			t.Fatalf("maxLines %d: inconsistent info %+v", maxLines, info)
		}
		if info.OmittedLines == 0 {
			if got != doc {
				t.Fatalf("maxLines %d: got %q, want unchanged %q", maxLines, got, doc)
			}
			return
		}
		if n := countDocLines(got); n > max(maxLines, 1) {
			t.Fatalf("maxLines %d: got %d lines", maxLines, n)
		}
		if info.OmittedFrom < 1 || info.OmittedTo != info.OmittedFrom+info.OmittedLines-1 || info.OmittedTo > total {
			t.Fatalf("maxLines %d: bad omitted range %+v", maxLines, info)
		}
		head := doc[:skipDocLines(doc, 0, info.OmittedFrom-1)]
		tail := doc[skipDocLines(doc, 0, info.OmittedTo):]
		if !strings.HasPrefix(got, head) || !strings.HasSuffix(got, tail) || len(got) < len(head)+len(tail) {
			t.Fatalf("maxLines %d: result %q does not keep head %q and tail %q", maxLines, got, head, tail)
		}
		if mid := got[len(head) : len(got)-len(tail)]; !strings.HasPrefix(mid, "…[") || strings.Count(mid, "\n") > 1 {
			t.Fatalf("maxLines %d: bad elision line %q", maxLines, mid)
		}
	})
}
