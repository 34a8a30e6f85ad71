package ports

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/boundedkit/bounded"
)

// SearchNodesLimits: 0-based pages of 100 entities by default, 1,000 at most.
var SearchNodesLimits = bounded.Limits{Default: 100, Max: 1000}

// DefaultThreshold is the fuzzy-search similarity threshold when a query
// gives none: 0.3, as pg_trgm's default similarity_threshold.
const DefaultThreshold = 0.3

// MaxQueries is the most query strings one SearchNodes call takes.
const MaxQueries = 20

// Entity is a node of the knowledge graph. Name identifies it.
type Entity struct {
	Name         string    `json:"name"`
	Type         string    `json:"type"`
	Observations []string  `json:"observations,omitempty"` // in order; nil when none
	Tags         []string  `json:"tags,omitempty"`         // sorted, distinct; nil when none
	UpdatedAt    time.Time `json:"updatedAt"`
}

// Normalize validates an entity and returns the form every implementation
// stores: tags deduplicated and sorted, UpdatedAt normalized with [Time],
// observations kept in order. Errors wrap [ErrInvalidItem].
func (e Entity) Normalize() (Entity, error) {
	if err := ValidateID("entity name", e.Name); err != nil {
		return Entity{}, err
	}
	if err := ValidateText("entity type", e.Type); err != nil {
		return Entity{}, fmt.Errorf("entity %q: %w", e.Name, err)
	}
	out := e
	out.Observations = nil
	if len(e.Observations) > 0 {
		out.Observations = append([]string(nil), e.Observations...)
	}
	for _, o := range out.Observations {
		if err := ValidateText("observation", o); err != nil {
			return Entity{}, fmt.Errorf("entity %q: %w", e.Name, err)
		}
	}
	out.Tags = sortedSet(e.Tags)
	for _, t := range out.Tags {
		if err := ValidateID("tag", t); err != nil {
			return Entity{}, fmt.Errorf("entity %q: %w", e.Name, err)
		}
	}
	out.UpdatedAt = Time(e.UpdatedAt)
	return out, nil
}

// MatchMode selects how SearchNodes matches.
type MatchMode uint8

const (
	// Exact: an entity matches a query when its name, its type or one of
	// its observations contains the query, compared after [Fold]. Every
	// match scores 1. Order: UpdatedAt descending, then name ascending.
	Exact MatchMode = iota
	// Fuzzy: an entity matches a query when the trigram [Similarity] of
	// the query and the entity's name is at least the threshold. Its score
	// is its best similarity over the queries. Order: score descending,
	// then name ascending.
	Fuzzy
)

// NodeQuery is a SearchNodes request.
type NodeQuery struct {
	// Queries are matched each on its own; an entity matching several is
	// returned once (with its best score). 1 to [MaxQueries] entries.
	Queries []string
	Mode    MatchMode
	// Tags, when set, keep only entities that have every one of them.
	Tags []string
	// Threshold is the least fuzzy similarity, in (0, 1]; 0 means
	// [DefaultThreshold]. Only Fuzzy mode uses it, but a value outside
	// [0, 1] is [ErrInvalidQuery] in either mode.
	Threshold float64
}

// Normalize validates q and applies the default threshold. Errors wrap
// [ErrInvalidQuery].
func (q NodeQuery) Normalize() (NodeQuery, error) {
	if len(q.Queries) == 0 {
		return q, fmt.Errorf("%w: no query given", ErrInvalidQuery)
	}
	if len(q.Queries) > MaxQueries {
		return q, fmt.Errorf("%w: %d queries, over the maximum %d", ErrInvalidQuery, len(q.Queries), MaxQueries)
	}
	for _, s := range q.Queries {
		if err := ValidateQuery("query", s); err != nil {
			return q, err
		}
	}
	for _, t := range q.Tags {
		if err := ValidateQuery("tag", t); err != nil {
			return q, err
		}
	}
	if q.Mode > Fuzzy {
		return q, fmt.Errorf("%w: unknown mode %d", ErrInvalidQuery, q.Mode)
	}
	switch {
	case q.Threshold == 0:
		q.Threshold = DefaultThreshold
	case math.IsNaN(q.Threshold) || q.Threshold < 0 || q.Threshold > 1:
		return q, fmt.Errorf("%w: threshold %v is not in (0, 1]", ErrInvalidQuery, q.Threshold)
	}
	q.Tags = sortedSet(q.Tags)
	return q, nil
}

// NodeMatch is an entity found by SearchNodes, with its score.
type NodeMatch struct {
	Entity
	// Score is 1 in Exact mode; in Fuzzy mode the best [Similarity] of a
	// query and the name, a float32 value (as pg_trgm computes it) held in
	// a float64.
	Score float64 `json:"score"`
}

// Knowledge is a knowledge graph of entities.
type Knowledge interface {
	// PutEntity stores e, replacing any entity with the same name. It
	// stores e.Normalize() and returns its error ([ErrInvalidItem])
	// without writing when e is invalid.
	PutEntity(ctx context.Context, e Entity) error

	// SearchNodes pages the entities matching q (see [MatchMode] for the
	// match, score and order of each mode), each once. Limits:
	// [SearchNodesLimits]; tools usually take 0-based page/pageSize
	// ([bounded.Limits.FromPageNumber]). An invalid q is [ErrInvalidQuery].
	SearchNodes(ctx context.Context, q NodeQuery, p bounded.Page) (bounded.Paged[NodeMatch], error)
}
