package fuzzy_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/boundedkit/bounded/internal/fuzzy"
	"github.com/boundedkit/bounded/ports"
)

// word returns a word of n distinct letters, from base up: n+1 distinct
// trigrams.
func word(base rune, n int) string {
	var b strings.Builder
	for r := base; n > 0; r++ {
		if unicode.IsLetter(r) && unicode.ToLower(r) == r {
			b.WriteRune(r)
			n--
		}
	}
	return b.String()
}

// bound is the largest similarity a query of n trigrams can reach with
// any entity name.
func bound(n int) float64 {
	return float64(float32(fuzzy.MaxNameTrigrams) / float32(n))
}

// TestQueryTrigrams checks that QueryTrigrams returns exactly
// Trigrams when it keeps a query, and skips exactly the queries whose
// similarity bound is below the threshold, at and around the limit.
func TestQueryTrigrams(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	alphabet := []rune("aAbB01 -_.,ÄäßΣσς日本語Ⅻ٣\u0301\t")
	var queries []string
	for range 500 {
		var b strings.Builder
		for range r.IntN(200) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		queries = append(queries, b.String())
	}
	queries = append(queries, "", "   ", "Cat", "cat CAT cAt", strings.Repeat("ab ", 2000))
	for _, q := range queries {
		for _, th := range []float64{0.3, 1, 1e-9} {
			got, ok := fuzzy.QueryTrigrams(q, th)
			want := ports.Trigrams(q)
			if !ok {
				t.Errorf("QueryTrigrams(%q, %v) skipped a query of %d trigrams", q, th, len(want))
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("QueryTrigrams(%q, %v) = %q, want Trigrams' %q", q, th, got, want)
			}
		}
	}

	for _, th := range []float64{1, 0.9, 0.5, 0.3, 0.1, 0.05} {
		// The largest n whose bound reaches th.
		limit := fuzzy.MaxNameTrigrams
		for bound(limit+1) >= th {
			limit++
		}
		for _, n := range []int{limit - 1, limit, limit + 1, limit + 2, 2 * limit} {
			q := word(0x4e00, n-1)
			got, ok := fuzzy.QueryTrigrams(q, th)
			if wantOK := bound(n) >= th; ok != wantOK {
				t.Errorf("threshold %v, query of %d trigrams (bound %v): kept %v, want %v", th, n, bound(n), ok, wantOK)
			}
			if ok && len(got) != n {
				t.Errorf("threshold %v: %d trigrams, want %d", th, len(got), n)
			}
		}
	}
	if _, ok := fuzzy.QueryTrigrams(word(0x4e00, 3416-1), 0.3); !ok {
		t.Errorf("a query of 3,416 trigrams was skipped at 0.3")
	}
	if _, ok := fuzzy.QueryTrigrams(word(0x4e00, 3417-1), 0.3); ok {
		t.Errorf("a query of 3,417 trigrams was kept at 0.3")
	}
}

// TestMaxNameTrigrams checks the bound on names: the longest names of
// every shape have at most MaxNameTrigrams trigrams, and one reaches it.
func TestMaxNameTrigrams(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	most := 0
	names := []string{strings.Repeat("a ", 512), strings.Repeat("é", 512), word(0x4e00, 341)}
	// A 1,024-letter word of ASCII letters and digits whose inner
	// trigrams are all distinct has 1,025 trigrams.
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString("ab")
	seen := map[string]bool{}
	for tries := 0; b.Len() < 1024 && tries < 1_000_000; tries++ {
		s := b.String()
		tri := s[len(s)-2:] + letters[r.IntN(len(letters)):][:1]
		if !seen[tri] {
			seen[tri] = true
			b.WriteByte(tri[2])
		}
	}
	names = append(names, b.String())
	for range 2000 {
		var n strings.Builder
		for n.Len() < 1020 {
			switch r.IntN(3) {
			case 0:
				n.WriteByte(' ')
			case 1:
				n.WriteByte(letters[r.IntN(len(letters))])
			default:
				n.WriteRune(rune(0x4e00 + r.IntN(20000)))
			}
		}
		names = append(names, n.String())
	}
	for _, n := range names {
		if err := ports.ValidateID("name", n); err != nil {
			continue
		}
		k := len(ports.Trigrams(n))
		if k > fuzzy.MaxNameTrigrams {
			t.Fatalf("a name of %d bytes has %d trigrams, over MaxNameTrigrams %d", len(n), k, fuzzy.MaxNameTrigrams)
		}
		most = max(most, k)
	}
	if most != fuzzy.MaxNameTrigrams {
		t.Errorf("the names checked have at most %d trigrams, want one with %d", most, fuzzy.MaxNameTrigrams)
	}
}

// TestQueryTrigramsHuge checks that a query of MaxQueryBytes with
// about 330,000 distinct trigrams is skipped at the default threshold
// after reading only its first few thousand.
func TestQueryTrigramsHuge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < ports.MaxQueryBytes-8 {
		b.WriteRune(rune(0x4e00 + r.IntN(20000)))
		if r.IntN(4) == 0 {
			b.WriteByte(' ')
		}
	}
	start := time.Now()
	_, ok := fuzzy.QueryTrigrams(b.String(), ports.DefaultThreshold)
	took := time.Since(start)
	if ok {
		t.Fatalf("a query of %d bytes was kept at threshold %v", b.Len(), ports.DefaultThreshold)
	}
	t.Logf("skipped a query of %d bytes in %v", b.Len(), took)
}

// TestMinShared checks against every count of shared trigrams that
// MinShared is the least that reaches the threshold, for queries of
// 1 to 300 trigrams and thresholds on and between float32 steps.
func TestMinShared(t *testing.T) {
	thresholds := []float64{0.3, 0.1, 0.5, 1, 0.999, 1e-9, 0.25, 1.0 / 3, float64(float32(0.3)), math.Nextafter(float64(float32(0.3)), 1)}
	for n := 1; n <= 300; n++ {
		for _, th := range thresholds {
			want := n + 1
			for s := 1; s <= n; s++ {
				if float64(float32(s)/float32(n)) >= th {
					want = s
					break
				}
			}
			if got := fuzzy.MinShared(n, th); got != want {
				t.Fatalf("fuzzy.MinShared(%d, %v) = %d, want %d", n, th, got, want)
			}
		}
	}
	if got := fuzzy.MinShared(10, 0); got != 1 {
		t.Errorf("fuzzy.MinShared(10, 0) = %d, want 1", got)
	}
}
