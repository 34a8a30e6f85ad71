package tokenizer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tokenizer"
)

var _ bounded.Tokenizer = (*tokenizer.Counter)(nil)

// counters returns the counters of both encodings, o200k_base first, built
// once for the whole test binary.
var counters = sync.OnceValues(func() ([]*tokenizer.Counter, error) {
	var out []*tokenizer.Counter
	for _, e := range tokenizer.Encodings {
		c, err := tokenizer.New(e)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
})

func mustCounters(t testing.TB) []*tokenizer.Counter {
	t.Helper()
	cs, err := counters()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestNew(t *testing.T) {
	for _, e := range []tokenizer.Encoding{tokenizer.O200K, tokenizer.CL100K} {
		c, err := tokenizer.New(e)
		if err != nil || c.Encoding() != e {
			t.Errorf("New(%q) = %v, %v", e, c, err)
		}
	}
	for _, e := range []tokenizer.Encoding{"", "p50k_base", "gpt2", "O200K_BASE"} {
		if c, err := tokenizer.New(e); err == nil || !strings.Contains(err.Error(), "unknown encoding") {
			t.Errorf("New(%q) = %v, %v; want an unknown-encoding error", e, c, err)
		}
	}
}

// TestCountTokens checks counts measured with js-tiktoken, an independent
// implementation over OpenAI's vocabularies (it agrees with Counter on every
// sample of testdata too), and that invalid UTF-8 is counted, not refused.
func TestCountTokens(t *testing.T) {
	cs := mustCounters(t)
	for _, c := range []struct {
		text          string
		o200k, cl100k int
	}{
		{"", 0, 0},
		{"hello world", 2, 2},
		{`{"results":[{"id":"note-000123","title":"Design note 12: fox dog","score":0.8571428571,"tags":["go","agents"]},{"id":2}],"pagination":{"total":350,"hasMore":true}}`, 53, 52},
		{"日本語のテキスト、会议记录。한국어 문장은 영어보다", 16, 25},
		{"func (f *fitter) appendTail(b []byte, s *shape) []byte {\n\tb = append(b, keyPagination...)\n}", 29, 29},
		{"<|endoftext|> is text here", 10, 10}, // special tokens are text
	} {
		for i, want := range []int{c.o200k, c.cl100k} {
			if got := cs[i].CountTokens(c.text); got != want {
				t.Errorf("%s: CountTokens(%.40q) = %d, want %d", cs[i].Encoding(), c.text, got, want)
			}
			if got, err := cs[i].Count(context.Background(), c.text); got != want || err != nil {
				t.Errorf("%s: Count(%.40q) = %d, %v; want %d", cs[i].Encoding(), c.text, got, err, want)
			}
		}
	}
	for _, c := range cs {
		if got := c.CountTokens("invalid \xff utf-8"); got < 4 || got > len("invalid \xff utf-8") {
			t.Errorf("%s: invalid UTF-8: %d tokens", c.Encoding(), got)
		}
	}
}

// TestCountTokensConcurrent counts from many goroutines at once (run with
// -race): a Counter is shared by every call of a tool.
func TestCountTokensConcurrent(t *testing.T) {
	cs := mustCounters(t)
	samples := testSamples(t)
	want := make([][]int, len(cs))
	for i, c := range cs {
		for _, s := range samples {
			want[i] = append(want[i], c.CountTokens(s.text))
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i, c := range cs {
				for j, s := range samples {
					if (j+g)%3 != 0 {
						continue
					}
					if got := c.CountTokens(s.text); got != want[i][j] {
						t.Errorf("%s: %s: %d tokens concurrently, %d alone", c.Encoding(), s.name, got, want[i][j])
					}
				}
			}
		})
	}
	wg.Wait()
}

// sample is one text of the test corpora.
type sample struct {
	kind, name, text string
}

// testSamples returns the samples of testdata: each JSON response of
// responses.jsonl, and the other files in pieces of about 1,000 bytes cut at
// line ends.
func testSamples(t testing.TB) []sample {
	t.Helper()
	var out []sample
	for _, f := range []struct{ file, kind string }{
		{"responses.jsonl", "JSON responses"},
		{"markdown.md", "Markdown notes"},
		{"prose.md", "English prose"},
		{"code.go.txt", "Go source"},
		{"cjk.txt", "CJK text"},
		{"scripts.txt", "other scripts"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.file, ".jsonl") {
			for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
				out = append(out, sample{f.kind, fmt.Sprintf("%s:%d", f.file, i+1), string(line)})
			}
			continue
		}
		text, part := string(data), 0
		for text != "" {
			end := min(len(text), 1000)
			if i := strings.IndexByte(text[end:], '\n'); end < len(text) && i >= 0 {
				end += i + 1
			} else if end < len(text) {
				end = len(text)
			}
			part++
			out = append(out, sample{f.kind, fmt.Sprintf("%s#%d", f.file, part), text[:end]})
			text = text[end:]
		}
	}
	return out
}

