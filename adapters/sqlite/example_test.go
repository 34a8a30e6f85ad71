package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/ports"
)

func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "vault")
	defer os.RemoveAll(dir)

	store, db, err := sqlite.Open(ctx, filepath.Join(dir, "vault.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()

	for i, id := range []string{"hub", "a", "b", "c"} {
		n := ports.Note{ID: id, Title: "Note " + id, UpdatedAt: time.Unix(int64(i), 0)}
		if id != "hub" {
			n.Links = []ports.Link{{Target: "hub"}}
		}
		if err := store.PutNote(ctx, n); err != nil {
			fmt.Println(err)
			return
		}
	}
	page, err := store.Backlinks(ctx, "hub", bounded.Page{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range page.Items {
		fmt.Println(n.ID, n.Title)
	}
	fmt.Printf("total %d, next offset %d\n", page.Page.Total, page.Page.NextOffset)
	// Output:
	// c Note c
	// b Note b
	// total 3, next offset 2
}
