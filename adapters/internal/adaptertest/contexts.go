package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// ContextErrors calls open, then every method of s, with contexts that
// end before, during and after the call ([ContextEnds]). Every error must
// wrap the context's (errors.Is with context.Canceled or
// context.DeadlineExceeded), whatever the driver reports: a read timeout
// at the context's deadline, a closed connection, an aborted statement.
// Afterwards every call succeeds again. open opens a store on a new pool
// and returns the pool, which is closed when not nil. It returns how many
// calls ended with an error, of how many made.
func ContextErrors(t *testing.T, s Store, open func(ctx context.Context) (*bun.DB, error)) (interrupted, calls int) {
	t.Helper()
	bg := context.Background()
	interrupted, calls = ContextEnds(t, "opening a store", func(ctx context.Context) error {
		db, err := open(ctx)
		if db != nil {
			db.Close()
		}
		return err
	})
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const n = 30
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("c/%02d", i))
	}
	for i, id := range ids {
		note := ports.Note{ID: id, Title: fmt.Sprintf("Note %d", i), Content: fmt.Sprintf("note %d\nof the context test\n", i),
			Tags:      []string{fmt.Sprintf("t%d", i%3)},
			Links:     []ports.Link{{Target: ids[(i+1)%n]}, {Target: "missing"}, {Target: "https://example.com/x", External: true}},
			UpdatedAt: base.Add(time.Duration(i) * time.Second)}
		if i > 0 {
			note.Parents = []string{ids[(i-1)/2]}
		}
		must(t, s.PutNote(bg, note))
		must(t, s.PutEntity(bg, ports.Entity{Name: fmt.Sprintf("entity number %d", i), Type: "t", Observations: []string{"o"}, UpdatedAt: base}))
		must(t, s.RecordRun(bg, ports.Run{ID: fmt.Sprintf("run-%02d", i), EndpointID: "ep", StartedAt: base.Add(time.Duration(i) * time.Second), Body: "body"}))
		must(t, s.PutChunks(bg, []ports.Chunk{{ID: fmt.Sprintf("chunk-%02d", i), FilePath: "f.go", StartLine: i + 1, EndLine: i + 1, Content: "func context test"}}))
	}
	page := bounded.Page{}
	paged := func(f func(ctx context.Context) (any, error)) func(ctx context.Context) error {
		return func(ctx context.Context) error { _, err := f(ctx); return err }
	}
	methods := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"PutNote", func(ctx context.Context) error {
			return s.PutNote(ctx, ports.Note{ID: "c/new", Title: "New", Links: []ports.Link{{Target: ids[0]}}, Parents: []string{ids[1]}, UpdatedAt: base})
		}},
		{"PutNote and DeleteNote", func(ctx context.Context) error {
			if err := s.PutNote(ctx, ports.Note{ID: "c/gone", Title: "Gone", UpdatedAt: base}); err != nil {
				return err
			}
			return s.DeleteNote(ctx, "c/gone")
		}},
		{"GetNote", paged(func(ctx context.Context) (any, error) { return s.GetNote(ctx, ids[0], bounded.Window{}) })},
		{"GetNotes", paged(func(ctx context.Context) (any, error) { return s.GetNotes(ctx, ids[:10], bounded.Window{}) })},
		{"ListNotes", paged(func(ctx context.Context) (any, error) { return s.ListNotes(ctx, ports.ListFilter{}, page) })},
		{"SearchNotes", paged(func(ctx context.Context) (any, error) { return s.SearchNotes(ctx, "context", page) })},
		{"SearchByLinks", paged(func(ctx context.Context) (any, error) {
			return s.SearchByLinks(ctx, ports.LinkQuery{HasLinksTo: ids[:3], ExternalDomains: []string{"example.com"}}, page)
		})},
		{"FindBrokenLinks", paged(func(ctx context.Context) (any, error) { return s.FindBrokenLinks(ctx, page) })},
		{"NoteLinks", paged(func(ctx context.Context) (any, error) { return s.NoteLinks(ctx, ids[0], ports.NoteLinksPages{}) })},
		{"Backlinks", paged(func(ctx context.Context) (any, error) { return s.Backlinks(ctx, ids[1], page) })},
		{"Children", paged(func(ctx context.Context) (any, error) { return s.Children(ctx, ids[0], page) })},
		{"Parents", paged(func(ctx context.Context) (any, error) { return s.Parents(ctx, ids[5], page) })},
		{"Descendants", paged(func(ctx context.Context) (any, error) {
			return s.Descendants(ctx, ids[0], ports.MaxDescendantDepth, page)
		})},
		{"ParentsOf", paged(func(ctx context.Context) (any, error) { return s.ParentsOf(ctx, ids[:10], 5) })},
		{"DescendantsOf", paged(func(ctx context.Context) (any, error) {
			return s.DescendantsOf(ctx, ids[:5], 3, 5)
		})},
		{"NoteHeads", paged(func(ctx context.Context) (any, error) { return s.NoteHeads(ctx, ids[:10], 2) })},
		{"RelatedNotes", paged(func(ctx context.Context) (any, error) { return s.RelatedNotes(ctx, ids[0], page) })},
		{"PutEntity", func(ctx context.Context) error {
			return s.PutEntity(ctx, ports.Entity{Name: "entity new", Type: "t", UpdatedAt: base})
		}},
		{"SearchNodes exact", paged(func(ctx context.Context) (any, error) {
			return s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"number"}}, page)
		})},
		{"SearchNodes fuzzy", paged(func(ctx context.Context) (any, error) {
			return s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"entity numbr 1", "entty 2"}, Mode: ports.Fuzzy}, page)
		})},
		{"RecordRun", func(ctx context.Context) error {
			return s.RecordRun(ctx, ports.Run{ID: "run-new", EndpointID: "ep", StartedAt: base, Body: "new"})
		}},
		{"ResponseHistory", paged(func(ctx context.Context) (any, error) { return s.ResponseHistory(ctx, "ep", page) })},
		{"PutChunks", func(ctx context.Context) error {
			return s.PutChunks(ctx, []ports.Chunk{{ID: "chunk-new", FilePath: "g.go", StartLine: 1, EndLine: 1, Content: "func new"}})
		}},
		{"SearchCode", paged(func(ctx context.Context) (any, error) {
			return s.SearchCode(ctx, ports.CodeQuery{Query: "context test"}, page)
		})},
	}
	for _, m := range methods {
		n, c := ContextEnds(t, m.name, m.call)
		interrupted, calls = interrupted+n, calls+c
		if err := m.call(bg); err != nil {
			t.Errorf("%s after the interrupted calls: %v", m.name, err)
		}
	}
	return interrupted, calls
}

