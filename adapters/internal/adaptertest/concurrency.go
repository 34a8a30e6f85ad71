package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// WriteStats are the figures of a ConcurrentWrites run.
type WriteStats struct {
	Writes, Failed int
	Elapsed        time.Duration
}

// ConcurrentWrites writes from goroutines goroutines at once, perG writes
// each, spread over stores (several stores on one database: several
// pools, as several processes would have), then checks that every write is
// stored exactly once: the whole answers of the read methods equal those
// of a memrepo holding the same items.
//
// Each goroutine records runs and puts notes of its own (ids named after
// it), and every few writes also puts the same shared note, run, entity
// and chunk batch as all the others (the same values, so the final state
// does not depend on the order). Batches whose chunks come in different
// orders are ReversedBatches' concern.
func ConcurrentWrites(t *testing.T, stores []Store, goroutines, perG int) WriteStats {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ref := memrepo.New()
	type op struct {
		name string
		do   func(ctx context.Context, s Store) error
	}
	ops := make([][]op, goroutines)
	shared := func(k int) ports.Note {
		return ports.Note{ID: fmt.Sprintf("shared/%d", k), Title: "Shared", Content: "written by every goroutine\n",
			Tags: []string{"shared"}, Links: []ports.Link{{Target: "shared/0"}}, UpdatedAt: base}
	}
	chunk := func(id string) ports.Chunk {
		return ports.Chunk{ID: id, FilePath: "shared.go", StartLine: 1, EndLine: 1, Content: "shared token " + id}
	}
	for g := range goroutines {
		for i := range perG {
			var o op
			switch {
			case i%10 == 9:
				n := shared(i % 3)
				o = op{"PutNote " + n.ID, func(ctx context.Context, s Store) error { return s.PutNote(ctx, n) }}
			case i%10 == 4:
				r := ports.Run{ID: fmt.Sprintf("shared-run-%d", i%3), EndpointID: "ep-shared", StartedAt: base, Body: "shared"}
				o = op{"RecordRun " + r.ID, func(ctx context.Context, s Store) error { return s.RecordRun(ctx, r) }}
			case i%25 == 12:
				batch := []ports.Chunk{chunk("chunk-a"), chunk("chunk-b"), chunk("chunk-c")}
				o = op{"PutChunks shared", func(ctx context.Context, s Store) error { return s.PutChunks(ctx, batch) }}
			case i%25 == 7:
				e := ports.Entity{Name: fmt.Sprintf("entity g%02d i%03d", g, i), Type: "t", Observations: []string{"own"}, UpdatedAt: base}
				if g%2 == 0 {
					e = ports.Entity{Name: "entity shared", Type: "t", Observations: []string{"shared"}, UpdatedAt: base}
				}
				o = op{"PutEntity " + e.Name, func(ctx context.Context, s Store) error { return s.PutEntity(ctx, e) }}
			case i%2 == 0:
				r := ports.Run{ID: fmt.Sprintf("g%02d-r%03d", g, i), EndpointID: fmt.Sprintf("ep-%d", g%4),
					StartedAt: base.Add(time.Duration(i) * time.Millisecond), FinishedAt: base.Add(time.Second),
					Status: "ok", StatusCode: 200, Body: fmt.Sprintf("body of goroutine %d write %d: %s", g, i, strings.Repeat("é", i))}
				o = op{"RecordRun " + r.ID, func(ctx context.Context, s Store) error { return s.RecordRun(ctx, r) }}
			default:
				n := ports.Note{ID: fmt.Sprintf("g%02d/n%03d", g, i), Title: fmt.Sprintf("Note %d of %d", i, g),
					Content: fmt.Sprintf("goroutine %d\nwrite %d\n", g, i), Tags: []string{fmt.Sprintf("g%02d", g)},
					Links: []ports.Link{{Target: "shared/0"}, {Target: fmt.Sprintf("g%02d/n%03d", g, i-2)}}, Parents: []string{"shared/1"},
					UpdatedAt: base.Add(time.Duration(i%5) * time.Second)}
				o = op{"PutNote " + n.ID, func(ctx context.Context, s Store) error { return s.PutNote(ctx, n) }}
			}
			ops[g] = append(ops[g], o)
			if err := o.do(ctx, ref); err != nil {
				t.Fatalf("memrepo: %s: %v", o.name, err)
			}
		}
	}

	var mu sync.Mutex
	var failures []string
	stats := WriteStats{Writes: goroutines * perG}
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			s := stores[g%len(stores)]
			for _, o := range ops[g] {
				if err := o.do(ctx, s); err != nil {
					mu.Lock()
					stats.Failed++
					failures = append(failures, fmt.Sprintf("goroutine %d: %s: %v", g, o.name, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	stats.Elapsed = time.Since(start)
	if len(failures) > 0 {
		slices.Sort(failures)
		t.Errorf("%d of %d concurrent writes failed; for example:\n%s", len(failures), stats.Writes, strings.Join(failures[:min(len(failures), 5)], "\n"))
	}
	SameReads(t, ref, stores[0], "after the concurrent writes", 40)
	return stats
}

// SameReads compares the whole answers of got's read methods with ref's:
// every note (with its whole content), listings, links, hierarchy and
// searches, read in pages of the maximum; the methods that take a note id
// are asked about every every-th note (1: all) and a few fixed ids. A
// difference is reported with the call and a diff (-want +got).
func SameReads(t *testing.T, ref, got Store, when string, every int) {
	t.Helper()
	ctx := context.Background()
	check := func(call string, want, have any, werr, gerr error) {
		t.Helper()
		if werr != nil || gerr != nil {
			if !errors.Is(gerr, sentinelOf(werr)) || (werr == nil) != (gerr == nil) {
				t.Errorf("%s: %s: error %v, want %v", when, call, gerr, werr)
			}
			return
		}
		if d := cmp.Diff(want, have, CursorAtPresence); d != "" {
			t.Errorf("%s: %s differs (-want +got):\n%s", when, call, d)
		}
	}
	wantIDs, werr := allIDs(ctx, ref)
	gotIDs, gerr := allIDs(ctx, got)
	check("ListNotes (every page)", wantIDs, gotIDs, werr, gerr)
	for i := 0; i < len(wantIDs); i += ports.MaxGetNotes {
		ids := wantIDs[i:min(i+ports.MaxGetNotes, len(wantIDs))]
		w := bounded.Window{MaxLines: bounded.MaxWindowLines}
		wn, we := ref.GetNotes(ctx, ids, w)
		gn, ge := got.GetNotes(ctx, ids, w)
		check(fmt.Sprintf("GetNotes(%d ids from %q)", len(ids), ids[0]), wn, gn, we, ge)
	}
	whole := func(name string, read func(s Store, p bounded.Page) (any, bounded.PageInfo, error), limit int) {
		t.Helper()
		var want, have []any
		for _, x := range []struct {
			s   Store
			out *[]any
			err *error
		}{{ref, &want, &werr}, {got, &have, &gerr}} {
			*x.err = nil
			p := bounded.Page{Limit: limit}
			for step := 0; step < 10_000; step++ {
				items, info, err := read(x.s, p)
				if err != nil {
					*x.err = err
					break
				}
				*x.out = append(*x.out, items)
				if !info.HasMore {
					break
				}
				p.Offset = info.NextOffset
			}
		}
		check(name, want, have, werr, gerr)
	}
	var some []string
	for i, id := range wantIDs {
		if i%every == 0 {
			some = append(some, id)
		}
	}
	for _, id := range append(some, "shared/0", "shared/1", "missing") {
		whole(fmt.Sprintf("Backlinks(%q)", id), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.Backlinks(ctx, id, p)
			return pg.Items, pg.Page, err
		}, ports.BacklinksLimits.Max)
		whole(fmt.Sprintf("Children(%q)", id), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.Children(ctx, id, p)
			return pg.Items, pg.Page, err
		}, ports.ChildrenLimits.Max)
		whole(fmt.Sprintf("Parents(%q)", id), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.Parents(ctx, id, p)
			return pg.Items, pg.Page, err
		}, ports.ParentsLimits.Max)
		whole(fmt.Sprintf("Descendants(%q, 20)", id), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.Descendants(ctx, id, ports.MaxDescendantDepth, p)
			return pg.Items, pg.Page, err
		}, ports.DescendantsLimits.Max)
		whole(fmt.Sprintf("RelatedNotes(%q)", id), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.RelatedNotes(ctx, id, p)
			return pg.Items, pg.Page, err
		}, ports.RelatedNotesLimits.Max)
		for _, cat := range []string{"internal", "external", "incoming"} {
			whole(fmt.Sprintf("NoteLinks(%q) %s", id, cat), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
				var pages ports.NoteLinksPages
				switch cat {
				case "internal":
					pages.Internal = p
				case "external":
					pages.External = p
				default:
					pages.Incoming = p
				}
				nl, err := s.NoteLinks(ctx, id, pages)
				pg := map[string]bounded.Paged[ports.LinkRef]{"internal": nl.Internal, "external": nl.External, "incoming": nl.Incoming}[cat]
				return pg.Items, pg.Page, err
			}, ports.NoteLinksLimits.Max)
		}
	}
	whole("FindBrokenLinks", func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
		pg, err := s.FindBrokenLinks(ctx, p)
		return pg.Items, pg.Page, err
	}, ports.FindBrokenLinksLimits.Max)
	for _, q := range []string{"e", "a", "shared", "é"} {
		whole(fmt.Sprintf("SearchNotes(%q)", q), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.SearchNotes(ctx, q, p)
			return pg.Items, pg.Page, err
		}, ports.SearchNotesLimits.Max)
		whole(fmt.Sprintf("SearchNodes(%q)", q), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{q, "t"}}, p)
			return pg.Items, pg.Page, err
		}, ports.SearchNodesLimits.Max)
	}
	whole("SearchCode(shared token)", func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
		pg, err := s.SearchCode(ctx, ports.CodeQuery{Query: "shared token chunk"}, p)
		return pg.Items, pg.Page, err
	}, ports.SearchCodeLimits.Max)
	for _, ep := range []string{"ep-0", "ep-1", "ep-2", "ep-3", "ep-shared"} {
		whole(fmt.Sprintf("ResponseHistory(%q)", ep), func(s Store, p bounded.Page) (any, bounded.PageInfo, error) {
			pg, err := s.ResponseHistory(ctx, ep, p)
			return pg.Items, pg.Page, err
		}, ports.ResponseHistoryLimits.Max)
	}
}

