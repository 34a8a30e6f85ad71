package sqlstore

import (
	"cmp"
	"math/bits"
	"slices"
	"unicode"

	"github.com/boundedkit/bounded/ports"
)

// trigram is a trigram of [ports.Trigrams] as its three runes.
type trigram [3]rune

// trigramOf is the trigram of the string t, one of [ports.Trigrams].
func trigramOf(t string) trigram {
	var k trigram
	i := 0
	for _, r := range t {
		if i < len(k) {
			k[i] = r
		}
		i++
	}
	return k
}

// scorer scores names against the queries of a fuzzy search as memrepo
// does ([ports.SimilarityOf] of [ports.Trigrams]), without building their
// trigrams as strings.
type scorer struct {
	// of says which queries hold a trigram, a bit each.
	of map[trigram]uint64
	n  []int
	// Reused by score.
	word    []rune
	tri     []trigram
	shared  []int
	queries [][]string
}

// newScorer returns a scorer for queries of trigrams sorted and
// distinct ([ports.Trigrams]).
func newScorer(queries [][]string) *scorer {
	sc := &scorer{of: map[trigram]uint64{}, n: make([]int, len(queries)), shared: make([]int, len(queries)), queries: queries}
	for j, q := range queries {
		sc.n[j] = len(q)
		if j >= 64 {
			continue
		}
		for _, t := range q {
			sc.of[trigramOf(t)] |= 1 << j
		}
	}
	return sc
}

// score returns the best similarity of name to the queries and the
// number of its distinct trigrams.
func (sc *scorer) score(name string) (float32, int) {
	if len(sc.n) > 64 {
		tri := ports.Trigrams(name)
		var best float32
		for _, q := range sc.queries {
			best = max(best, ports.SimilarityOf(q, tri))
		}
		return best, len(tri)
	}
	sc.tri = sc.tri[:0]
	flush := func() {
		if len(sc.word) == 0 {
			return
		}
		prev := [2]rune{' ', ' '}
		for _, r := range sc.word {
			sc.tri = append(sc.tri, trigram{prev[0], prev[1], r})
			prev = [2]rune{prev[1], r}
		}
		sc.tri = append(sc.tri, trigram{prev[0], prev[1], ' '})
		sc.word = sc.word[:0]
	}
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sc.word = append(sc.word, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
	slices.SortFunc(sc.tri, func(a, b trigram) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(a[1], b[1]); c != 0 {
			return c
		}
		return cmp.Compare(a[2], b[2])
	})
	sc.tri = slices.Compact(sc.tri)
	clear(sc.shared)
	for _, t := range sc.tri {
		for b := sc.of[t]; b != 0; b &= b - 1 {
			sc.shared[bits.TrailingZeros64(b)]++
		}
	}
	m := len(sc.tri)
	var best float32
	for j, n := range sc.n {
		if n > 0 && m > 0 {
			best = max(best, similarity(sc.shared[j], m, n))
		}
	}
	return best, m
}