// ContextEnds times call with a context that never ends, then calls it
// with contexts canceled, or past their deadline, at tenths of that time
// (fifths under the race detector; the first already ended): every error
// must wrap the context's. It returns how many calls ended with an error,
// of how many made.
func ContextEnds(t *testing.T, what string, call func(ctx context.Context) error) (interrupted, calls int) {
	t.Helper()
	bg := context.Background()
	start := time.Now()
	if err := call(bg); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	took := time.Since(start)
	steps := Scaled(10, 5)
	for k := range steps {
		after := took * time.Duration(k) / time.Duration(steps)
		for _, deadline := range []bool{false, true} {
			var ctx context.Context
			var cancel context.CancelFunc
			want := context.Canceled
			if deadline {
				ctx, cancel = context.WithTimeout(bg, after)
				want = context.DeadlineExceeded
			} else {
				ctx, cancel = context.WithCancel(bg)
				if after == 0 {
					cancel()
				} else {
					time.AfterFunc(after, cancel)
				}
			}
			err := call(ctx)
			cancel()
			calls++
			if err == nil {
				continue
			}
			interrupted++
			if !errors.Is(err, want) {
				t.Errorf("%s, context ended %v in (%d%% of its %v; deadline %v): error %q does not wrap %q",
					what, after, k*100/steps, took, deadline, err, want)
			}
		}
	}
	return interrupted, calls
}
