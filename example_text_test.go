package bounded_test

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
)

// A SQL store reads only the first maxChars characters of a long note body,
// and its length, and clips exactly as Clip would clip the whole body.
func ExampleClipPrefix() {
	body := strings.Repeat("Réunion du lundi : ordre du jour, décisions, suites. ", 40)
	const maxChars = 60

	// SELECT substr(body, 1, 60), char_length(body) FROM notes ...
	prefix := string([]rune(body)[:maxChars])
	total := utf8.RuneCountInString(body)

	out, info := bounded.ClipPrefix(prefix, maxChars, total)
	whole, _ := bounded.Clip(body, maxChars)
	fmt.Println(out)
	fmt.Printf("%+v same as Clip: %v\n", info, out == whole)
	// Output:
	// Réunion du lundi : ordre du jour, dé…[truncated 2,084 chars]
	// {Clipped:true OriginalChars:2120 ReturnedChars:60 RemovedChars:2084} same as Clip: true
}

// A long note is shown by its front matter, its beginning and its end, with
// one line saying which lines were left out and where to read them.
func ExampleClipHeadTail() {
	var b strings.Builder
	b.WriteString("---\ntitle: Journal\ntags: [daily]\n---\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "day %d: notes\n", i)
	}
	text, info := bounded.ClipHeadTail(b.String(), 12)
	fmt.Print(text)
	fmt.Printf("%+v\n", info)

	// The omitted lines are a window away: 0-based offset OmittedFrom-1.
	w := bounded.Window{Offset: info.OmittedFrom - 1, MaxLines: info.OmittedLines}
	rest, _, _ := bounded.ApplyWindow(b.String(), w)
	fmt.Print(strings.SplitAfter(rest, "\n")[0])
	// Output:
	// ---
	// title: Journal
	// tags: [daily]
	// ---
	// day 1: notes
	// day 2: notes
	// day 3: notes
	// day 4: notes
	// day 5: notes
	// …[33 lines omitted: lines 10-42]
	// day 39: notes
	// day 40: notes
	// {TotalLines:44 KeptLines:11 OmittedLines:33 OmittedFrom:10 OmittedTo:42 FrontMatter:true}
	// day 6: notes
}

// The more results a page has, the shorter each one's content.
func ExampleContentPolicy_Limit() {
	for _, n := range []int{3, 10, 50, 51, 200} {
		fmt.Println(n, bounded.DefaultContentPolicy.Limit(n))
	}
	snippets := bounded.ContentPolicy{Steps: []bounded.ContentStep{{MaxResults: 5, MaxChars: 2000}, {MaxResults: 20, MaxChars: 300}}}
	fmt.Println(snippets.Limit(4), snippets.Limit(20), snippets.Limit(21))
	// Output:
	// 3 0
	// 10 500
	// 50 500
	// 51 250
	// 200 250
	// 2000 300 300
}

func ExampleWindow_Normalize() {
	w, clamped, err := bounded.Window{}.Normalize()
	fmt.Println(w.MaxLines, clamped, err)

	w, clamped, _ = bounded.Window{MaxLines: 10_000, Offset: 300}.Normalize()
	fmt.Println(w.MaxLines, w.Offset, clamped)

	_, _, err = bounded.Window{Offset: -3}.Normalize()
	fmt.Println(err, errors.Is(err, bounded.ErrInvalidWindow))
	// Output:
	// 500 false <nil>
	// 2000 300 true
	// bounded: invalid window: offset -3 is negative true
}

func ExampleFormatCount() {
	fmt.Println(bounded.FormatCount(999), bounded.FormatCount(2345), bounded.FormatCount(-1234567))
	// Output:
	// 999 2,345 -1,234,567
}
