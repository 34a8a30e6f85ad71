package bounded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEstimatorCounts pins the estimate of small texts whose exact counts
// (o200k_base / cl100k_base) are known: the estimate is at or just above
// the larger. Package tokenizer checks the Estimator against the exact
// counts on real corpora.
func TestEstimatorCounts(t *testing.T) {
	for _, c := range []struct {
		text          string
		exact         int // the larger of the two exact counts
		atMost        int // the estimate's ceiling for this text
		o200k, cl100k int
	}{
		{text: "", exact: 0, atMost: 0},
		{text: "hello world", exact: 2, atMost: 3},
		{text: "1234567", exact: 3, atMost: 3}, // digits go by 3: exact
		{text: `{"results":[{"id":"note-000123","title":"Design note 12: fox dog","score":0.8571428571,"tags":["go","agents"]},{"id":2}],"pagination":{"total":350,"hasMore":true}}`, exact: 53, atMost: 60},
		{text: "The quick brown fox jumps over the lazy dog while an agent pages through search results and budgets its context window carefully.", exact: 23, atMost: 27},
		{text: "func (f *fitter) appendTail(b []byte, s *shape) []byte {\n\tb = append(b, keyPagination...)\n}", exact: 29, atMost: 34},
		{text: "日本語のテキスト、会议记录。한국어 문장은 영어보다", exact: 25, atMost: 33},
		{text: "🎉 👩‍💻", exact: 9, atMost: 16},
	} {
		got := Estimator{}.CountTokens(c.text)
		if got < c.exact || got > c.atMost {
			t.Errorf("CountTokens(%.40q) = %d, want %d to %d", c.text, got, c.exact, c.atMost)
		}
	}
}

// TestBudgetCountTokens checks that a Budget counts tokens as Fit does:
// its Tokenizer with MaxTokens, its CharsPerToken when set, else the
// Estimator.
func TestBudgetCountTokens(t *testing.T) {
	s := `{"results":[{"id":"日本語","n":12345}]}`
	for _, c := range []struct {
		name string
		b    Budget
		want int
	}{
		{"default: the Estimator", Budget{}, Estimator{}.CountTokens(s)},
		{"ClaudeCode: the Estimator", ClaudeCode(), Estimator{}.CountTokens(s)},
		{"4 characters a token", Budget100K(), 9}, // 35 characters
		{"a tokenizer with MaxTokens", Budget{MaxTokens: 100, Tokenizer: wordTokenizer{}}, wordCount(s)},
		{"a tokenizer without MaxTokens", Budget{Tokenizer: panicTokenizer{}}, Estimator{}.CountTokens(s)},
	} {
		if got := c.b.CountTokens(s); got != c.want {
			t.Errorf("%s: CountTokens = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestFitHoldsEstimatedTokens fits pages of CJK, emoji and code, which a
// flat characters-a-token rule lets far over their token limit: with the
// Estimator, the default budget holds it.
func TestFitHoldsEstimatedTokens(t *testing.T) {
	texts := []string{strings.Repeat("日本語のテキスト。", 30), strings.Repeat("👩‍👩‍👧 ", 40), strings.Repeat("if err != nil {\n\treturn err\n}\n", 20)}
	var items []doc
	for i := range 300 {
		items = append(items, doc{ID: i, Title: fmt.Sprintf("item %d", i), Content: texts[i%len(texts)]})
	}
	for _, b := range []Budget{{}, {MaxChars: 8000}, ClaudeCode(), {MaxChars: 100_000, MaxTokens: 3000}} {
		b.Logger = quiet
		in := FitInput[doc]{Page: pageOf(items, 0, 300, 1000), Call: searchCall}
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatal(err)
		}
		checkFitted(t, fmt.Sprintf("%+v", b), b, in, fd)
		checkMaximal(t, fmt.Sprintf("%+v", b), b, in, fd)
		if est := (Estimator{}).CountTokens(string(fd.JSON)); est > b.LimitTokens() || fd.Kept == len(items) {
			t.Errorf("budget %+v: %d tokens estimated, limit %d; kept %d", b, est, b.LimitTokens(), fd.Kept)
		}
		// The flat rule of the same budget lets far more tokens through.
		flat := b
		flat.CharsPerToken = DefaultCharsPerToken
		ff, err := Fit(flat, in)
		if err != nil {
			t.Fatal(err)
		}
		if est := (Estimator{}).CountTokens(string(ff.JSON)); b.MaxTokens == 0 && est <= b.LimitTokens() {
			t.Errorf("budget %+v at 2.8 characters a token: %d tokens estimated, within the limit %d: the test needs denser text", b, est, b.LimitTokens())
		}
	}
}

func BenchmarkEstimator(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, `{"id":"note-%06d","title":"Design note %d","content":"The quick brown fox jumps over the lazy dog; func f(x int) error {\n\treturn nil\n}","score":0.%d},`, i, i, i)
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Estimator{}.CountTokens(s)
	}
}

// BenchmarkEstimatorKinds estimates 200 KB or so of each kind of content:
// the tools' JSON, Markdown notes in several scripts (as JSON), English
// prose, Go source and CJK text.
func BenchmarkEstimatorKinds(b *testing.B) {
	_, in, budget := benchInput(400)
	fd, err := Fit(budget, in)
	if err != nil {
		b.Fatal(err)
	}
	notes, err := json.Marshal(benchNotes(160))
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []struct{ name, text string }{
		{"json", string(fd.JSON)},
		{"markdown", string(notes)},
		{"prose", strings.Repeat("The quick brown fox jumps over the lazy dog while an agent pages through search results. ", 2200)},
		{"code", strings.Repeat("func (f *fitter) appendTail(b []byte, s *shape) []byte {\n\tb = append(b, keyPagination...)\n}\n", 2200)},
		{"cjk", strings.Repeat("日本語のテキスト、会议记录。한국어 문장은 영어보다 ", 3000)},
	} {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(len(k.text)))
			for b.Loop() {
				Estimator{}.CountTokens(k.text)
			}
		})
	}
}

