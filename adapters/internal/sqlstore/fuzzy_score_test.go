package sqlstore

import (
	"testing"

	"github.com/boundedkit/bounded/ports"
)

// FuzzScorer checks that the scorer scores a name as memrepo does.
func FuzzScorer(f *testing.F) {
	for _, s := range [][2]string{
		{"alpha beta 12", "alpah beta"}, {"Ⅻ données ÉTÉ", "donnees"}, {"a", "a"}, {"", "x"}, {"x", ""},
		{"abc abc abc", "abcabc"}, {"日本語 テキスト", "日本"}, {"a\xffb", "a b"}, {"ǅ ǈ", "ǆ"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, query string) {
		queries := [][]string{ports.Trigrams(query), ports.Trigrams(query + " z"), nil}
		sc := newScorer(queries)
		got, m := sc.score(name)
		tri := ports.Trigrams(name)
		var want float32
		for _, q := range queries {
			want = max(want, ports.SimilarityOf(q, tri))
		}
		if got != want || m != len(tri) {
			t.Errorf("score(%q) against %q: %v of %d trigrams, want %v of %d", name, query, got, m, want, len(tri))
		}
	})
}
