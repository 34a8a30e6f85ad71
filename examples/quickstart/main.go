// Command quickstart shows the three tools of bounded on the in-memory
// reference store: a paged list with a hint naming the next call, a window
// over a long note, and a response fitted into a character budget.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	store := memrepo.New()
	if err := load(ctx, store); err != nil {
		return err
	}

	// 1. A page: the first 5 of the notes linking to Home, with a hint
	// naming the exact next call.
	call := bounded.Call{
		Tool:         "get_backlinks",
		Args:         bounded.Args{{Name: "id", Value: "Home"}},
		DefaultLimit: ports.BacklinksLimits.Default,
	}
	page, err := store.Backlinks(ctx, "Home", bounded.Page{Limit: 5})
	if err != nil {
		return err
	}
	out, err := bounded.Fit(bounded.Budget{}, bounded.FitInput[ports.NoteRef]{Page: page, Call: call})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== paged: get_backlinks(id=\"Home\", limit=5)\n%s\n\n", out.JSON)

	// 2. A window: lines 0-9 of a 10,000-line note.
	note, err := store.GetNote(ctx, "Log", bounded.Window{MaxLines: 10})
	if err != nil {
		return err
	}
	env := bounded.Envelope[ports.NoteContent]{Results: []ports.NoteContent{note}, ContentMetadata: &note.Window}
	fitted, err := bounded.Fit(bounded.Budget{}, bounded.FitInput[ports.NoteContent]{
		Page:   bounded.Paged[ports.NoteContent]{Items: env.Results, Page: bounded.PageInfo{Total: 1, Limit: 1, Returned: 1}},
		Call:   bounded.Call{Tool: "get_note", Args: bounded.Args{{Name: "id", Value: "Log"}}},
		Window: env.ContentMetadata,
		Hints:  bounded.HintOff,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== windowed: get_note(id=\"Log\", maxLines=10)\n%s\n\n", fitted.JSON)

	// 3. A budget: 40 backlinks asked for, only what fits in 1,500
	// characters kept; the next call starts at the first item cut.
	page, err = store.Backlinks(ctx, "Home", bounded.Page{Limit: 40})
	if err != nil {
		return err
	}
	out, err = bounded.Fit(bounded.Budget{MaxChars: 1500, Margin: 1}, bounded.FitInput[ports.NoteRef]{Page: page, Call: call})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== budgeted: get_backlinks(id=\"Home\", limit=40) in 1,500 characters\n%s\n", out.JSON)
	return nil
}

// load puts a small vault: Home, 30 notes linking to it, and a long log.
func load(ctx context.Context, store *memrepo.Store) error {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	notes := []ports.Note{{ID: "Home", Title: "Home", Content: "# Home\n", UpdatedAt: base}}
	for i := range 30 {
		notes = append(notes, ports.Note{
			ID:        fmt.Sprintf("notes/%02d", i),
			Title:     fmt.Sprintf("Note %d", i),
			Content:   "Back to [[Home]].\n",
			Tags:      []string{"demo"},
			Links:     []ports.Link{{Target: "Home"}},
			UpdatedAt: base.Add(time.Duration(i%7) * time.Hour), // ties: the id breaks them
		})
	}
	var log strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&log, "line %d of the log\n", i+1)
	}
	notes = append(notes, ports.Note{ID: "Log", Title: "Log", Content: log.String(), UpdatedAt: base})
	for _, n := range notes {
		if err := store.PutNote(ctx, n); err != nil {
			return err
		}
	}
	return nil
}
