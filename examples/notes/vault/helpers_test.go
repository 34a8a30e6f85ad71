package vault_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// noteLinks returns the stored links of note id, internal and external,
// in order.
func noteLinks(t *testing.T, store ports.Notes, id string) []ports.Link {
	t.Helper()
	ctx := context.Background()
	lim := bounded.Page{Limit: ports.NoteLinksLimits.Max}
	nl, err := store.NoteLinks(ctx, id, ports.NoteLinksPages{Internal: lim, External: lim, Incoming: bounded.Page{Limit: 1}})
	if err != nil {
		t.Fatalf("NoteLinks(%s): %v", id, err)
	}
	if nl.Internal.Page.HasMore || nl.External.Page.HasMore {
		t.Fatalf("NoteLinks(%s): more than a page", id)
	}
	refs := append(nl.Internal.Items, nl.External.Items...)
	slices.SortFunc(refs, func(a, b ports.LinkRef) int { return a.Position - b.Position })
	var out []ports.Link
	for _, r := range refs {
		out = append(out, ports.Link{Target: r.Target, External: r.External, Text: r.Text})
	}
	return out
}

// exists reports whether the store holds note id.
func exists(t *testing.T, store ports.Notes, id string) bool {
	t.Helper()
	_, err := store.GetNote(context.Background(), id, bounded.Window{MaxLines: 1})
	if err != nil && !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("GetNote(%s): %v", id, err)
	}
	return err == nil
}

// brokenLinks returns the number of broken links FindBrokenLinks finds.
func brokenLinks(t *testing.T, store ports.Notes) int {
	t.Helper()
	p, err := store.FindBrokenLinks(context.Background(), bounded.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p.Page.Total
}
