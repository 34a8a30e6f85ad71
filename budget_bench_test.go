package bounded

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// benchDoc is a realistic search result: an id, a title, a path, about 300
// characters of content, a score and a few tags.
type benchDoc struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Path    string   `json:"path"`
	Content string   `json:"content"`
	Score   float64  `json:"score"`
	Tags    []string `json:"tags"`
}

func benchDocs(n int) []benchDoc {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while an agent pages through search results and budgets its context window carefully")
	docs := make([]benchDoc, n)
	for i := range docs {
		var b strings.Builder
		for j := 0; b.Len() < 300; j++ {
			b.WriteString(words[(i+j)%len(words)])
			b.WriteByte(' ')
		}
		docs[i] = benchDoc{
			ID:      fmt.Sprintf("note-%06d", i),
			Title:   fmt.Sprintf("Design note %d: %s %s", i, words[i%len(words)], words[(i+3)%len(words)]),
			Path:    fmt.Sprintf("vault/projects/area-%02d/note-%06d.md", i%17, i),
			Content: b.String(),
			Score:   1 - float64(i)/float64(n+1),
			Tags:    []string{"go", words[i%len(words)], "agents"},
		}
	}
	return docs
}

var benchSizes = []int{10, 100, 1000}

// benchInput is a page of n docs, its call, and a budget large enough that
// nothing is cut, so that Fit keeps exactly the items json.Marshal encodes.
func benchInput(n int) ([]benchDoc, FitInput[benchDoc], Budget) {
	docs := benchDocs(n)
	req := driver.Request{Limit: n}
	in := FitInput[benchDoc]{
		Page: Paged[benchDoc]{Items: docs, Page: pageInfo(req, 5*n, n)},
		Call: Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: n},
	}
	return docs, in, Budget{MaxChars: 10_000_000}
}

// BenchmarkFit fits a page into a budget large enough that nothing is cut:
// it encodes the items BenchmarkMarshal does, plus the envelope (pagination,
// truncation report, hint, next call).
func BenchmarkFit(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, in, budget := benchInput(n)
			b.ReportAllocs()
			for b.Loop() {
				f, err := Fit(budget, in)
				if err != nil || f.Kept != n {
					b.Fatalf("Fit: kept %d of %d, %v", f.Kept, n, err)
				}
			}
		})
	}
}

// BenchmarkMarshal is the baseline: json.Marshal of the same items.
func BenchmarkMarshal(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			docs, _, _ := benchInput(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFitVsMarshal runs Fit and json.Marshal of the same items in a
// rotating order, so that all see the same load on a shared machine, and
// reports the ratio of their times as fit/marshal: Fit with the default
// budget, whose tokens the Estimator counts, raised to 10 million
// characters so that nothing is cut. It runs Fit with the same budget
// estimating tokens at a flat DefaultCharsPerToken too, and reports that
// ratio as flat/marshal. Each fixture runs at 10, 100 and 1,000 items:
// ascii, short English results; markdown, vault notes with accents, CJK
// and emoji; code, chunks of Go source; json, response bodies that are
// JSON themselves.
func BenchmarkFitVsMarshal(b *testing.B) {
	for _, fx := range benchFixtures {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/n=%d", fx.name, n), func(b *testing.B) {
				fx.vsMarshal(b, n)
			})
		}
	}
}

// benchFixture is a kind of result; vsMarshal runs fitVsMarshal on n of
// them, declinedVsMarshal on n of them of a type the compiled encoder
// declines.
type benchFixture struct {
	name                         string
	vsMarshal, declinedVsMarshal func(b *testing.B, n int)
}

var benchFixtures = []benchFixture{
	{"ascii",
		func(b *testing.B, n int) { vsMarshal(b, benchDocs(n)) },
		func(b *testing.B, n int) {
			vsMarshal(b, declined(b, benchDocs(n), func(v benchDoc) benchDocDeclined { return benchDocDeclined{benchDoc: v} }))
		}},
	{"markdown",
		func(b *testing.B, n int) { vsMarshal(b, benchNotes(n)) },
		func(b *testing.B, n int) {
			vsMarshal(b, declined(b, benchNotes(n), func(v benchNote) benchNoteDeclined { return benchNoteDeclined{benchNote: v} }))
		}},
	{"code",
		func(b *testing.B, n int) { vsMarshal(b, benchCode(b, n)) },
		func(b *testing.B, n int) {
			vsMarshal(b, declined(b, benchCode(b, n), func(v benchChunk) benchChunkDeclined { return benchChunkDeclined{benchChunk: v} }))
		}},
	{"json",
		func(b *testing.B, n int) { vsMarshal(b, benchRuns(n)) },
		func(b *testing.B, n int) {
			vsMarshal(b, declined(b, benchRuns(n), func(v benchRun) benchRunDeclined { return benchRunDeclined{benchRun: v} }))
		}},
}

