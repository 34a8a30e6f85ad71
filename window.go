package bounded

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/grapheme"
)

// ErrInvalidWindow is wrapped by the errors of [Window.Normalize] and
// [ApplyWindow] for a negative field.
var ErrInvalidWindow = errors.New("bounded: invalid window")

const (
	// DefaultWindowLines is the [Window.MaxLines] used when it is 0.
	DefaultWindowLines = 500
	// MaxWindowLines is the largest [Window.MaxLines]; more is clamped.
	MaxWindowLines = 2000
)

// Window selects a range of lines of a document, as [ApplyWindow] counts
// them.
type Window struct {
	// MaxLines is the most lines to return: 0 means [DefaultWindowLines],
	// over [MaxWindowLines] is clamped, negative is invalid.
	MaxLines int `json:"maxLines,omitempty"`
	// Offset is the 0-based first line; past the end selects nothing,
	// negative is invalid.
	Offset int `json:"offset,omitempty"`
}

// Normalize returns w with MaxLines defaulted and clamped, and whether it was
// clamped. A negative MaxLines, then Offset, is an error wrapping
// [ErrInvalidWindow].
func (w Window) Normalize() (Window, bool, error) {
	if w.MaxLines < 0 {
		return Window{}, false, fmt.Errorf("%w: maxLines %d is negative", ErrInvalidWindow, w.MaxLines)
	}
	if w.Offset < 0 {
		return Window{}, false, fmt.Errorf("%w: offset %d is negative", ErrInvalidWindow, w.Offset)
	}
	clamped := false
	switch {
	case w.MaxLines == 0:
		w.MaxLines = DefaultWindowLines
	case w.MaxLines > MaxWindowLines:
		w.MaxLines = MaxWindowLines
		clamped = true
	}
	return w, clamped, nil
}

// WindowInfo says whether the text [ApplyWindow] returned is the whole
// document, and where to resume.
type WindowInfo struct {
	// TotalLines is the exact number of lines in the document.
	TotalLines int `json:"totalLines"`
	// ReturnedLines is the number of lines returned.
	ReturnedLines int `json:"returnedLines"`
	// Offset is the window's offset, even past the end.
	Offset int `json:"offset"`
	// Truncated reports that the text is not the whole document.
	Truncated bool `json:"isTruncated"`
	// NextOffset is the first line after the window, 0 when none remains:
	// windows at NextOffset until it is 0 visit every line once.
	NextOffset int `json:"nextOffset,omitempty"`
	// CharOffset is the number of runes of the first line skipped, read
	// earlier.
	CharOffset int `json:"charOffset,omitempty"`
	// NextCharOffset, when positive, is the rune of line NextOffset (which
	// may then be 0) where the text stopped and reading resumes.
	NextCharOffset int `json:"nextCharOffset,omitempty"`
	// Clamped reports that MaxLines was over [MaxWindowLines].
	Clamped bool `json:"clamped,omitempty"`
}

// ApplyWindow returns the lines of doc that w selects after
// [Window.Normalize], as a substring. Lines end after "\n": "" has 0 lines,
// "a" and "a\n" 1, "a\nb" 2. Past the end, it returns "". Its errors wrap
// [ErrInvalidWindow].
func ApplyWindow(doc string, w Window) (string, WindowInfo, error) {
	w, clamped, err := w.Normalize()
	if err != nil {
		return "", WindowInfo{}, err
	}
	total := countDocLines(doc)
	info := WindowInfo{TotalLines: total, Offset: w.Offset, Clamped: clamped}
	if w.Offset >= total {
		info.Truncated = w.Offset > 0
		return "", info, nil
	}
	returned := min(w.MaxLines, total-w.Offset)
	start := skipDocLines(doc, 0, w.Offset)
	end := skipDocLines(doc, start, returned)
	info.ReturnedLines = returned
	if next := w.Offset + returned; next < total {
		info.NextOffset = next
		info.Truncated = true
	} else {
		info.Truncated = w.Offset > 0
	}
	return doc[start:end], info, nil
}

// countDocLines counts lines as ApplyWindow defines them.
func countDocLines(doc string) int {
	if doc == "" {
		return 0
	}
	n := strings.Count(doc, "\n")
	if doc[len(doc)-1] != '\n' {
		n++
	}
	return n
}

// skipDocLines returns the byte index just after n more lines starting at byte
// index from, or len(doc) if the document ends first.
func skipDocLines(doc string, from, n int) int {
	i := from
	for ; n > 0 && i < len(doc); n-- {
		j := strings.IndexByte(doc[i:], '\n')
		if j < 0 {
			return len(doc)
		}
		i += j + 1
	}
	return i
}

