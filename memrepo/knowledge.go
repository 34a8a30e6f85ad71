package memrepo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/ports"
)

// entityRecord is a stored entity with the trigrams of its name, computed
// once when it is written.
type entityRecord struct {
	e        ports.Entity // as returned by Entity.Normalize
	trigrams []string     // ports.Trigrams(e.Name)
}

// PutEntity stores e.Normalize(), replacing any entity with the same name.
// An invalid entity (see Normalize), or one with a time
// [ports.ValidateTime] refuses, is an error wrapping [ports.ErrInvalidItem],
// and nothing is written.
func (s *Store) PutEntity(ctx context.Context, e ports.Entity) error {
	e, err := e.Normalize()
	if err != nil {
		return err
	}
	if err := ports.ValidateTime("updatedAt", e.UpdatedAt); err != nil {
		return fmt.Errorf("entity %q: %w", e.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e = cloneEntity(e)
	rec := entityRecord{e: e, trigrams: ports.Trigrams(e.Name)}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	s.entities[e.Name] = rec
	return nil
}

// SearchNodes pages the entities that have every tag of q.Tags and match
// one of q.Queries, each once, as [ports.MatchMode] documents:
//
//   - Exact: the name, the type or one of the observations, folded with
//     [ports.Fold], contains a query folded likewise. Score 1. Order:
//     UpdatedAt descending, then name ascending.
//   - Fuzzy: the best [ports.Similarity] of a query and the name, a float32
//     widened to float64, is at least q.Threshold (compared in float64).
//     Score: that similarity. Order: score descending, then name
//     ascending.
//
// An invalid q ([ports.NodeQuery.Normalize]) is [ports.ErrInvalidQuery].
func (s *Store) SearchNodes(ctx context.Context, q ports.NodeQuery, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
	scope := q.Scope()
	q, qerr := q.Normalize()
	return page(ctx, s, p, ports.SearchNodesLimits, scope, ports.NodeOrder(q.Mode), func(m ports.NodeMatch) ports.NodeMatch {
		m.Entity = cloneEntity(m.Entity)
		return m
	}, func() ([]ports.NodeMatch, error) {
		if qerr != nil {
			return nil, qerr
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		folded := make([]string, len(q.Queries))
		trigrams := make([][]string, len(q.Queries))
		for i, query := range q.Queries {
			if q.Mode == ports.Exact {
				folded[i] = ports.Fold(query)
				continue
			}
			// A query with too many trigrams to reach the threshold with any
			// name is skipped: no trigrams, similarity 0, no match.
			trigrams[i], _ = fuzzy.QueryTrigrams(query, q.Threshold)
		}

		var all []ports.NodeMatch
		for _, rec := range s.entities {
			if !hasAllTags(rec.e.Tags, q.Tags) {
				continue
			}
			switch q.Mode {
			case ports.Exact:
				if slices.ContainsFunc(folded, func(fq string) bool { return exactMatch(rec.e, fq) }) {
					all = append(all, ports.NodeMatch{Entity: rec.e, Score: 1})
				}
			case ports.Fuzzy:
				var best float32
				for _, tq := range trigrams {
					best = max(best, ports.SimilarityOf(tq, rec.trigrams))
				}
				if score := float64(best); score >= q.Threshold {
					all = append(all, ports.NodeMatch{Entity: rec.e, Score: score})
				}
			}
		}
		if q.Mode == ports.Exact {
			slices.SortFunc(all, func(a, b ports.NodeMatch) int {
				if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
					return c
				}
				return strings.Compare(a.Name, b.Name)
			})
		} else {
			slices.SortFunc(all, func(a, b ports.NodeMatch) int {
				if c := cmp.Compare(b.Score, a.Score); c != 0 {
					return c
				}
				return strings.Compare(a.Name, b.Name)
			})
		}
		return all, nil
	})
}

// exactMatch reports whether e's name, type or an observation contains the
// folded query fq, after folding.
func exactMatch(e ports.Entity, fq string) bool {
	if strings.Contains(ports.Fold(e.Name), fq) || strings.Contains(ports.Fold(e.Type), fq) {
		return true
	}
	return slices.ContainsFunc(e.Observations, func(o string) bool {
		return strings.Contains(ports.Fold(o), fq)
	})
}

// hasAllTags reports whether tags holds every element of want.
func hasAllTags(tags, want []string) bool {
	for _, t := range want {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// cloneEntity returns e with copies of its slices.
func cloneEntity(e ports.Entity) ports.Entity {
	e.Observations = clone(e.Observations)
	e.Tags = clone(e.Tags)
	return e
}
