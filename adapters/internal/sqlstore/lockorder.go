package sqlstore

import (
	"slices"
	"strings"

	"github.com/boundedkit/bounded/ports"
)

// chunksInIDOrder returns the chunks sorted by ID (bytewise), keeping only
// the last chunk of each ID, which is the one a batch stores when an ID
// repeats. Writing a batch in this order makes every transaction lock the
// chunks' rows in one global order, so that two batches holding the same
// chunks in different orders wait for each other instead of deadlocking
// (which Postgres resolves by failing one of them).
func chunksInIDOrder(chunks []ports.Chunk) []ports.Chunk {
	out := slices.Clone(chunks)
	slices.SortStableFunc(out, func(a, b ports.Chunk) int { return strings.Compare(a.ID, b.ID) })
	n := 0
	for i, c := range out {
		if i+1 < len(out) && out[i+1].ID == c.ID {
			continue // a later chunk has the same ID
		}
		out[n] = c
		n++
	}
	return out[:n]
}
