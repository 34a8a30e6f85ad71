package memrepo_test

import (
	"context"
	"fmt"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// A store holds a vault; a tool pages through it and follows NextOffset.
func Example() {
	ctx := context.Background()
	store := memrepo.New()
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"projects/alpha", "projects/beta", "projects/gamma", "inbox/todo"} {
		n := ports.Note{ID: id, Title: id, Content: "...", UpdatedAt: day.AddDate(0, 0, i)}
		if err := store.PutNote(ctx, n); err != nil {
			panic(err)
		}
	}

	p := bounded.Page{Limit: 2}
	for {
		page, err := store.ListNotes(ctx, ports.ListFilter{Folder: "projects"}, p)
		if err != nil {
			panic(err)
		}
		for _, n := range page.Items {
			fmt.Println(n.ID)
		}
		fmt.Printf("-- %d of %d, hasMore=%v\n", page.Page.Offset+page.Page.Returned, page.Page.Total, page.Page.HasMore)
		if !page.Page.HasMore {
			break
		}
		p.Offset = page.Page.NextOffset
	}
	// Output:
	// projects/gamma
	// projects/beta
	// -- 2 of 3, hasMore=true
	// projects/alpha
	// -- 3 of 3, hasMore=false
}

// GetNote returns a window of a note's lines and says where the rest starts.
func ExampleStore_GetNote() {
	ctx := context.Background()
	store := memrepo.New()
	_ = store.PutNote(ctx, ports.Note{ID: "log", Content: "one\ntwo\nthree\nfour\n"})

	n, err := store.GetNote(ctx, "log", bounded.Window{MaxLines: 2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q lines=%d/%d next=%d\n", n.Content, n.Window.ReturnedLines, n.Window.TotalLines, n.Window.NextOffset)

	_, err = store.GetNote(ctx, "missing", bounded.Window{})
	fmt.Println(err)
	// Output:
	// "one\ntwo\n" lines=2/4 next=2
	// note "missing": ports: not found
}
