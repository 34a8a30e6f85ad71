package ports

import (
	"slices"
	"strings"
	"unicode"
)

// Trigrams returns the distinct trigrams of s, sorted, as pg_trgm defines
// them: s is split into words (maximal runs of letters and digits, per
// [unicode.IsLetter] and [unicode.IsDigit]); each word is folded with
// [unicode.ToLower] rune by rune, padded with two spaces before and one
// after, and every run of three consecutive runes of the padded word is a
// trigram. "Cat" gives "  c", " ca", "ca ", "cat".
func Trigrams(s string) []string {
	var out []string
	var word []rune
	flush := func() {
		if len(word) == 0 {
			return
		}
		padded := make([]rune, 0, len(word)+3)
		padded = append(padded, ' ', ' ')
		padded = append(padded, word...)
		padded = append(padded, ' ')
		for i := 0; i+3 <= len(padded); i++ {
			out = append(out, string(padded[i:i+3]))
		}
		word = word[:0]
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = append(word, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
	slices.Sort(out)
	return slices.Compact(out)
}

// Similarity is pg_trgm's similarity of a and b: the number of trigrams
// they share divided by the number of distinct trigrams of either, computed
// in float32 as pg_trgm does (0 when either has no trigram). Fuzzy search
// ranks by it in every implementation. The SQL adapters compute it from a
// trigram table filled with [Trigrams]; Postgres' own pg_trgm agrees on
// ASCII text only (it classifies some non-ASCII letters differently and
// hashes multibyte trigrams), so it is an opt-in of the Postgres adapter.
func Similarity(a, b string) float32 {
	return SimilarityOf(Trigrams(a), Trigrams(b))
}

// SimilarityOf is [Similarity] for trigram sets already computed with
// [Trigrams] (sorted and distinct).
func SimilarityOf(ta, tb []string) float32 {
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	shared := 0
	for i, j := 0, 0; i < len(ta) && j < len(tb); {
		switch c := strings.Compare(ta[i], tb[j]); {
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
	return float32(shared) / float32(len(ta)+len(tb)-shared)
}
