package ports

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/boundedkit/bounded"
)

// SearchCodeLimits: 10 chunks by default, 50 at most. Tools fit the page
// into a [bounded.Budget] as well.
var SearchCodeLimits = bounded.Limits{Default: 10, Max: 50}

// Chunk is a scored unit of code search: some lines of one file, with a few
// lines of context on either side.
type Chunk struct {
	ID       string `json:"id"`
	FilePath string `json:"filePath"`
	Language string `json:"language,omitempty"`
	// StartLine and EndLine are the 1-based first and last lines of
	// Content in the file.
	StartLine     int    `json:"startLine"`
	EndLine       int    `json:"endLine"`
	Content       string `json:"content"`
	ContextBefore string `json:"contextBefore,omitempty"`
	ContextAfter  string `json:"contextAfter,omitempty"`
}

// Normalize validates a chunk. Errors wrap [ErrInvalidItem].
func (c Chunk) Normalize() (Chunk, error) {
	if err := ValidateID("chunk id", c.ID); err != nil {
		return Chunk{}, err
	}
	if err := ValidateID("file path", c.FilePath); err != nil {
		return Chunk{}, fmt.Errorf("chunk %q: %w", c.ID, err)
	}
	for field, s := range map[string]string{"language": c.Language, "content": c.Content, "context before": c.ContextBefore, "context after": c.ContextAfter} {
		if err := ValidateText(field, s); err != nil {
			return Chunk{}, fmt.Errorf("chunk %q: %w", c.ID, err)
		}
	}
	if c.StartLine < 1 || c.EndLine < c.StartLine {
		return Chunk{}, fmt.Errorf("%w: chunk %q: lines %d-%d: want 1 <= start <= end", ErrInvalidItem, c.ID, c.StartLine, c.EndLine)
	}
	return c, nil
}

// CodeQuery is a SearchCode request.
type CodeQuery struct {
	// Query is matched by its [Terms].
	Query string
	// PathPrefix, when set, keeps chunks whose file path starts with it.
	PathPrefix string
	// Language, when set, keeps chunks of that language (exact match).
	Language string
}

// Normalize validates q. A query with no terms is [ErrInvalidQuery].
func (q CodeQuery) Normalize() (CodeQuery, error) {
	if err := ValidateQuery("query", q.Query); err != nil {
		return q, err
	}
	if len(Terms(q.Query)) == 0 {
		return q, fmt.Errorf("%w: query %q has no searchable terms (letters, digits or _)", ErrInvalidQuery, q.Query)
	}
	for field, s := range map[string]string{"pathPrefix": q.PathPrefix, "language": q.Language} {
		if s == "" {
			continue
		}
		if err := ValidateQuery(field, s); err != nil {
			return q, err
		}
	}
	return q, nil
}

// CodeMatch is a chunk found by SearchCode, with its score.
type CodeMatch struct {
	Chunk
	// Score is the share of the query's distinct terms that occur among
	// the chunk content's terms, in (0, 1], computed in float32.
	Score float64 `json:"score"`
}

// Terms returns the distinct search terms of s, sorted: maximal runs of
// letters, digits and '_', folded with [Fold], at least 2 runes long.
// "parseHTTP(req)" gives "parsehttp", "req".
func Terms(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start >= 2 {
			w := s[start:end]
			if n := len([]rune(w)); n >= 2 {
				out = append(out, Fold(w))
			}
		}
		start = -1
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	slices.Sort(out)
	return slices.Compact(out)
}

// TermScore is the [CodeMatch] score of a chunk whose content has the terms
// chunkTerms (from [Terms]) for a query with queryTerms: shared / len(query),
// in float32.
func TermScore(queryTerms, chunkTerms []string) float32 {
	if len(queryTerms) == 0 {
		return 0
	}
	shared := 0
	for i, j := 0, 0; i < len(queryTerms) && j < len(chunkTerms); {
		switch c := strings.Compare(queryTerms[i], chunkTerms[j]); {
		case c == 0:
			shared++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float32(shared) / float32(len(queryTerms))
}

// Code is a code search index.
type Code interface {
	// PutChunks stores the chunks, replacing any with the same IDs. Every
	// chunk is validated with Normalize first; if one is invalid nothing
	// is written and the error wraps [ErrInvalidItem].
	PutChunks(ctx context.Context, chunks []Chunk) error

	// SearchCode pages the chunks with a score above 0 for q (see
	// [CodeMatch]), most similar first: score descending, then file path,
	// start line and ID ascending. Limits: [SearchCodeLimits]. An invalid
	// q is [ErrInvalidQuery].
	SearchCode(ctx context.Context, q CodeQuery, p bounded.Page) (bounded.Paged[CodeMatch], error)
}
