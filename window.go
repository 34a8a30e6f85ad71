package bounded

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalidWindow is wrapped by the errors returned by Window.Normalize and
// ApplyWindow when a Window has a negative field. Test with errors.Is.
var ErrInvalidWindow = errors.New("bounded: invalid window")

const (
	// DefaultWindowLines is the number of lines a Window returns when its
	// MaxLines is 0.
	DefaultWindowLines = 500
	// MaxWindowLines is the largest number of lines a Window returns;
	// larger MaxLines values are clamped to it.
	MaxWindowLines = 2000
)

// Window selects a range of lines of one document.
//
// Lines are counted as ApplyWindow describes: they end at "\n", a trailing
// "\n" ends the last line rather than starting a new one, and a "\r" before
// the "\n" belongs to its line.
type Window struct {
	// MaxLines is the maximum number of lines to return. 0 means
	// DefaultWindowLines (500); values above MaxWindowLines (2000) are
	// clamped to 2000. Negative values are invalid.
	MaxLines int `json:"maxLines,omitempty"`
	// Offset is the 0-based index of the first line to return. An offset at
	// or past the end of the document is valid and selects nothing.
	// Negative values are invalid.
	Offset int `json:"offset,omitempty"`
}

// Normalize returns w with the default and maximum applied: MaxLines 0
// becomes DefaultWindowLines (500) and MaxLines above MaxWindowLines becomes
// 2000, in which case clamped is true. Offset is returned unchanged.
//
// A negative MaxLines or Offset yields an error wrapping ErrInvalidWindow
// that names the field and its value, for example
// "bounded: invalid window: offset -3 is negative". MaxLines is checked
// first.
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

// WindowInfo describes the text ApplyWindow returned, so that a caller (or
// an agent) can tell whether it saw the whole document and where to resume.
type WindowInfo struct {
	// TotalLines is the exact number of lines in the document.
	TotalLines int `json:"totalLines"`
	// ReturnedLines is the number of lines in the returned text.
	ReturnedLines int `json:"returnedLines"`
	// Offset is the 0-based index of the first returned line (the window's
	// offset, even when it lies past the end).
	Offset int `json:"offset"`
	// Truncated is true whenever the returned text is not the whole
	// document: lines before the window were skipped (Offset > 0) or lines
	// after it remain. It is false only when the text is the entire
	// document (including the empty document at offset 0).
	Truncated bool `json:"isTruncated"`
	// NextOffset is the offset of the first line after the window when such
	// lines remain (Offset+ReturnedLines < TotalLines), and 0 otherwise.
	// Requesting successive windows at NextOffset until it is 0 visits
	// every line from the first offset to the end exactly once.
	NextOffset int `json:"nextOffset,omitempty"`
	// CharOffset is the number of characters (runes) of the first line
	// skipped before the returned text: the line was partly read before.
	CharOffset int `json:"charOffset,omitempty"`
	// NextCharOffset, when positive, says that the text stopped inside line
	// NextOffset (which may then be 0): reading resumes at that character
	// of it, so that every character of a line longer than any budget is
	// reached.
	NextCharOffset int `json:"nextCharOffset,omitempty"`
	// Clamped is true when the requested MaxLines exceeded MaxWindowLines
	// and was reduced to it.
	Clamped bool `json:"clamped,omitempty"`
}

// ApplyWindow returns the lines [w.Offset, w.Offset+w.MaxLines) of doc, as
// a substring, after [Window.Normalize] (500 lines by default, at most
// 2000): successive windows, at WindowInfo.NextOffset, concatenate to doc.
//
// Lines end at "\n", which stays with its line, as does a "\r" before it:
// "" has 0 lines, "a" and "a\n" 1, "a\nb" 2. An offset past the end gives ""
// and the exact TotalLines. A negative MaxLines or Offset is an error wrapping
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