// allIDs lists the ids of every note, in ListNotes' order.
func allIDs(ctx context.Context, s Store) ([]string, error) {
	var ids []string
	list := func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return s.ListNotes(ctx, ports.ListFilter{}, p)
	}
	for n, err := range bounded.All(ctx, bounded.Page{Limit: ports.ListNotesLimits.Max}, list) {
		if err != nil {
			return nil, err
		}
		ids = append(ids, n.ID)
	}
	return ids, nil
}

// sentinelOf is the sentinel err wraps (nil for none).
func sentinelOf(err error) error {
	for _, s := range []error{ports.ErrInvalidQuery, ports.ErrNotFound, ports.ErrInvalidItem, bounded.ErrInvalidPage, bounded.ErrInvalidCursor, bounded.ErrInvalidWindow} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// ImportReport is what an import into a store reports: the notes it
// wrote, the notes it deleted, and the files it refused.
type ImportReport struct{ Imported, Deleted, Refused int }

// Importer imports a fixed data set into s, as an application's import
// does (e.g. the notes example's vault.Import of its demo vault).
type Importer func(ctx context.Context, s ports.Notes) (ImportReport, error)

// Reimport imports a data set into a new store twice with load, and checks
// that the second import changes nothing: the same report, and every
// whole answer equal to the first import's and to memrepo's after the
// same imports. It returns the number of notes.
func Reimport(t *testing.T, open Opener, load Importer) int {
	t.Helper()
	ctx := context.Background()
	ref, got := memrepo.New(), open(t)
	// memrepo imports once, the store twice: the store must equal memrepo
	// after each import, so the second import changed nothing.
	first, err := load(ctx, ref)
	if err != nil {
		t.Fatalf("memrepo: import: %v", err)
	}
	for i := range 2 {
		rep, err := load(ctx, got)
		if err != nil {
			t.Fatalf("import %d: %v", i+1, err)
		}
		if rep.Imported != first.Imported || rep.Deleted != 0 || rep.Refused != first.Refused {
			t.Errorf("import %d: report %+v, memrepo's %+v", i+1, rep, first)
		}
		SameReads(t, ref, got, fmt.Sprintf("after import %d", i+1), Scaled(1, 4))
	}
	ids, err := allIDs(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < 20 {
		t.Fatalf("the import gave %d notes", len(ids))
	}
	return len(ids)
}

// ReversedBatches puts the same chunks from two goroutines at once, one
// batch in order and the other reversed, rounds times each (stopping at
// the first failure), and returns the errors: none when the store writes a
// batch's rows in an order of its own (e.g. by id). A store that writes
// them in the caller's order lets two transactions lock the same rows in
// opposite orders: a deadlock, which Postgres breaks after
// deadlock_timeout (1 s) by failing one of the writes.
func ReversedBatches(t *testing.T, s Store, rounds int) []error {
	t.Helper()
	ctx := context.Background()
	var batch []ports.Chunk
	for i := range 8 {
		id := fmt.Sprintf("rev-%d", i)
		batch = append(batch, ports.Chunk{ID: id, FilePath: "rev.go", StartLine: 1, EndLine: 1, Content: "token " + id})
	}
	reversed := slices.Clone(batch)
	slices.Reverse(reversed)
	var mu sync.Mutex
	var errs []error
	stop := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for _, b := range [][]ports.Chunk{batch, reversed} {
		wg.Go(func() {
			for range rounds {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.PutChunks(ctx, b); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					once.Do(func() { close(stop) })
					return
				}
			}
		})
	}
	wg.Wait()
	return errs
}