// ClipInfo describes a [Clip] or [ClipPrefix], in runes (an invalid UTF-8
// byte counts as one).
type ClipInfo struct {
	// Clipped reports that the text was shortened.
	Clipped bool `json:"clipped"`
	// OriginalChars is the input's length.
	OriginalChars int `json:"originalChars"`
	// ReturnedChars is the result's length, marker included.
	ReturnedChars int `json:"returnedChars"`
	// RemovedChars is the input's runes not kept.
	RemovedChars int `json:"removedChars"`
}

const (
	clipMarkerOpen  = "…[truncated "
	clipMarkerClose = " chars]"
	// clipMarkerFixed is the rune count of clipMarkerOpen+clipMarkerClose.
	clipMarkerFixed = 19
	// clipMarkerMinimal replaces the text when even the shortest full
	// marker does not fit.
	clipMarkerMinimal = "…"
)

// Clip returns s cut to maxChars runes, if longer, at a grapheme cluster
// boundary and ending with a marker within maxChars:
// "…[truncated 2,345 chars]"; "…" when maxChars < 20, "" when it is 0 or less.
func Clip(s string, maxChars int) (string, ClipInfo) {
	return clipRunes(s, utf8.RuneCountInString(s), maxChars)
}

// ClipPrefix returns Clip(s, maxChars) given a prefix of s holding its
// first maxChars runes (or all of s) and totalChars, the runes of s. A
// totalChars below the prefix's count counts as that.
func ClipPrefix(prefix string, maxChars, totalChars int) (string, ClipInfo) {
	return clipRunes(prefix, max(totalChars, utf8.RuneCountInString(prefix)), maxChars)
}

// clipRunes implements Clip for a text whose first runes are s and whose
// total rune count is n (n >= utf8.RuneCountInString(s)).
func clipRunes(s string, n, limit int) (string, ClipInfo) {
	limit = max(limit, 0)
	if n <= limit {
		return s, ClipInfo{OriginalChars: n, ReturnedChars: n}
	}
	// Find the largest cluster boundary k (in runes) such that the kept
	// prefix plus the marker for n-k removed runes fits in limit. Marker
	// length is not monotone in k (999 -> 1,000 adds two runes), so every
	// boundary up to limit is tested.
	bestByte, bestRune := -1, -1
	var g grapheme.Scanner
	i, k := 0, 0
	for ; i < len(s) && k <= limit; k++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if g.Next(r) && k+clipMarkerLen(n-k) <= limit {
			bestByte, bestRune = i, k
		}
		i += size
	}
	if i == len(s) && k <= limit && k < n && k+clipMarkerLen(n-k) <= limit {
		// Short prefix (ClipPrefix contract not met): treat its end as a
		// boundary.
		bestByte, bestRune = i, k
	}
	if bestRune < 0 {
		if limit == 0 {
			return "", ClipInfo{Clipped: true, OriginalChars: n, RemovedChars: n}
		}
		return clipMarkerMinimal, ClipInfo{Clipped: true, OriginalChars: n, ReturnedChars: 1, RemovedChars: n}
	}
	removed := n - bestRune
	var num [32]byte
	digits := appendCount(num[:0], removed)
	var b strings.Builder
	b.Grow(bestByte + len(clipMarkerOpen) + len(digits) + len(clipMarkerClose))
	b.WriteString(s[:bestByte])
	b.WriteString(clipMarkerOpen)
	b.Write(digits)
	b.WriteString(clipMarkerClose)
	return b.String(), ClipInfo{
		Clipped:       true,
		OriginalChars: n,
		ReturnedChars: bestRune + clipMarkerLen(removed),
		RemovedChars:  removed,
	}
}

// clipMarkerLen is the rune count of the marker for removed runes.
func clipMarkerLen(removed int) int {
	return clipMarkerFixed + formatCountLen(removed)
}

// formatCountLen is len(FormatCount(n)) for n >= 0, without allocating.
func formatCountLen(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d + (d-1)/3
}

// FormatCount formats n in decimal with commas between groups of three.
func FormatCount(n int) string {
	var buf [32]byte
	return string(appendCount(buf[:0], n))
}

// appendCount appends FormatCount(n) to dst.
func appendCount(dst []byte, n int) []byte {
	var tmp [24]byte
	d := strconv.AppendInt(tmp[:0], int64(n), 10)
	if n < 0 {
		dst = append(dst, '-')
		d = d[1:]
	}
	first := len(d) % 3
	if first == 0 {
		first = 3
	}
	dst = append(dst, d[:first]...)
	for i := first; i < len(d); i += 3 {
		dst = append(dst, ',')
		dst = append(dst, d[i:i+3]...)
	}
	return dst
}