// TestFitTokenCutAtEveryItem fits a page of mixed text (English, CJK,
// emoji, code to escape) under token limits a few tokens apart, so that
// the cut falls after each item in turn, and at each one checks the
// response, that no longer prefix fits, and that the compiled encoder and
// encoding/json, whose items are read in other groups, write it alike.
func TestFitTokenCutAtEveryItem(t *testing.T) {
	type slow struct {
		doc
		M map[string]int `json:"m,omitempty"`
	}
	pieces := []string{"The quick brown fox ", "日本語のテキスト。", "👩‍👩‍👧 ", "if err != nil {\n\treturn \"err\"\n}\n", "Grüße, ", "x"}
	r := rand.New(rand.NewPCG(7, 8))
	const n = 40
	items := make([]doc, n)
	slows := make([]slow, n)
	for i := range items {
		var b strings.Builder
		for size := 20 + r.IntN(900); b.Len() < size; {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		items[i] = doc{ID: i, Title: fmt.Sprintf("item %d", i), Content: b.String(), Score: 1 - float64(i)/n}
		slows[i] = slow{doc: items[i]}
	}
	in := FitInput[doc]{Page: pageOf(items, 0, n, 200), Call: searchCall}
	inSlow := FitInput[slow]{Page: pageOf(slows, 0, n, 200), Call: searchCall}
	all, err := Fit(Budget{MaxChars: 1_000_000, Margin: 1}, in)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, n+1)
	for limit := 100; limit <= all.Truncation.EstimatedTokens; limit += 9 {
		b := Budget{MaxChars: 1_000_000, MaxTokens: limit, Margin: 1, Logger: quiet}
		fd, err := Fit(b, in)
		if errors.Is(err, ErrInvalidBudget) {
			continue // the envelope and a clipped first item do not fit
		}
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("limit %d", limit)
		checkFitted(t, name, b, in, fd)
		checkMaximal(t, name, b, in, fd)
		fs, err := Fit(b, inSlow)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fd.JSON, fs.JSON) {
			t.Fatalf("%s: the compiled encoder and encoding/json cut differently: %s", name, diffText(string(fs.JSON), string(fd.JSON)))
		}
		seen[fd.Kept] = true
	}
	for k := 1; k < n; k++ {
		if !seen[k] {
			t.Errorf("no limit kept %d items: the limits step over a cut", k)
		}
	}
}
