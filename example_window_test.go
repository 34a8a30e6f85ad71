package bounded_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
)

func ExampleApplyWindow() {
	doc := "alpha\nbeta\ngamma\ndelta\n"
	text, info, err := bounded.ApplyWindow(doc, bounded.Window{MaxLines: 2, Offset: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", text)
	b, _ := json.Marshal(info)
	fmt.Println(string(b))

	// Follow NextOffset to read the rest.
	text, info, _ = bounded.ApplyWindow(doc, bounded.Window{MaxLines: 2, Offset: info.NextOffset})
	fmt.Printf("%q next=%d\n", text, info.NextOffset)
	// Output:
	// "beta\ngamma\n"
	// {"totalLines":4,"returnedLines":2,"offset":1,"isTruncated":true,"nextOffset":3}
	// "delta\n" next=0
}

func ExampleClip() {
	s := strings.Repeat("word ", 1000)
	out, info := bounded.Clip(s, 40)
	fmt.Println(out)
	fmt.Printf("%+v\n", info)

	// Grapheme clusters are never split: the family emoji is kept or dropped whole.
	out, _ = bounded.Clip("family: 👩‍👩‍👧 and more text that does not fit", 30)
	fmt.Println(out)
	// Output:
	// word word word w…[truncated 4,984 chars]
	// {Clipped:true OriginalChars:5000 ReturnedChars:40 RemovedChars:4984}
	// family: …[truncated 37 chars]
}