// ClipInfo describes the result of Clip or ClipPrefix. All counts are in
// runes (Unicode code points, as counted by utf8.RuneCountInString; each
// invalid UTF-8 byte counts as one).
type ClipInfo struct {
	// Clipped is true when the text did not fit and was shortened.
	Clipped bool `json:"clipped"`
	// OriginalChars is the rune count of the whole input text.
	OriginalChars int `json:"originalChars"`
	// ReturnedChars is the rune count of the returned string, marker
	// included; it never exceeds the requested maximum (0 if negative).
	ReturnedChars int `json:"returnedChars"`
	// RemovedChars is the number of runes of the input that are not in the
	// returned string (OriginalChars minus the kept prefix).
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

// Clip returns s limited to at most maxChars runes.
//
// A longer s is cut at the end of an extended grapheme cluster, as Unicode
// defines them (never inside "\r\n", an emoji sequence, a flag or a letter
// with its marks), and ends with a marker naming the runes removed, such as
// "…[truncated 2,345 chars]", counted within maxChars. When the marker does
// not fit (maxChars < 20), the result is "…", or "" for maxChars <= 0.
func Clip(s string, maxChars int) (string, ClipInfo) {
	return clipRunes(s, utf8.RuneCountInString(s), maxChars)
}

// ClipPrefix returns Clip(s, maxChars) given only a prefix of s holding at
// least its first maxChars runes (or all of s) and totalChars, the rune
// count of s: a store can read substr(body, 1, maxChars) and
// char_length(body) instead of the whole body. A totalChars below the
// prefix's rune count counts as that; a prefix shorter than promised is
// taken to end on a cluster boundary.
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
	var g graphemeScanner
	i, k := 0, 0
	for ; i < len(s) && k <= limit; k++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if g.next(r) && k+clipMarkerLen(n-k) <= limit {
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

// FormatCount formats n in decimal with a comma every three digits, for
// example 2345 -> "2,345", -1234567 -> "-1,234,567", 999 -> "999".
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

// HeadTailInfo describes the result of ClipHeadTail. Line numbers are
// 1-based and inclusive; lines are counted as ApplyWindow counts them.
type HeadTailInfo struct {
	// TotalLines is the number of lines of the input document.
	TotalLines int `json:"totalLines"`
	// KeptLines is the number of document lines in the result (the elision
	// line is not counted).
	KeptLines int `json:"keptLines"`
	// OmittedLines is the number of document lines replaced by the elision
	// line; 0 when the document fit.
	OmittedLines int `json:"omittedLines,omitempty"`
	// OmittedFrom and OmittedTo are the 1-based first and last omitted
	// lines; 0 when nothing was omitted. The 0-based Window offset of the
	// first omitted line is OmittedFrom-1.
	OmittedFrom int `json:"omittedFrom,omitempty"`
	OmittedTo   int `json:"omittedTo,omitempty"`
	// FrontMatter is true when the document starts with YAML front matter
	// and that front matter was kept whole.
	FrontMatter bool `json:"frontMatter,omitempty"`
}

// ClipHeadTail limits doc to maxLines lines (at least 1) by keeping its head
// and tail, copied byte for byte, and replacing the middle with one line:
//
//	…[1,200 lines omitted: lines 201-1400]
//
// That line counts toward maxLines and ends with "\r\n" if the head's last
// line does, else "\n" (nothing when it is last and doc has no final "\n").
// The other lines kept are split 2/3 head, 1/3 tail (rounded). YAML front matter
// (from a first line "---" to the next "---" or "...") stays whole in the
// head when it is at most maxLines/2 lines. A doc of at most maxLines lines
// is returned unchanged.
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

// ContentStep is one step of a ContentPolicy: when the result count is at
// most MaxResults, each item's content is clipped to MaxChars runes (0, or a
// negative value, means no clipping).
type ContentStep struct {
	MaxResults int `json:"maxResults"`
	MaxChars   int `json:"maxChars"`
}

// ContentPolicy shortens each result's content progressively as the number
// of results grows. Steps must be in ascending MaxResults order. The first
// step whose MaxResults is at least the result count applies; above every
// step's MaxResults the last step applies. An empty policy never clips.
type ContentPolicy struct {
	Steps []ContentStep `json:"steps"`
}

// DefaultContentPolicy is the default progressive policy: fewer than 10
// results get full content, 10 to 50 results (inclusive) are clipped to 500
// runes each, and more than 50 results to 250 runes each.
var DefaultContentPolicy = ContentPolicy{Steps: []ContentStep{
	{MaxResults: 9, MaxChars: 0},
	{MaxResults: 50, MaxChars: 500},
	{MaxResults: math.MaxInt, MaxChars: 250},
}}

// Limit returns the per-item content limit in runes for resultCount results,
// suitable for Clip; 0 means no clipping. A negative resultCount is treated
// as 0. With DefaultContentPolicy: 0..9 -> 0, 10..50 -> 500, 51+ -> 250.
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