// vsMarshal runs fitVsMarshal on items with a budget that cuts none.
func vsMarshal[T any](b *testing.B, items []T) {
	n := len(items)
	in := FitInput[T]{
		Page: Paged[T]{Items: items, Page: pageInfo(driver.Request{Limit: n}, 5*n, n)},
		Call: Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: n},
	}
	fitVsMarshal(b, items, in, Budget{MaxChars: 10_000_000})
}

// benchNote is a note as get_notes returns it (ports.NoteContent's
// shape; the root package's tests cannot import ports, which imports it):
// about 1,000 bytes of Markdown with front matter, in several languages.
type benchNote struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Tags      []string   `json:"tags,omitempty"`
	UpdatedAt time.Time  `json:"updatedAt"`
	Content   string     `json:"content"`
	Window    WindowInfo `json:"contentMetadata"`
}

// benchParagraphs are the notes' paragraphs: one character in seven is
// not ASCII (a third of the bytes).
var benchParagraphs = []string{
	"Réunion de l'équipe à Zürich : le café était froid, mais la décision est prise — on migre l'index vers Postgres avant la fin du trimestre.",
	"東京オフィスの会議メモ：検索結果のページングは次のカーソルで続ける。予算を超えたら結果の境界で切り、残りの件数をヒントに書く。",
	"Ship it 🚀 — the cursor walk passes on SQLite and Postgres 🎉; still open: 👩‍💻 a review by [[grace]] and the release notes ✍️.",
	"- [ ] Überprüfen: naïve Unicode handling in `Clip` (e\u0301 vs é), Straße vs STRASSE\n- [x] Größe der Antworten messen",
	"> \"Keep the front matter,\" said Ada. Paths like C:\\vault\\notes and tabs\tmust survive the round trip.",
	"## Nächste Schritte\n\n1. São Paulo team sync on Thursday\n2. Привет, мир: проверка кириллицы в заметках\n3. 서울 팀과 일정 조율",
	"Plain English: pagination keeps every tool response inside the agent's context budget, linking [[Home]] and [[projects/bounded]].",
}

func benchNotes(n int) []benchNote {
	notes := make([]benchNote, n)
	at := time.Date(2026, 2, 12, 9, 30, 0, 0, time.UTC)
	for i := range notes {
		title := fmt.Sprintf("Journal %d — Café & 会議 %d", i, i%7)
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ntags: [journal, équipe]\nupdated: %s\n---\n# %s\n\n", title, at.Format(time.RFC3339), title)
		lines := 6
		for j := 0; b.Len() < 900; j++ {
			b.WriteString(benchParagraphs[(i+j)%len(benchParagraphs)])
			b.WriteString("\n\n")
			lines += 2
		}
		notes[i] = benchNote{
			ID:        fmt.Sprintf("journal/2026-%02d-%02d.md", 1+i%12, 1+i%28),
			Title:     title,
			Tags:      []string{"journal", "équipe", "東京"},
			UpdatedAt: at.Add(time.Duration(i) * time.Hour),
			Content:   b.String(),
			Window:    WindowInfo{TotalLines: lines, ReturnedLines: lines},
		}
	}
	return notes
}

// benchChunk is a chunk of Go source as code search returns it.
type benchChunk struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Content   string  `json:"content"`
	Score     float64 `json:"score"`
}