// HeadTailInfo describes a [ClipHeadTail]; line numbers are 1-based.
type HeadTailInfo struct {
	// TotalLines is the number of lines of the input document.
	TotalLines int `json:"totalLines"`
	// KeptLines is the number of lines kept, the marker not counted.
	KeptLines int `json:"keptLines"`
	// OmittedLines is the number of lines the marker replaces.
	OmittedLines int `json:"omittedLines,omitempty"`
	// OmittedFrom and OmittedTo are the first and last omitted lines, 0
	// when none; a [Window] at Offset OmittedFrom-1 reads them.
	OmittedFrom int `json:"omittedFrom,omitempty"`
	OmittedTo   int `json:"omittedTo,omitempty"`
	// FrontMatter reports that YAML front matter was kept whole.
	FrontMatter bool `json:"frontMatter,omitempty"`
}

// ClipHeadTail limits doc to maxLines lines (at least 1): about 2/3 from
// the head, 1/3 from the tail, and between them one marker line, ending as
// the head's last line does. YAML front matter of at most maxLines/2 lines
// stays whole in the head.
func ClipHeadTail(doc string, maxLines int) (string, HeadTailInfo) {
	maxLines = max(maxLines, 1)
	total := countDocLines(doc)
	fm := frontMatterLines(doc)
	info := HeadTailInfo{TotalLines: total}
	if total <= maxLines {
		info.KeptLines = total
		info.FrontMatter = fm > 0
		return doc, info
	}
	fixed := 0
	if fm > 0 && fm <= maxLines/2 {
		fixed = fm
		info.FrontMatter = true
	}
	avail := maxLines - 1 - fixed
	tail := (avail + 1) / 3
	head := fixed + avail - tail
	omitted := total - head - tail
	headEnd := skipDocLines(doc, 0, head)
	tailStart := skipDocLines(doc, headEnd, omitted)

	term := "\n"
	if headEnd >= 2 && doc[headEnd-2] == '\r' {
		term = "\r\n"
	}
	if tail == 0 && doc[len(doc)-1] != '\n' {
		term = ""
	}
	from, to := head+1, head+omitted
	var b strings.Builder
	b.Grow(headEnd + 64 + len(doc) - tailStart)
	b.WriteString(doc[:headEnd])
	b.WriteString("…[")
	b.WriteString(FormatCount(omitted))
	b.WriteString(" lines omitted: lines ")
	b.WriteString(strconv.Itoa(from))
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(to))
	b.WriteByte(']')
	b.WriteString(term)
	b.WriteString(doc[tailStart:])

	info.KeptLines = head + tail
	info.OmittedLines = omitted
	info.OmittedFrom, info.OmittedTo = from, to
	return b.String(), info
}

// frontMatterLines returns the number of lines of the YAML front matter at
// the very start of doc, closing delimiter included, or 0 if there is none
// (no opening "---" line, or no closing line).
func frontMatterLines(doc string) int {
	line, i := cutDocLine(doc, 0)
	if i == len(doc) || !isFrontMatterDelim(line, "---") {
		return 0
	}
	for n := 2; i < len(doc); n++ {
		line, i = cutDocLine(doc, i)
		if isFrontMatterDelim(line, "---") || isFrontMatterDelim(line, "...") {
			return n
		}
	}
	return 0
}

// cutDocLine returns the line starting at byte i without its "\n", and the
// index of the following line.
func cutDocLine(doc string, i int) (string, int) {
	j := strings.IndexByte(doc[i:], '\n')
	if j < 0 {
		return doc[i:], len(doc)
	}
	return doc[i : i+j], i + j + 1
}

func isFrontMatterDelim(line, delim string) bool {
	return line == delim || len(line) == len(delim)+1 && line[len(delim)] == '\r' && line[:len(delim)] == delim
}

// ContentStep clips each result's content to MaxChars runes (none if 0 or
// less) up to MaxResults results.
type ContentStep struct {
	MaxResults int `json:"maxResults"`
	MaxChars   int `json:"maxChars"`
}

// ContentPolicy clips content by result count: the first step, of Steps in
// ascending MaxResults order, that holds the count applies, else the last.
// An empty policy never clips.
type ContentPolicy struct {
	Steps []ContentStep `json:"steps"`
}

// DefaultContentPolicy clips 10 to 50 results to 500 runes each, more to
// 250.
var DefaultContentPolicy = ContentPolicy{Steps: []ContentStep{
	{MaxResults: 9, MaxChars: 0},
	{MaxResults: 50, MaxChars: 500},
	{MaxResults: math.MaxInt, MaxChars: 250},
}}

// Limit returns each result's limit in runes for resultCount results, 0 for
// none; a negative count counts as 0.
func (p ContentPolicy) Limit(resultCount int) int {
	if len(p.Steps) == 0 {
		return 0
	}
	resultCount = max(resultCount, 0)
	step := p.Steps[len(p.Steps)-1]
	for _, s := range p.Steps {
		if resultCount <= s.MaxResults {
			step = s
			break
		}
	}
	return max(step.MaxChars, 0)
}