// Margins of the estimator on the test samples, by kind: it may count at
// most underBy fewer tokens than the larger exact count of a sample, and
// at most overBy more on a whole kind (an estimate made safe by counting
// everything twice would be of no use).
var margins = map[string]struct{ underBy, overBy float64 }{
	"JSON responses": {0.02, 0.15},
	"Markdown notes": {0.02, 0.15},
	"English prose":  {0.02, 0.15},
	"Go source":      {0.02, 0.15},
	"CJK text":       {0.02, 0.30},
	"other scripts":  {0.02, 0.40},
}

// TestEstimatorCalibration checks the Estimator against both exact
// encodings on the test samples: never under the larger exact count by
// more than the stated margin, and not far over it. The figures on the
// whole corpora are in BENCHMARKS.md (go run ./tokenizer/internal/measure
// -calibrate).
func TestEstimatorCalibration(t *testing.T) {
	cs := mustCounters(t)
	type total struct{ chars, est, exact, o200k, cl100k int }
	totals := map[string]*total{}
	for _, s := range testSamples(t) {
		o, c := cs[0].CountTokens(s.text), cs[1].CountTokens(s.text)
		est := bounded.Estimator{}.CountTokens(s.text)
		hi := max(o, c)
		m, ok := margins[s.kind]
		if !ok {
			t.Fatalf("no margin for %s", s.kind)
		}
		if float64(est) < (1-m.underBy)*float64(hi) {
			t.Errorf("%s: estimate %d, o200k %d, cl100k %d: under by %.1f%%, more than %.0f%%", s.name, est, o, c, 100*(1-float64(est)/float64(hi)), 100*m.underBy)
		}
		tt := totals[s.kind]
		if tt == nil {
			tt = &total{}
			totals[s.kind] = tt
		}
		tt.chars += len([]rune(s.text))
		tt.est += est
		tt.exact += hi
		tt.o200k += o
		tt.cl100k += c
	}
	kinds := make([]string, 0, len(totals))
	for k := range totals {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		tt := totals[k]
		ratio := float64(tt.est) / float64(tt.exact)
		t.Logf("%-15s %6d chars: %.2f chars/token o200k, %.2f cl100k, %.2f estimated; estimate/exact %.3f",
			k, tt.chars, float64(tt.chars)/float64(tt.o200k), float64(tt.chars)/float64(tt.cl100k), float64(tt.chars)/float64(tt.est), ratio)
		if ratio > 1+margins[k].overBy {
			t.Errorf("%s: the estimate is %.1f%% over the exact count, more than %.0f%%", k, 100*(ratio-1), 100*margins[k].overBy)
		}
	}
}

// testItems returns the results of the JSON samples, as raw JSON items of
// every kind: notes, note windows, entities, runs with multi-byte bodies,
// code chunks.
func testItems(t testing.TB) []json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var env struct{ Results []json.RawMessage }
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		items = append(items, env.Results...)
	}
	if len(items) < 40 {
		t.Fatalf("%d items in the samples, want at least 40", len(items))
	}
	return items
}

