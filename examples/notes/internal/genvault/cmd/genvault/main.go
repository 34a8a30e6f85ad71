// Command genvault writes a generated vault for measuring the notes
// example's import (see package genvault):
//
//	go run ./examples/notes/internal/genvault/cmd/genvault -notes 50000 /tmp/vault50k
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/boundedkit/bounded/examples/notes/internal/genvault"
)

func main() {
	notes := flag.Int("notes", 5000, "the number of notes")
	seed := flag.Uint64("seed", 1, "the seed of the links and the text")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genvault [-notes n] [-seed s] dir")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	st, err := genvault.Write(flag.Arg(0), genvault.Options{Notes: *notes, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genvault:", err)
		os.Exit(1)
	}
	fmt.Printf("%d notes (%d bytes), %d attachments, %d links\n", st.Notes, st.Bytes, st.Attachments, st.Links)
}
