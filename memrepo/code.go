package memrepo

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// chunkRecord is a stored chunk with the terms of its content, computed once
// when it is written.
type chunkRecord struct {
	c     ports.Chunk
	terms []string // ports.Terms(c.Content)
}

// PutChunks stores the chunks, replacing any with the same IDs; when the
// same ID appears twice in chunks, the later one wins. Every chunk is
// validated with Normalize first: if one is invalid its error (wrapping
// [ports.ErrInvalidItem]) is returned and nothing is written.
func (s *Store) PutChunks(ctx context.Context, chunks []ports.Chunk) error {
	recs := make([]chunkRecord, 0, len(chunks))
	for _, c := range chunks {
		c, err := c.Normalize()
		if err != nil {
			return err
		}
		recs = append(recs, chunkRecord{c: c, terms: ports.Terms(c.Content)})
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	for _, r := range recs {
		s.chunks[r.c.ID] = r
	}
	return nil
}

// SearchCode pages the chunks whose score for q is above 0, most similar
// first: score descending, then file path, start line and ID ascending.
// The score is float64(ports.TermScore(ports.Terms(q.Query), terms of the
// chunk's content)). A set q.PathPrefix keeps chunks whose file path starts
// with it, a set q.Language chunks of exactly that language. An invalid q
// ([ports.CodeQuery.Normalize]) is [ports.ErrInvalidQuery].
func (s *Store) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	scope := q.Scope()
	q, qerr := q.Normalize()
	return page(ctx, s, p, ports.SearchCodeLimits, scope, ports.SearchCodeOrder(q), identity[ports.CodeMatch], func() ([]ports.CodeMatch, error) {
		if qerr != nil {
			return nil, qerr
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		queryTerms := ports.Terms(q.Query)
		var all []ports.CodeMatch
		for _, r := range s.chunks {
			if q.PathPrefix != "" && !strings.HasPrefix(r.c.FilePath, q.PathPrefix) {
				continue
			}
			if q.Language != "" && r.c.Language != q.Language {
				continue
			}
			if score := float64(ports.TermScore(queryTerms, r.terms)); score > 0 {
				all = append(all, ports.CodeMatch{Chunk: r.c, Score: score})
			}
		}
		slices.SortFunc(all, func(a, b ports.CodeMatch) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			if c := strings.Compare(a.FilePath, b.FilePath); c != 0 {
				return c
			}
			if c := cmp.Compare(a.StartLine, b.StartLine); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		return all, nil
	})
}