// benchCode returns n chunks of 25 lines of Go source: encoding/json's,
// from GOROOT, read again from the start as often as needed.
func benchCode(b *testing.B, n int) []benchChunk {
	dir := filepath.Join(build.Default.GOROOT, "src", "encoding", "json")
	var chunks []benchChunk
	for len(chunks) < n {
		for _, name := range []string{"decode.go", "encode.go", "scanner.go", "stream.go"} {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				b.Skipf("Go source for the code fixture: %v", err)
			}
			lines := strings.SplitAfter(string(src), "\n")
			for start := 0; start < len(lines) && len(chunks) < n; start += 25 {
				end := min(start+25, len(lines))
				chunks = append(chunks, benchChunk{
					Path:      "encoding/json/" + name,
					StartLine: start + 1,
					EndLine:   end,
					Content:   strings.Join(lines[start:end], ""),
					Score:     1 - float64(len(chunks))/float64(n+1),
				})
			}
		}
	}
	return chunks
}

// benchRun is a recorded HTTP response as response history returns it
// (ports.RunView's shape): its body, about 1,200 bytes of indented JSON, has
// its quotes, newlines and escapes escaped again.
type benchRun struct {
	ID            string    `json:"id"`
	EndpointID    string    `json:"endpointId"`
	StartedAt     time.Time `json:"startedAt"`
	FinishedAt    time.Time `json:"finishedAt"`
	Status        string    `json:"status"`
	StatusCode    int       `json:"statusCode"`
	Body          string    `json:"body"`
	BodyChars     int       `json:"bodyChars"`
	BodyTruncated bool      `json:"bodyTruncated"`
}

func benchRuns(n int) []benchRun {
	type user struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		Email string   `json:"email"`
		URL   string   `json:"url"`
		Bio   string   `json:"bio"`
		Roles []string `json:"roles"`
	}
	runs := make([]benchRun, n)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range runs {
		var users []user
		for j := range 3 {
			id := i*3 + j
			users = append(users, user{
				ID:    id,
				Name:  fmt.Sprintf("User %d \"the %s\" O'Neil", id, []string{"first", "second", "third"}[j]),
				Email: fmt.Sprintf("user%d@example.com", id),
				URL:   fmt.Sprintf("https://api.example.com/v2/users/%d?expand=roles&fields=name,bio", id),
				Bio:   "Line one of the bio.\nLine two, with a <b>bold</b> claim\tand a tab.",
				Roles: []string{"reader", "writer"},
			})
		}
		body, _ := json.MarshalIndent(map[string]any{
			"data": users,
			"meta": map[string]any{"page": i, "next": fmt.Sprintf("/v2/users?page=%d", i+1), "total": 3000},
		}, "", "  ")
		runs[i] = benchRun{
			ID:         fmt.Sprintf("run-%06d", i),
			EndpointID: "users-api",
			StartedAt:  at.Add(time.Duration(i) * time.Minute),
			FinishedAt: at.Add(time.Duration(i)*time.Minute + 230*time.Millisecond),
			Status:     "ok",
			StatusCode: 200,
			Body:       string(body),
			BodyChars:  utf8.RuneCount(body),
		}
	}
	return runs
}

// fitVsMarshal reports fit/marshal and flat/marshal for in, whose items
// are docs: Fit with budget and with budget at a flat DefaultCharsPerToken,
// against json.Marshal(docs), run by rotating.
func fitVsMarshal[T any](b *testing.B, docs []T, in FitInput[T], budget Budget) {
	flat := budget
	flat.CharsPerToken = DefaultCharsPerToken
	took := rotating(b,
		func() error { _, err := Fit(budget, in); return err },
		func() error { _, err := json.Marshal(docs); return err },
		func() error { _, err := Fit(flat, in); return err },
	)
	b.ReportMetric(float64(took[0])/float64(took[1]), "fit/marshal")
	b.ReportMetric(float64(took[2])/float64(took[1]), "flat/marshal")
}

// BenchmarkFitEstimatorVsFlat runs Fit with the default budget, whose
// tokens the Estimator counts, and with the same budget estimating tokens
// at a flat DefaultCharsPerToken (no read of the items beyond their
// encoding), in a rotating order, and reports the ratio of their times as
// estimator/flat: the cost of holding the token limit on any content.
func BenchmarkFitEstimatorVsFlat(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, in, budget := benchInput(n)
			flat := budget
			flat.CharsPerToken = DefaultCharsPerToken
			took := rotating(b,
				func() error { _, err := Fit(budget, in); return err },
				func() error { _, err := Fit(flat, in); return err },
			)
			b.ReportMetric(float64(took[0])/float64(took[1]), "estimator/flat")
		})
	}
}