var quiet = slog.New(slog.DiscardHandler)

func fitInput(items []json.RawMessage) bounded.FitInput[json.RawMessage] {
	n := len(items) // the first page of n+100 results
	return bounded.FitInput[json.RawMessage]{
		Page: bounded.Paged[json.RawMessage]{Items: items, Page: bounded.PageInfo{Total: n + 100, Limit: n, Returned: n, HasMore: true, NextOffset: n}},
		Call: bounded.Call{Tool: "search_notes", Args: bounded.Args{{Name: "query", Value: "the"}}, DefaultLimit: 20},
	}
}

// TestFitHoldsTokensExactly fits pages of real results with each exact
// counter as the Tokenizer: the response, counted by that counter, holds
// LimitTokens to the token, and when results were cut, the next one would
// not have fit.
func TestFitHoldsTokensExactly(t *testing.T) {
	items := testItems(t)
	for _, c := range mustCounters(t) {
		for _, maxTokens := range []int{400, 700, 1000, 1500, 2500, 4000, 100_000} {
			for _, n := range []int{1, 5, len(items)} {
				name := fmt.Sprintf("%s, MaxTokens %d, %d items", c.Encoding(), maxTokens, n)
				b := bounded.Budget{MaxChars: 1_000_000, MaxTokens: maxTokens, Margin: 1, Tokenizer: c, Logger: quiet}
				fd, err := bounded.Fit(b, fitInput(items[:n]))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := c.CountTokens(string(fd.JSON))
				tr := fd.Truncation
				if got > maxTokens || tr.EstimatedTokens < got || tr.EstimatedTokens > maxTokens || tr.LimitTokens != maxTokens {
					t.Errorf("%s: %d tokens counted, %d reported, limit %d reported; want at most %d", name, got, tr.EstimatedTokens, tr.LimitTokens, maxTokens)
				}
				if tr.Reason == bounded.ReasonTokenLimit {
					next := c.CountTokens(string(items[fd.Kept]))
					if slack := maxTokens - got; slack > next+24 {
						t.Errorf("%s: kept %d, %d tokens left, but the next result takes only %d", name, fd.Kept, slack, next)
					}
				}
				if n == len(items) && maxTokens <= 2500 && fd.Kept == n {
					t.Errorf("%s: nothing cut", name)
				}
			}
		}
	}
}

// TestFitHoldsTokensEstimated fits the same pages without a Tokenizer: the
// Estimator counts, and the exact counts of the responses stay within the
// limit but for the Estimator's stated margin.
func TestFitHoldsTokensEstimated(t *testing.T) {
	items := testItems(t)
	cs := mustCounters(t)
	for _, b := range []bounded.Budget{
		{MaxChars: 1_000_000, MaxTokens: 700, Margin: 1},
		{MaxChars: 1_000_000, MaxTokens: 2000, Margin: 1},
		{MaxChars: 6000},
		bounded.ClaudeCode(),
	} {
		b.Logger = quiet
		for _, n := range []int{5, len(items)} {
			fd, err := bounded.Fit(b, fitInput(items[:n]))
			if err != nil {
				t.Fatal(err)
			}
			if est := (bounded.Estimator{}).CountTokens(string(fd.JSON)); est != fd.Truncation.EstimatedTokens || est > b.LimitTokens() {
				t.Errorf("budget %+v, %d items: the Estimator counts %d, the response says %d, limit %d", b, n, est, fd.Truncation.EstimatedTokens, b.LimitTokens())
			}
			for _, c := range cs {
				if got := c.CountTokens(string(fd.JSON)); float64(got)*0.98 > float64(b.LimitTokens()) {
					t.Errorf("budget %+v, %d items: %s counts %d tokens, over the limit %d by more than 2%%", b, n, c.Encoding(), got, b.LimitTokens())
				}
			}
		}
	}
}
