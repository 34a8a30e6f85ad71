package conformance

import (
	"context"
	"sync/atomic"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// countingStore is memrepo counting the calls of the store under test, so
// that the suite's cost on a real database stays known.
type countingStore struct {
	*memrepo.Store
	reads, writes *atomic.Int64
}

func (c countingStore) PutNote(ctx context.Context, n ports.Note) error {
	c.writes.Add(1)
	return c.Store.PutNote(ctx, n)
}
func (c countingStore) PutEntity(ctx context.Context, e ports.Entity) error {
	c.writes.Add(1)
	return c.Store.PutEntity(ctx, e)
}
func (c countingStore) RecordRun(ctx context.Context, r ports.Run) error {
	c.writes.Add(1)
	return c.Store.RecordRun(ctx, r)
}
func (c countingStore) PutChunks(ctx context.Context, cs []ports.Chunk) error {
	c.writes.Add(1)
	return c.Store.PutChunks(ctx, cs)
}
func (c countingStore) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.ListNotes(ctx, f, p)
}
func (c countingStore) SearchNotes(ctx context.Context, q string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.SearchNotes(ctx, q, p)
}
func (c countingStore) SearchByLinks(ctx context.Context, q ports.LinkQuery, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.SearchByLinks(ctx, q, p)
}
func (c countingStore) Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.Backlinks(ctx, id, p)
}
func (c countingStore) SearchNodes(ctx context.Context, q ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
	c.reads.Add(1)
	return c.Store.SearchNodes(ctx, q, p)
}
func (c countingStore) ResponseHistory(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	c.reads.Add(1)
	return c.Store.ResponseHistory(ctx, id, p)
}
func (c countingStore) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	c.reads.Add(1)
	return c.Store.SearchCode(ctx, q, p)
}
func (c countingStore) FindBrokenLinks(ctx context.Context, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
	c.reads.Add(1)
	return c.Store.FindBrokenLinks(ctx, p)
}
func (c countingStore) NoteLinks(ctx context.Context, id string, p ports.NoteLinksPages) (ports.NoteLinks, error) {
	c.reads.Add(1)
	return c.Store.NoteLinks(ctx, id, p)
}
func (c countingStore) Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.Children(ctx, id, p)
}
func (c countingStore) Parents(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.Parents(ctx, id, p)
}
func (c countingStore) Descendants(ctx context.Context, id string, d int, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
	c.reads.Add(1)
	return c.Store.Descendants(ctx, id, d, p)
}
func (c countingStore) RelatedNotes(ctx context.Context, id string, p bounded.Page) (bounded.Paged[ports.Related], error) {
	c.reads.Add(1)
	return c.Store.RelatedNotes(ctx, id, p)
}
func (c countingStore) GetNote(ctx context.Context, id string, w bounded.Window) (ports.NoteContent, error) {
	c.reads.Add(1)
	return c.Store.GetNote(ctx, id, w)
}
func (c countingStore) GetNotes(ctx context.Context, ids []string, w bounded.Window) (ports.GetNotesResult, error) {
	c.reads.Add(1)
	return c.Store.GetNotes(ctx, ids, w)
}
func (c countingStore) ParentsOf(ctx context.Context, ids []string, perNote int) (ports.Batch[ports.NoteRef], error) {
	c.reads.Add(1)
	return c.Store.ParentsOf(ctx, ids, perNote)
}
func (c countingStore) DescendantsOf(ctx context.Context, ids []string, d, perNote int) (ports.Batch[ports.Descendant], error) {
	c.reads.Add(1)
	return c.Store.DescendantsOf(ctx, ids, d, perNote)
}
func (c countingStore) NoteHeads(ctx context.Context, ids []string, maxLines int) (ports.GetNotesResult, error) {
	c.reads.Add(1)
	return c.Store.NoteHeads(ctx, ids, maxLines)
}
func (c countingStore) ContextOf(ctx context.Context, ids []string, q ports.ContextQuery) (ports.NoteContext, error) {
	c.reads.Add(1)
	return c.Store.ContextOf(ctx, ids, q)
}
func (c countingStore) ResolveNotes(ctx context.Context, names []string) ([]ports.Resolution, error) {
	c.reads.Add(1)
	return c.Store.ResolveNotes(ctx, names)
}