// The fixtures' types with a map field, always empty and omitted: the
// same JSON, but types Fit's compiled encoder declines, so that Fit encodes
// them with encoding/json.
type (
	benchDocDeclined struct {
		benchDoc
		Extra map[string]int `json:"extra,omitempty"`
	}
	benchNoteDeclined struct {
		benchNote
		Extra map[string]int `json:"extra,omitempty"`
	}
	benchChunkDeclined struct {
		benchChunk
		Extra map[string]int `json:"extra,omitempty"`
	}
	benchRunDeclined struct {
		benchRun
		Extra map[string]int `json:"extra,omitempty"`
	}
)

// BenchmarkFitDeclinedVsMarshal is BenchmarkFitVsMarshal for items of
// types the compiled encoder declines (encoding/json encodes them in Fit
// too): fit/marshal with the default budget, flat/marshal with a flat
// DefaultCharsPerToken, in a rotating order. Set beside
// BenchmarkFitVsMarshal, it shows what the compiled encoder saves.
func BenchmarkFitDeclinedVsMarshal(b *testing.B) {
	for _, fx := range benchFixtures {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/n=%d", fx.name, n), func(b *testing.B) {
				fx.declinedVsMarshal(b, n)
			})
		}
	}
}

// declined returns items wrapped by wrap, checking that Fit encodes the
// wrapped type with encoding/json.
func declined[T, D any](b *testing.B, items []T, wrap func(T) D) []D {
	if jsonenc.For(reflect.TypeFor[D]()) != nil {
		b.Fatalf("%v has a compiled encoder", reflect.TypeFor[D]())
	}
	out := make([]D, len(items))
	for i, it := range items {
		out[i] = wrap(it)
	}
	return out
}

// rotating runs each of run once an iteration of b's loop, in a rotating
// order, so that each follows each of the others as often: what one leaves
// behind (garbage to collect, caches filled) is charged to all alike. It
// returns the time each took in all.
func rotating(b *testing.B, run ...func() error) []time.Duration {
	took, _ := rotatingFastest(b, run...)
	return took
}

// rotatingFastest is rotating, also returning the fastest call of each,
// which the load of a shared machine moves less than the sums.
func rotatingFastest(b *testing.B, run ...func() error) (took, fastest []time.Duration) {
	took, fastest = make([]time.Duration, len(run)), make([]time.Duration, len(run))
	for i := 0; b.Loop(); i++ {
		for j := range run {
			k := (i + j) % len(run)
			t0 := time.Now()
			if err := run[k](); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			took[k] += d
			if fastest[k] == 0 || d < fastest[k] {
				fastest[k] = d
			}
		}
	}
	return took, fastest
}

// BenchmarkAppendJSONString writes the long strings of each fixture
// (contents, bodies) with jsonenc.AppendString and with encoding/json (an
// Encoder without HTML escaping, as Fit's other items are written), in a
// rotating order, and reports the ratio of their times as append/json.
func BenchmarkAppendJSONString(b *testing.B) {
	texts := map[string][]string{}
	for _, d := range benchDocs(100) {
		texts["ascii"] = append(texts["ascii"], d.Content)
	}
	for _, d := range benchNotes(100) {
		texts["markdown"] = append(texts["markdown"], d.Content)
	}
	for _, d := range benchCode(b, 100) {
		texts["code"] = append(texts["code"], d.Content)
	}
	for _, d := range benchRuns(100) {
		texts["json"] = append(texts["json"], d.Body)
	}
	for _, fx := range benchFixtures {
		b.Run(fx.name, func(b *testing.B) {
			var buf []byte
			var w bytes.Buffer
			enc := json.NewEncoder(&w)
			enc.SetEscapeHTML(false)
			took := rotating(b,
				func() error {
					for _, s := range texts[fx.name] {
						buf = jsonenc.AppendString(buf[:0], s)
					}
					return nil
				},
				func() error {
					for _, s := range texts[fx.name] {
						w.Reset()
						if err := enc.Encode(s); err != nil {
							return err
						}
					}
					return nil
				},
			)
			b.ReportMetric(float64(took[0])/float64(took[1]), "append/json")
		})
	}
}
