// Package fuzzy holds the bounds a store uses to prune a fuzzy entity
// search (ports.Fuzzy) without changing its answer.
package fuzzy

import (
	"math"
	"slices"
	"unicode"

	"github.com/boundedkit/bounded/ports"
)

// MaxNameTrigrams is the most distinct trigrams ([ports.Trigrams]) an
// entity name can have: 1,025. A name is at most 1,024 bytes
// ([ports.ValidateID]); a
// word of n runes takes at least n bytes and gives n+1 trigrams, and words
// are separated by at least one byte, so a name of b bytes has at most b+1.
const MaxNameTrigrams = 1024 + 1

// QueryTrigrams returns [ports.Trigrams](query) and true, or nil and false
// when query has too many distinct trigrams to match any entity name at
// threshold in [ports.Fuzzy] mode.
//
// A query with n trigrams shares at most [MaxNameTrigrams] of them with a
// name, so its [ports.Similarity] with any name is at most
// float32(MaxNameTrigrams) / float32(n) (the float32 division is
// monotonic). When that bound, widened to float64, is below threshold the
// query matches nothing, and every implementation skips it: the answer is
// the same as comparing it with every name, without the cost. The count
// stops at the first trigram past the bound, so a query of
// [ports.MaxQueryBytes] costs about as much as its first few thousand trigrams
// at the default threshold (3,416 trigrams at most can match at 0.3).
//
// A threshold that is not above 0 (NaN included) bounds nothing: every
// query is kept. [ports.NodeQuery.Normalize] never leaves one.
func QueryTrigrams(query string, threshold float64) (trigrams []string, ok bool) {
	limit := trigramLimit(threshold)
	set := make(map[[3]rune]struct{})
	var word []rune
	flush := func() bool {
		if len(word) == 0 {
			return true
		}
		padded := make([]rune, 0, len(word)+3)
		padded = append(padded, ' ', ' ')
		padded = append(padded, word...)
		padded = append(padded, ' ')
		word = word[:0]
		for i := 0; i+3 <= len(padded); i++ {
			set[[3]rune{padded[i], padded[i+1], padded[i+2]}] = struct{}{}
			if len(set) > limit {
				return false
			}
		}
		return true
	}
	for _, r := range query {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = append(word, unicode.ToLower(r))
			continue
		}
		if !flush() {
			return nil, false
		}
	}
	if !flush() {
		return nil, false
	}
	if len(set) == 0 {
		return nil, true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, string(k[:]))
	}
	slices.Sort(out)
	return out, true
}

// trigramLimit is the most trigrams a query can have and still reach
// threshold against a name of [MaxNameTrigrams] trigrams, or math.MaxInt
// when no query of [ports.MaxQueryBytes] (at most MaxQueryBytes+1 trigrams, by
// the argument of MaxNameTrigrams) can exceed it.
func trigramLimit(threshold float64) int {
	if !(threshold > 0) {
		return math.MaxInt
	}
	est := float64(MaxNameTrigrams) / threshold
	if est > 2*ports.MaxQueryBytes {
		return math.MaxInt
	}
	reaches := func(n int) bool { return float64(float32(MaxNameTrigrams)/float32(n)) >= threshold }
	// est is within a float32 rounding step of the limit: adjust.
	n := max(int(est), 1)
	for n > 1 && !reaches(n) {
		n--
	}
	for reaches(n + 1) {
		n++
	}
	return n
}

// MinShared is the fewest trigrams a name must share with a query of
// n trigrams for their [ports.Similarity] to reach threshold: a name sharing s
// has at least s trigrams, so its similarity is at most
// float32(s)/float32(n). A store may skip names sharing fewer; the answer
// is the same. It is 1 when threshold is not above 0, and n+1 (no name)
// when even n shared trigrams fall short.
func MinShared(n int, threshold float64) int {
	if !(threshold > 0) || n < 1 {
		return 1
	}
	reaches := func(s int) bool { return float64(float32(s)/float32(n)) >= threshold }
	s := max(int(math.Ceil(threshold*float64(n))), 1)
	for s > 1 && reaches(s-1) {
		s--
	}
	for s <= n && !reaches(s) {
		s++
	}
	return s
}
