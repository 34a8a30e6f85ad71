package bounded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/deeptest"
)

// doc is the result type of most tests.
type doc struct {
	ID      int      `json:"id"`
	Title   string   `json:"title"`
	Content string   `json:"content,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Score   float64  `json:"score"`
}

// quiet is a logger that drops everything, for tests that do not look at
// the log.
var quiet = slog.New(slog.DiscardHandler)

// diffText describes where got and want first differ.
func diffText(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if i == len(got) && i == len(want) {
		return "no difference"
	}
	from := max(0, i-40)
	return fmt.Sprintf("first difference at byte %d: got ...%q... want ...%q...", i, got[from:min(len(got), i+40)], want[from:min(len(want), i+40)])
}

// docs returns n docs with contents of the given lengths in runes.
func docs(lengths ...int) []doc {
	out := make([]doc, len(lengths))
	for i, n := range lengths {
		out[i] = doc{ID: i, Title: fmt.Sprintf("doc %d", i), Content: strings.Repeat("x", n), Score: 1 - float64(i)/100}
	}
	return out
}

// pageOf builds the page of items at offset in a result set of total items.
func pageOf[T any](items []T, offset, limit, total int) Paged[T] {
	req := driver.Request{Limit: limit, Offset: offset}
	return Paged[T]{Items: items, Page: pageInfo(req, total, len(items))}
}

var searchCall = Call{Tool: "search", Args: Args{{"query", "auth"}}, DefaultLimit: 10}

// checkFitted checks what must hold for every fitted response: it is valid
// JSON, within both limits, its truncation report counts it exactly, and it
// is byte for byte the encoding of the Envelope it describes (when no item
// was clipped).
func checkFitted[T any](t *testing.T, name string, b Budget, in FitInput[T], fd Fitted) {
	t.Helper()
	if !json.Valid(fd.JSON) {
		t.Fatalf("%s: invalid JSON: %s", name, fd.JSON)
	}
	if fd.Truncation.Reason == ReasonBudgetTooSmall {
		checkTooSmall(t, name, b, in, fd)
		return
	}
	runes := utf8.RuneCount(fd.JSON)
	if runes > b.LimitChars() {
		t.Errorf("%s: %d characters, over LimitChars %d", name, runes, b.LimitChars())
	}
	tr := fd.Truncation
	if tr.EstimatedChars != runes {
		t.Errorf("%s: truncation.estimatedChars = %d, the JSON has %d characters", name, tr.EstimatedChars, runes)
	}
	if tr.EstimatedTokens > b.LimitTokens() {
		t.Errorf("%s: %d tokens, over LimitTokens %d", name, tr.EstimatedTokens, b.LimitTokens())
	}
	switch {
	case b.MaxTokens > 0 && b.Tokenizer != nil:
		if n := mustCount(t, b.Tokenizer, string(fd.JSON)); n > b.LimitTokens() {
			t.Errorf("%s: the tokenizer counts %d tokens, over LimitTokens %d", name, n, b.LimitTokens())
		}
	case b.CharsPerToken == 0:
		// The Estimator counts the tokens of the very response.
		if want := (Estimator{}).CountTokens(string(fd.JSON)); tr.EstimatedTokens != want {
			t.Errorf("%s: estimatedTokens = %d, the Estimator counts %d", name, tr.EstimatedTokens, want)
		}
	default:
		if want := b.withDefaults().estimateTokens(runes); tr.EstimatedTokens != want {
			t.Errorf("%s: estimatedTokens = %d, want ceil(%d/%v) = %d", name, tr.EstimatedTokens, runes, b.withDefaults().CharsPerToken, want)
		}
	}
	if tr.LimitChars != b.LimitChars() || tr.LimitTokens != b.LimitTokens() {
		t.Errorf("%s: limits reported %d chars, %d tokens; want %d, %d", name, tr.LimitChars, tr.LimitTokens, b.LimitChars(), b.LimitTokens())
	}
	n := len(in.Page.Items)
	if tr.OriginalCount != n || tr.ReturnedCount != fd.Kept || fd.Page.Returned != fd.Kept {
		t.Errorf("%s: counts original %d returned %d page.returned %d kept %d; want original %d", name, tr.OriginalCount, tr.ReturnedCount, fd.Page.Returned, fd.Kept, n)
	}
	wantPage := in.Page.Page.Cut(fd.Kept)
	if fd.Kept > 0 && fd.Kept < len(in.Page.Items) && in.Page.CursorAt != nil {
		// A cut continues by the cursor after the items kept.
		c, err := in.Page.CursorAt(fd.Kept)
		if err != nil {
			t.Fatalf("%s: CursorAt(%d): %v", name, fd.Kept, err)
		}
		wantPage.NextCursor = c
	}
	// A response that could not hold one result whole with them leaves
	// out the cursors its next call does not use.
	lean := wantPage
	lean.PrevCursor = ""
	if in.Call.Paging != ByCursor && !lean.AfterCursor {
		lean.NextCursor = ""
	}
	if fd.Kept <= 1 && reflect.DeepEqual(fd.Page, lean) {
		wantPage = lean
	}
	if !reflect.DeepEqual(fd.Page, wantPage) {
		t.Errorf("%s: page\ngot  %+v\nwant %+v", name, fd.Page, wantPage)
	}
	if want := in.Call.Hint(fd.Page, in.Hints); fd.Hint != want {
		t.Errorf("%s: hint\ngot  %q\nwant %q", name, fd.Hint, want)
	}
	// next is the whole next call, but for the caller's arguments it keeps.
	wantNext, _ := in.Call.Next(fd.Page)
	wantNext = slices.DeleteFunc(slices.Clone(wantNext), func(a Arg) bool {
		_, caller := in.Call.Args.Get(a.Name)
		return caller && slices.Contains(fd.NextKeeps, a.Name)
	})
	if len(wantNext) == 0 {
		wantNext = nil
	}
	if !reflect.DeepEqual(fd.Next, wantNext) {
		t.Errorf("%s: next\ngot  %v\nwant %v", name, fd.Next, wantNext)
	}
	for _, k := range fd.NextKeeps {
		if v, ok := in.Call.Args.Get(k); !ok || len(fmt.Sprint(v)) < 100 {
			t.Errorf("%s: nextKeeps %q, not a long argument of the call", name, k)
		}
	}
	cut := fd.Kept < n
	if tr.Reason != ReasonSingleResultTooLarge && cut != (tr.Reason == ReasonCharacterLimit || tr.Reason == ReasonTokenLimit) {
		t.Errorf("%s: kept %d of %d with reason %q", name, fd.Kept, n, tr.Reason)
	}
	if tr.Reason == ReasonSingleResultTooLarge {
		if fd.Kept != 1 || len(tr.ClippedFields) == 0 {
			t.Errorf("%s: clipped response keeps %d items, clipped fields %q", name, fd.Kept, tr.ClippedFields)
		}
		return
	}
	if len(tr.ClippedFields) != 0 {
		t.Errorf("%s: clipped fields %q without reason %s", name, tr.ClippedFields, ReasonSingleResultTooLarge)
	}
	env := Envelope[T]{
		Results:         in.Page.Items[:fd.Kept],
		Pagination:      &fd.Page,
		Truncated:       tr.Reason != "",
		Truncation:      &tr,
		Hint:            fd.Hint,
		Next:            fd.Next,
		NextKeeps:       fd.NextKeeps,
		ContentMetadata: in.Window,
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		t.Fatalf("%s: encoding the envelope: %v", name, err)
	}
	if got, want := string(fd.JSON), strings.TrimSuffix(want.String(), "\n"); got != want {
		t.Errorf("%s: JSON is not the envelope's encoding: %s\ngot  %s\nwant %s", name, diffText(got, want), got, want)
	}
}

// checkMaximal checks that no longer prefix than the one kept would have
// fit the character ceiling (without a Tokenizer), and with the Estimator
// the token limit too.
func checkMaximal[T any](t *testing.T, name string, b Budget, in FitInput[T], fd Fitted) {
	t.Helper()
	if fd.Truncation.Reason != ReasonCharacterLimit && fd.Truncation.Reason != ReasonTokenLimit {
		return
	}
	f, err := prepareFit(context.Background(), b, in)
	if err != nil {
		t.Fatal(err)
	}
	if f.M < f.N && !f.OverAt(f.M) {
		t.Errorf("%s: encoding stopped after %d of %d items, whose %d characters fit the ceiling %d (and tokens the limit %d)", name, f.M, f.N, f.ItemRunes(f.M), f.CharCap, f.LimitTokens)
	}
	if f.M > 1 && f.OverAt(f.M-1) {
		t.Errorf("%s: encoding went on to %d items after %d were over the budget", name, f.M, f.M-1)
	}
	for k := fd.Kept + 1; k <= f.M; k++ {
		reason := f.capReason
		if k == f.N {
			reason = ""
		}
		s, err := f.sizeOf(k, reason)
		if err != nil {
			t.Fatal(err)
		}
		if f.Est && s.chars <= f.CharCap && k < f.N && b.MaxTokens > 0 {
			// Keeping k items, cut by the token limit: the reason says so.
			if k+1 > f.M {
				// Not encoded: over the budget alone.
			} else if next, err := f.sizeOf(k+1, reason); err == nil && next.chars <= f.CharCap {
				if s, err = f.sizeOf(k, ReasonTokenLimit); err != nil {
					t.Fatal(err)
				}
			}
		}
		if f.fits(s) {
			t.Errorf("%s: kept %d items, but %d items fit too (%d characters, ceiling %d; %d tokens, limit %d)", name, fd.Kept, k, s.chars, f.CharCap, s.tokens, f.LimitTokens)
		}
	}
}

func TestBudgetLimits(t *testing.T) {
	tests := []struct {
		name        string
		b           Budget
		chars, toks int
	}{
		{"zero is the default", Budget{}, 45_000, 16_071},
		{"defaults spelled out", Budget{MaxChars: DefaultMaxChars, Margin: DefaultMargin, CharsPerToken: DefaultCharsPerToken}, 45_000, 16_071},
		{"Budget100K", Budget100K(), 80_000, 20_000},
		{"MaxTokens with margin", Budget{MaxTokens: 25_000}, 45_000, 22_500},
		{"MaxTokens with its own margin", Budget{MaxChars: 100_000, MaxTokens: 25_000, Margin: 0.8}, 80_000, 20_000},
		{"margin 1", Budget{MaxChars: 1000, Margin: 1, CharsPerToken: 4}, 1000, 250},
		{"decimal product rounds as written", Budget{MaxChars: 100, Margin: 0.29}, 29, 10},
		{"rounds down", Budget{MaxChars: 999, Margin: 0.5, CharsPerToken: 2}, 499, 249},
		{"invalid gives 0", Budget{MaxChars: -1}, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.b.LimitChars(); got != tt.chars {
			t.Errorf("%s: LimitChars() = %d, want %d", tt.name, got, tt.chars)
		}
		if got := tt.b.LimitTokens(); got != tt.toks {
			t.Errorf("%s: LimitTokens() = %d, want %d", tt.name, got, tt.toks)
		}
	}
}

// TestFitSilentWithoutLogger: a cut is logged only to a Budget's own
// Logger, never to slog's default.
func TestFitSilentWithoutLogger(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	items := make([]string, 100)
	for i := range items {
		items[i] = strings.Repeat("x", 100)
	}
	page := Paged[string]{Items: items, Page: PageInfo{Total: 100, Limit: 100, Returned: 100}}
	out, err := Fit(Budget{MaxChars: 2000, Margin: 1}, FitInput[string]{Page: page, Call: Call{Tool: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Truncation.Reason == "" {
		t.Fatalf("the page was not cut: %+v", out.Truncation)
	}
	if buf.Len() != 0 {
		t.Errorf("Fit without a Logger logged %q", buf.String())
	}
	var mine bytes.Buffer
	if _, err := Fit(Budget{MaxChars: 2000, Margin: 1, Logger: slog.New(slog.NewTextHandler(&mine, nil))}, FitInput[string]{Page: page, Call: Call{Tool: "t"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mine.String(), "response cut to fit budget") {
		t.Errorf("Fit with a Logger logged %q, want the cut", mine.String())
	}
}

func TestBudgetDefaults(t *testing.T) {
	got := Budget{}.withDefaults()
	if got.MaxChars != 50_000 || got.Margin != 0.9 || got.CharsPerToken != 2.8 || got.WarnAt != 0.7 || got.Logger != nil || got.MaxTokens != 0 {
		t.Errorf("defaults: got %+v, want MaxChars 50000, Margin 0.9, CharsPerToken 2.8, WarnAt 0.7, no Logger, MaxTokens 0", got)
	}
	if want := (Budget{MaxChars: 100_000, Margin: 0.8, CharsPerToken: 4}); !reflect.DeepEqual(Budget100K(), want) {
		t.Errorf("Budget100K() = %+v, want %+v", Budget100K(), want)
	}
	// The reason the default is not the note's: 80,000 characters of
	// compact JSON at 2.8 a token are over 25,000 tokens, the default's
	// 45,000 are not.
	if toks := (Budget{}).withDefaults().estimateTokens(Budget100K().LimitChars()); toks <= 25_000 {
		t.Errorf("80,000 characters estimate %d tokens, want over 25,000", toks)
	}
	if toks := (Budget{}).LimitTokens(); toks > 25_000 {
		t.Errorf("default LimitTokens %d, want at most 25,000", toks)
	}
}

func TestBudgetValidate(t *testing.T) {
	tests := []struct {
		name string
		b    Budget
		want string // "" for valid, else a substring of the error
	}{
		{"zero", Budget{}, ""},
		{"note", Budget100K(), ""},
		{"warn over 1", Budget{WarnAt: 2}, ""},
		{"negative chars", Budget{MaxChars: -1}, "MaxChars -1 is negative"},
		{"negative tokens", Budget{MaxTokens: -5}, "MaxTokens -5 is negative"},
		{"margin over 1", Budget{Margin: 1.5}, "Margin 1.5 is not in (0, 1]"},
		{"negative margin", Budget{Margin: -0.1}, "Margin -0.1"},
		{"NaN margin", Budget{Margin: math.NaN()}, "Margin NaN"},
		{"infinite chars per token", Budget{CharsPerToken: math.Inf(1)}, "CharsPerToken +Inf"},
		{"negative chars per token", Budget{CharsPerToken: -2}, "CharsPerToken -2"},
		{"negative warn", Budget{WarnAt: -1}, "WarnAt -1"},
		{"NaN warn", Budget{WarnAt: math.NaN()}, "WarnAt NaN"},
		{"no characters left", Budget{MaxChars: 1, Margin: 0.5}, "leaves 0 characters"},
		{"no tokens left", Budget{MaxChars: 100, CharsPerToken: 1000}, "leave 0 tokens"},
	}
	for _, tt := range tests {
		err := tt.b.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		case tt.want != "" && !errors.Is(err, ErrInvalidBudget):
			t.Errorf("%s: Validate() = %v, want ErrInvalidBudget", tt.name, err)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: Validate() = %q, want it to say %q", tt.name, err, tt.want)
		}
		if tt.want != "" {
			if _, err := Fit(tt.b, FitInput[doc]{}); !errors.Is(err, ErrInvalidBudget) {
				t.Errorf("%s: Fit error %v, want ErrInvalidBudget", tt.name, err)
			}
		}
	}
}

func TestFitCut(t *testing.T) {
	lengths := []int{300, 300, 300, 300, 300, 300, 300, 300, 300, 300}
	tests := []struct {
		name     string
		b        Budget
		page     Paged[doc]
		call     Call
		kept     int
		reason   string
		next     Args
		hintHas  string
		hintNone string
	}{
		{
			name: "nothing cut", b: Budget{MaxChars: 10_000},
			page: pageOf(docs(lengths...), 0, 10, 100), call: searchCall,
			kept: 10, next: Args{{"query", "auth"}, {"offset", 10}}, hintHas: "showing 1-10",
		},
		{
			name: "cut moves the next offset back", b: Budget{MaxChars: 2500},
			page: pageOf(docs(lengths...), 40, 10, 100), call: searchCall,
			kept: 5, reason: ReasonCharacterLimit, next: Args{{"query", "auth"}, {"offset", 45}},
			hintHas: `call search(query="auth", offset=45) for the next`,
		},
		{
			name: "cut of the last page makes HasMore true", b: Budget{MaxChars: 2500},
			page: pageOf(docs(lengths...), 90, 10, 100), call: searchCall,
			kept: 5, reason: ReasonCharacterLimit, next: Args{{"query", "auth"}, {"offset", 95}},
			hintHas: "offset=95",
		},
		{
			name: "last page not cut has no next", b: Budget{MaxChars: 10_000},
			page: pageOf(docs(lengths...), 90, 10, 100), call: searchCall,
			kept: 10, hintHas: "This is the last page.",
		},
		{
			name: "ByPage without a cut continues by page", b: Budget{MaxChars: 10_000},
			page: pageOf(docs(lengths...), 20, 10, 100), call: Call{Tool: "search", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: 10},
			kept: 10, next: Args{{"query", "auth"}, {"page", 3}}, hintHas: "page=3",
		},
		{
			name: "ByPage cut continues by offset, never page+1", b: Budget{MaxChars: 2500},
			page: pageOf(docs(lengths...), 20, 10, 100), call: Call{Tool: "search", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: 10},
			kept: 5, reason: ReasonCharacterLimit, next: Args{{"query", "auth"}, {"offset", 25}},
			hintHas: `call search(query="auth", offset=25)`, hintNone: "page=",
		},
		{
			name: "ByPage cut with a non-default size keeps pageSize", b: Budget{MaxChars: 2500},
			page: pageOf(docs(lengths...), 20, 10, 100), call: Call{Tool: "search", Paging: ByPage, DefaultLimit: 25},
			kept: 5, reason: ReasonCharacterLimit, next: Args{{"offset", 25}, {"pageSize", 10}},
			hintHas: `call search(offset=25, pageSize=10)`, hintNone: "page=",
		},
		{
			name: "token ceiling tighter than characters", b: Budget{MaxChars: 10_000, MaxTokens: 1000, Margin: 1},
			page: pageOf(docs(lengths...), 0, 10, 100), call: searchCall,
			kept: 6, reason: ReasonTokenLimit, next: Args{{"query", "auth"}, {"offset", 6}}, hintHas: "offset=6",
		},
	}
	for _, tt := range tests {
		tt.b.Logger = quiet
		in := FitInput[doc]{Page: tt.page, Call: tt.call}
		fd, err := Fit(tt.b, in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkFitted(t, tt.name, tt.b, in, fd)
		checkMaximal(t, tt.name, tt.b, in, fd)
		if fd.Kept != tt.kept || fd.Truncation.Reason != tt.reason {
			t.Errorf("%s: kept %d, reason %q; want %d, %q", tt.name, fd.Kept, fd.Truncation.Reason, tt.kept, tt.reason)
		}
		if want := tt.page.Page.Offset + tt.kept; tt.kept < len(tt.page.Items) && (!fd.Page.HasMore || fd.Page.NextOffset != want) {
			t.Errorf("%s: page %+v, want HasMore and NextOffset %d", tt.name, fd.Page, want)
		}
		if !reflect.DeepEqual(fd.Next, tt.next) {
			t.Errorf("%s: next\ngot  %v\nwant %v", tt.name, fd.Next, tt.next)
		}
		if !strings.Contains(fd.Hint, tt.hintHas) || (tt.hintNone != "" && strings.Contains(fd.Hint, tt.hintNone)) {
			t.Errorf("%s: hint %q, want it to contain %q and not %q", tt.name, fd.Hint, tt.hintHas, tt.hintNone)
		}
		if fd.Truncation.Reason != "" && !bytes.Contains(fd.JSON, []byte(`"truncated":true`)) {
			t.Errorf("%s: cut response does not say truncated: %s", tt.name, fd.JSON)
		}
	}
}

// TestFitCursor checks the documented fallback of cursor tools: a cut drops
// the page's cursor, which pointed past the cut items, and the next call
// continues by offset.
func TestFitCursor(t *testing.T) {
	call := Call{Tool: "history", Paging: ByCursor, DefaultLimit: 10}
	page := pageOf(docs(300, 300, 300, 300, 300, 300, 300, 300, 300, 300), 0, 10, 100)
	page.Page.NextCursor = "c10"
	for _, tt := range []struct {
		name     string
		maxChars int
		next     Args
	}{
		{"no cut follows the cursor", 10_000, Args{{"cursor", "c10"}}},
		{"cut continues by offset", 2500, Args{{"offset", 5}}},
	} {
		b := Budget{MaxChars: tt.maxChars, Logger: quiet}
		in := FitInput[doc]{Page: page, Call: call}
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checkFitted(t, tt.name, b, in, fd)
		if !reflect.DeepEqual(fd.Next, tt.next) {
			t.Errorf("%s: next\ngot  %v\nwant %v", tt.name, fd.Next, tt.next)
		}
	}
}

func TestFitEmptyPage(t *testing.T) {
	for _, items := range [][]doc{nil, {}} {
		in := FitInput[doc]{Page: pageOf(items, 0, 10, 0), Call: searchCall}
		for _, tt := range []struct {
			b    Budget
			want string
		}{
			// Tokens estimated by the Estimator, the default.
			{Budget{}, `"estimatedChars":281,"limitChars":45000,"estimatedTokens":86,"limitTokens":16071}`},
			// Tokens estimated at a fixed 2.8 characters each.
			{Budget{CharsPerToken: DefaultCharsPerToken}, `"estimatedChars":282,"limitChars":45000,"estimatedTokens":101,"limitTokens":16071}`},
		} {
			b := tt.b
			b.Logger = quiet
			fd, err := Fit(b, in)
			if err != nil {
				t.Fatal(err)
			}
			checkFitted(t, "empty", tt.b, in, fd)
			want := `{"results":[],"pagination":{"total":0,"totalKind":"exact","limit":10,"offset":0,"returned":0,"hasMore":false},"truncated":false,` +
				`"truncation":{"originalCount":0,"returnedCount":0,` + tt.want + `,"hint":"No results."}`
			if got := string(fd.JSON); got != want {
				t.Errorf("empty page: %s\ngot  %s\nwant %s", diffText(got, want), got, want)
			}
		}
	}
}

func TestFitWindow(t *testing.T) {
	w := &WindowInfo{TotalLines: 10_000, ReturnedLines: 500, Truncated: true, NextOffset: 500}
	page := pageOf(docs(400, 400), 0, 10, 2)
	// A budget that just holds both items without the window.
	whole, err := Fit(Budget{Logger: quiet}, FitInput[doc]{Page: page, Call: searchCall})
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{MaxChars: whole.Truncation.EstimatedChars, Margin: 1, Logger: quiet}
	for _, tt := range []struct {
		name   string
		window *WindowInfo
		kept   int
	}{
		{"without window", nil, 2},
		{"with window", w, 1},
	} {
		in := FitInput[doc]{Page: page, Call: searchCall, Window: tt.window}
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatal(err)
		}
		checkFitted(t, tt.name, b, in, fd)
		checkMaximal(t, tt.name, b, in, fd)
		if fd.Kept != tt.kept {
			t.Errorf("%s: kept %d, want %d: the window's metadata counts against the budget", tt.name, fd.Kept, tt.kept)
		}
		const meta = `,"contentMetadata":{"totalLines":10000,"returnedLines":500,"offset":0,"isTruncated":true,"nextOffset":500}}`
		if got := bytes.HasSuffix(fd.JSON, []byte(meta)); got != (tt.window != nil) {
			t.Errorf("%s: contentMetadata present %v, want %v: %s", tt.name, got, tt.window != nil, fd.JSON)
		}
	}
}

// TestFitRunesNotBytes fits items whose characters are several bytes each:
// the budget counts characters, so more of them fit than bytes would allow.
func TestFitRunesNotBytes(t *testing.T) {
	texts := []string{
		strings.Repeat("日本語のテキスト。", 40),
		strings.Repeat("👩‍👩‍👧‍👦🇫🇷é", 30),
		strings.Repeat("Ελληνικά кириллица ", 20),
		strings.Repeat("<a href=\"x\">&amp;</a>", 20), // not HTML-escaped: 1 character each
		strings.Repeat("\x01\t", 50),                  // control characters count as their escapes
		"invalid \xff\xfe utf-8",                      // written as \ufffd
	}
	var items []doc
	for i := range 12 {
		items = append(items, doc{ID: i, Title: "多言語", Content: texts[i%len(texts)]})
	}
	for _, maxChars := range []int{1500, 2000, 3000, 5000, 20_000} {
		for _, cpt := range []float64{0, DefaultCharsPerToken} {
			name := fmt.Sprintf("MaxChars %d, CharsPerToken %v", maxChars, cpt)
			b := Budget{MaxChars: maxChars, CharsPerToken: cpt, Logger: quiet}
			in := FitInput[doc]{Page: pageOf(items, 0, 12, 12), Call: Call{Tool: "検索", Args: Args{{"query", "東京 <tower>"}}}}
			fd, err := Fit(b, in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkFitted(t, name, b, in, fd)
			checkMaximal(t, name, b, in, fd)
			// With the Estimator, the token limit cuts these texts first:
			// multi-byte characters are a token or more each.
			if maxChars == 3000 && cpt != 0 && len(fd.JSON) <= b.LimitChars() {
				t.Errorf("%s: %d bytes, want more bytes than the %d-character limit: the test must have multi-byte characters", name, len(fd.JSON), b.LimitChars())
			}
			if bytes.Contains(fd.JSON, []byte(`\u003c`)) {
				t.Errorf("%s: HTML escaped: %s", name, fd.JSON)
			}
		}
	}
}

// wordTokenizer is a stand-in for a real tokenizer: one token per run of
// letters or digits, one per other non-space rune (JSON's punctuation is
// mostly tokens of its own).
type wordTokenizer struct{}

func (wordTokenizer) Count(_ context.Context, s string) (int, error) { return wordCount(s), nil }

// wordCount is wordTokenizer's count of s.
func wordCount(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				n++
			}
			inWord = true
		case unicode.IsSpace(r):
			inWord = false
		default:
			n++
			inWord = false
		}
	}
	return n
}

// panicTokenizer fails a test that calls it.
type panicTokenizer struct{}

func (panicTokenizer) Count(context.Context, string) (int, error) {
	panic("Tokenizer called without MaxTokens")
}

// mustCount is tok's count of s; an error fails the test.
func mustCount(t testing.TB, tok Tokenizer, s string) int {
	t.Helper()
	n, err := tok.Count(context.Background(), s)
	if err != nil {
		t.Fatalf("counting tokens: %v", err)
	}
	return n
}

// tokenizerPages returns a page of 30 results of growing length, and the
// same page with a first result far over the token limits of the tests.
func tokenizerPages() (items, bigFirst []doc) {
	for i := range 30 {
		items = append(items, doc{ID: i, Title: "t", Content: strings.Repeat("a b, ", 10+i*3), Tags: []string{"x", "y"}})
	}
	bigFirst = slices.Clone(items)
	bigFirst[0].Content = strings.Repeat("many small words ", 500)
	return items, bigFirst
}

func TestFitTokenizer(t *testing.T) {
	items, bigFirst := tokenizerPages()
	tok := wordTokenizer{}
	tests := []struct {
		name   string
		items  []doc
		b      Budget
		reason string
	}{
		{"tokens bind", items, Budget{MaxChars: 100_000, MaxTokens: 1500, Tokenizer: tok}, ReasonTokenLimit},
		{"tight tokens", items, Budget{MaxChars: 100_000, MaxTokens: 400, Tokenizer: tok}, ReasonTokenLimit},
		{"characters bind", items, Budget{MaxChars: 2000, MaxTokens: 100_000, Tokenizer: tok}, ReasonCharacterLimit},
		{"nothing cut", items, Budget{MaxChars: 100_000, MaxTokens: 100_000, Tokenizer: tok}, ""},
		{"first item clipped", bigFirst, Budget{MaxChars: 100_000, MaxTokens: 600, Tokenizer: tok}, ReasonSingleResultTooLarge},
		// The token limit derived from the characters binds: it is named.
		{"tokenizer unused without MaxTokens", items, Budget{MaxChars: 2000, Tokenizer: panicTokenizer{}}, ReasonTokenLimit},
	}
	for _, tt := range tests {
		tt.b.Logger = quiet
		in := FitInput[doc]{Page: pageOf(tt.items, 0, 30, 30), Call: searchCall}
		fd, err := Fit(tt.b, in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkFitted(t, tt.name, tt.b, in, fd)
		if fd.Truncation.Reason != tt.reason {
			t.Errorf("%s: reason %q, want %q (kept %d)", tt.name, fd.Truncation.Reason, tt.reason, fd.Kept)
		}
		if tt.b.MaxTokens == 0 {
			continue
		}
		got := wordCount(string(fd.JSON))
		if fd.Truncation.EstimatedTokens != got {
			t.Errorf("%s: estimatedTokens %d, the tokenizer counts %d", tt.name, fd.Truncation.EstimatedTokens, got)
		}
		if tt.reason == ReasonSingleResultTooLarge && got < tt.b.LimitTokens()*8/10 {
			t.Errorf("%s: clipped to %d tokens of %d: clipped too much", tt.name, got, tt.b.LimitTokens())
		}
		if fd.Kept > 1 && fd.Kept < len(tt.items) {
			// One more item would have been over a limit.
			more, err := Fit(Budget{MaxChars: 1 << 30, Logger: quiet}, FitInput[doc]{Page: pageOf(tt.items[:fd.Kept+1], 0, 30, 30), Call: searchCall})
			if err != nil {
				t.Fatal(err)
			}
			if wordCount(string(more.JSON)) <= tt.b.LimitTokens() && utf8.RuneCount(more.JSON) <= tt.b.LimitChars() {
				t.Errorf("%s: kept %d items, but %d fit (%d tokens of %d)", tt.name, fd.Kept, fd.Kept+1, wordCount(string(more.JSON)), tt.b.LimitTokens())
			}
		}
	}
}

func TestFitSingleResultTooLarge(t *testing.T) {
	type meta struct {
		Author string `json:"author"`
		Dotted string `json:"a.b"`
	}
	type big struct {
		ID           int      `json:"id"`
		Title        string   `json:"title"`
		Content      string   `json:"content"`
		Observations []string `json:"observations"`
		Meta         meta     `json:"meta"`
	}
	content := strings.Repeat("lorem ipsum 日本 ", 8000) // 120,000 characters
	item := big{
		ID: 7, Title: "short title", Content: content,
		Observations: []string{"ok", "fine", strings.Repeat("o", 5000), "x"},
		Meta:         meta{Author: strings.Repeat("a", 3000), Dotted: strings.Repeat("d", 2000)},
	}
	others := []big{item, {ID: 8, Title: "next"}, {ID: 9, Title: "last"}}
	tests := []struct {
		name     string
		items    []big
		maxChars int
		clipped  []string
	}{
		{"first of three", others, 4000, []string{"content", "observations[2]", "meta.author", `meta["a.b"]`}},
		{"only one", others[:1], 4000, []string{"content", "observations[2]", "meta.author", `meta["a.b"]`}},
		{"room for the small strings", others[:1], 20_000, []string{"content"}},
	}
	for _, tt := range tests {
		b := Budget{MaxChars: tt.maxChars, Logger: quiet}
		in := FitInput[big]{Page: pageOf(tt.items, 30, 10, 33), Call: searchCall}
		before := fmt.Sprintf("%+v", in)
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checkFitted(t, tt.name, b, in, fd)
		if after := fmt.Sprintf("%+v", in); after != before {
			t.Errorf("%s: Fit modified its input", tt.name)
		}
		tr := fd.Truncation
		if tr.Reason != ReasonSingleResultTooLarge || fd.Kept != 1 || !slices.Equal(tr.ClippedFields, tt.clipped) {
			t.Errorf("%s: reason %q, kept %d, clipped %q; want %q, 1, %q", tt.name, tr.Reason, fd.Kept, tr.ClippedFields, ReasonSingleResultTooLarge, tt.clipped)
		}
		// The next page starts after the clipped item.
		wantPage := in.Page.Page.Cut(1)
		if !reflect.DeepEqual(fd.Page, wantPage) || (len(tt.items) > 1 && fd.Page.NextOffset != 31) {
			t.Errorf("%s: page %+v, want %+v with NextOffset 31", tt.name, fd.Page, wantPage)
		}
		var env struct{ Results []big }
		if err := json.Unmarshal(fd.JSON, &env); err != nil || len(env.Results) != 1 {
			t.Fatalf("%s: %v, %d results", tt.name, err, len(env.Results))
		}
		got := env.Results[0]
		if got.ID != 7 || got.Title != "short title" || got.Observations[0] != "ok" || got.Observations[3] != "x" {
			t.Errorf("%s: short fields changed: %+v", tt.name, got)
		}
		// Every clipped string is a prefix of the original and a marker
		// that counts the removed characters.
		for _, c := range []struct{ got, orig string }{
			{got.Content, item.Content}, {got.Observations[2], item.Observations[2]},
			{got.Meta.Author, item.Meta.Author}, {got.Meta.Dotted, item.Meta.Dotted},
		} {
			if c.got == c.orig {
				continue
			}
			i := strings.LastIndex(c.got, "…")
			if i < 0 || !strings.HasPrefix(c.orig, c.got[:i]) {
				t.Errorf("%s: clipped %.40q... is not a prefix and a marker", tt.name, c.got)
				continue
			}
			if c.got == "…" {
				continue
			}
			removed := utf8.RuneCountInString(c.orig) - utf8.RuneCountInString(c.got[:i])
			if want := "…[truncated " + FormatCount(removed) + " chars]"; c.got[i:] != want {
				t.Errorf("%s: marker %q, want %q", tt.name, c.got[i:], want)
			}
		}
		// The long strings are clipped to one level, and the response
		// uses most of the budget.
		var lengths []int
		for _, s := range []string{got.Content, got.Observations[2], got.Meta.Author, got.Meta.Dotted} {
			if strings.Contains(s, "[truncated ") {
				lengths = append(lengths, utf8.RuneCountInString(s))
			}
		}
		if len(lengths) != len(tt.clipped) || slices.Max(lengths)-slices.Min(lengths) > 2 {
			t.Errorf("%s: clipped strings have %d characters, want %d strings of about the same length", tt.name, lengths, len(tt.clipped))
		}
		if tr.EstimatedChars < tr.LimitChars*9/10 {
			t.Errorf("%s: clipped to %d characters of %d: clipped too much", tt.name, tr.EstimatedChars, tr.LimitChars)
		}
	}
}

func TestFitClipPaths(t *testing.T) {
	long := strings.Repeat("z", 3000)
	tests := []struct {
		name string
		item any
		want []string
	}{
		{"a string", long, []string{"$"}},
		{"an array", []any{1, long, true, nil, []string{long}}, []string{"[1]", "[4][0]"}},
		{"a map", map[string]any{"z": long, "a": map[string]string{"k-1": long}}, []string{`a["k-1"]`, "z"}},
	}
	for _, tt := range tests {
		b := Budget{MaxChars: 1500, Logger: quiet}
		in := FitInput[any]{Page: pageOf([]any{tt.item}, 0, 10, 1), Call: searchCall}
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checkFitted(t, tt.name, b, in, fd)
		if got := fd.Truncation.ClippedFields; !slices.Equal(got, tt.want) {
			t.Errorf("%s: clipped %q, want %q", tt.name, got, tt.want)
		}
	}
	// Numbers, booleans, null and key order survive the clip as written.
	in := FitInput[json.RawMessage]{Page: pageOf([]json.RawMessage{json.RawMessage(`{"z":1.50,"a":[true,null,-0,1e400],"s":"` + long + `"}`)}, 0, 10, 1)}
	fd, err := Fit(Budget{MaxChars: 1000, Logger: quiet}, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(fd.JSON, []byte(`{"results":[{"z":1.50,"a":[true,null,-0,1e400],"s":"zzz`)) {
		t.Errorf("clipped item re-encoded differently: %.120s", fd.JSON)
	}
}

func TestFitTooSmall(t *testing.T) {
	many := make([]string, 2000)
	for i := range many {
		many[i] = "ab"
	}
	tests := []struct {
		name string
		fit  func() error
	}{
		{"envelope alone", func() error {
			_, err := Fit(Budget{MaxChars: 150, Logger: quiet}, FitInput[doc]{Page: pageOf([]doc{}, 0, 10, 0), Call: searchCall})
			return err
		}},
		{"envelope with an item", func() error {
			_, err := Fit(Budget{MaxChars: 150, Logger: quiet}, FitInput[doc]{Page: pageOf(docs(10), 0, 10, 1), Call: searchCall})
			return err
		}},
		{"token ceiling", func() error {
			_, err := Fit(Budget{MaxTokens: 20, Tokenizer: wordTokenizer{}, Logger: quiet}, FitInput[doc]{Page: pageOf([]doc{}, 0, 10, 0), Call: searchCall})
			return err
		}},
	}
	for _, tt := range tests {
		if err := tt.fit(); !errors.Is(err, ErrInvalidBudget) || !strings.Contains(err.Error(), "needs") {
			t.Errorf("%s: error %v, want ErrInvalidBudget saying what the envelope needs", tt.name, err)
		}
	}
	// An item whose structure alone is over the budget: no error, but a
	// response without it that says what it needs.
	in := FitInput[[]string]{Page: pageOf([][]string{many}, 0, 10, 1), Call: searchCall}
	fd, err := Fit(Budget{MaxChars: 2000, Logger: quiet}, in)
	if err != nil || fd.Truncation.Reason != ReasonBudgetTooSmall {
		t.Fatalf("structure of one item: %v, reason %q; want %q", err, fd.Truncation.Reason, ReasonBudgetTooSmall)
	}
	checkTooSmall(t, "structure of one item", Budget{MaxChars: 2000}, in, fd)
}

func TestFitInputErrors(t *testing.T) {
	byScore := func(d doc) float64 { return d.Score }
	ordered := docs(10, 10, 10)
	ordered[0].Score, ordered[1].Score, ordered[2].Score = 0.9, 0.9, 0.1
	swapped := slices.Clone(ordered)
	swapped[0], swapped[2] = swapped[2], swapped[0]
	withNaN := slices.Clone(ordered)
	withNaN[1].Score = math.NaN()
	mismatch := pageOf(docs(10, 10), 0, 10, 2)
	mismatch.Page.Returned = 1
	tests := []struct {
		name string
		in   FitInput[doc]
		want error
	}{
		{"ordered with ties", FitInput[doc]{Page: pageOf(ordered, 0, 10, 3), Relevance: byScore}, nil},
		{"out of order", FitInput[doc]{Page: pageOf(swapped, 0, 10, 3), Relevance: byScore}, ErrUnordered},
		{"NaN score", FitInput[doc]{Page: pageOf(withNaN, 0, 10, 3), Relevance: byScore}, ErrUnordered},
		{"returned is not the item count", FitInput[doc]{Page: mismatch}, ErrInvalidPage},
	}
	for _, tt := range tests {
		_, err := Fit(Budget{Logger: quiet}, tt.in)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
	}
	_, err := Fit(Budget{Logger: quiet}, FitInput[float64]{Page: pageOf([]float64{1, math.Inf(1)}, 0, 10, 2)})
	var unsupported *json.UnsupportedValueError
	if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "result 1") {
		t.Errorf("unencodable item: error %v, want a json.UnsupportedValueError naming result 1", err)
	}
}

func TestFitLogs(t *testing.T) {
	items := docs(300, 300, 300, 300, 300, 300, 300, 300, 300, 300)
	tests := []struct {
		name   string
		b      Budget
		msg    string
		reason string
	}{
		{"cut", Budget{MaxChars: 2500}, "bounded: response cut to fit budget", ReasonCharacterLimit},
		{"near", Budget{MaxChars: 5000, WarnAt: 0.6}, "bounded: response near budget", ""},
		{"under", Budget{MaxChars: 5000, WarnAt: 0.9}, "", ""},
		{"near by default", Budget{MaxChars: 5500}, "bounded: response near budget", ""},
		{"warn over 1 logs cuts only", Budget{MaxChars: 4500, WarnAt: 1.5}, "", ""},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		tt.b.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey && len(groups) == 0 {
					return slog.Attr{}
				}
				return a
			},
		}))
		fd, err := Fit(tt.b, FitInput[doc]{Page: pageOf(items, 0, 10, 10), Call: searchCall})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := ""
		if tt.msg != "" {
			tr := fd.Truncation
			want = fmt.Sprintf("level=WARN msg=%q tool=search kept=%d original=10 chars=%d limitChars=%d tokens=%d limitTokens=%d reason=%s\n",
				tt.msg, fd.Kept, tr.EstimatedChars, tr.LimitChars, tr.EstimatedTokens, tr.LimitTokens, cmpOr(tt.reason, `""`))
		}
		if got := buf.String(); got != want {
			t.Errorf("%s: log\ngot  %q\nwant %q", tt.name, got, want)
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestFitDoesNotModifyInput(t *testing.T) {
	items := []doc{{ID: 1, Title: "a", Content: strings.Repeat("x", 4000), Tags: []string{strings.Repeat("t", 3000)}}, {ID: 2, Title: "b"}}
	want := []doc{{ID: 1, Title: "a", Content: strings.Repeat("x", 4000), Tags: []string{strings.Repeat("t", 3000)}}, {ID: 2, Title: "b"}}
	page := pageOf(items, 0, 10, 2)
	wantPage := page.Page
	for _, maxChars := range []int{100_000, 2000} {
		fd, err := Fit(Budget{MaxChars: maxChars, Logger: quiet}, FitInput[doc]{Page: page, Call: searchCall})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(items, want) || !reflect.DeepEqual(page.Page, wantPage) {
			t.Errorf("MaxChars %d: input modified: %+v", maxChars, page.Page)
		}
		// The result does not share memory with a later Fit.
		saved := string(fd.JSON)
		if _, err := Fit(Budget{MaxChars: maxChars, Logger: quiet}, FitInput[doc]{Page: page, Call: searchCall}); err != nil {
			t.Fatal(err)
		}
		if string(fd.JSON) != saved {
			t.Errorf("MaxChars %d: a later Fit changed an earlier result", maxChars)
		}
	}
}

// pageFromArgs reads the pagination arguments of a call as Call.Next
// writes them, as a tool handler would.
func pageFromArgs(l Limits, args Args) (Page, error) {
	get := func(name string) (int, bool) {
		v, ok := args.Get(name)
		if !ok {
			return 0, false
		}
		return v.(int), true
	}
	size, ok := get("limit")
	if !ok {
		size, _ = get("pageSize")
	}
	if off, ok := get("offset"); ok {
		return Page{Limit: size, Offset: off}, nil
	}
	if pg, ok := get("page"); ok {
		return l.FromPageNumber(pg, size)
	}
	return Page{Limit: size}, nil
}

// serve is a tool over data: it reads the page from args, slices it and
// fits it into b.
func serve[T any](data []T, l Limits, call Call, style HintStyle, b Budget, args Args) (FitInput[T], Fitted, error) {
	p, err := pageFromArgs(l, args)
	if err != nil {
		return FitInput[T]{}, Fitted{}, err
	}
	req, err := l.Normalize(p)
	if err != nil {
		return FitInput[T]{}, Fitted{}, err
	}
	lo := min(req.Offset, len(data))
	hi := min(req.Offset+req.Limit, len(data))
	in := FitInput[T]{Page: Paged[T]{Items: data[lo:hi], Page: pageInfo(req, len(data), hi-lo)}, Call: call, Hints: style}
	fd, err := Fit(b, in)
	return in, fd, err
}

// walk follows Fitted.Next from the first page to the last and returns the
// ids of the results in the order the responses held them.
func walk(t *testing.T, name string, data []doc, l Limits, call Call, style HintStyle, b Budget, maximal bool) []int {
	t.Helper()
	var ids []int
	args := call.Args
	for calls := 0; ; calls++ {
		if calls > len(data)+1 {
			t.Fatalf("%s: %d calls for %d items: not advancing", name, calls, len(data))
		}
		in, fd, err := serve(data, l, call, style, b, args)
		if err != nil {
			t.Fatalf("%s: call %v: %v", name, args, err)
		}
		checkFitted(t, name, b, in, fd)
		if maximal {
			checkMaximal(t, name, b, in, fd)
		}
		var env struct{ Results []struct{ ID int } }
		if err := json.Unmarshal(fd.JSON, &env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range env.Results {
			ids = append(ids, r.ID)
		}
		if len(in.Page.Items) > 0 && fd.Kept == 0 {
			t.Fatalf("%s: call %v returned nothing of a non-empty page", name, args)
		}
		if fd.Next == nil {
			if fd.Page.HasMore {
				t.Fatalf("%s: HasMore without a next call", name)
			}
			return ids
		}
		args = fd.Next
	}
}

// TestFitWalk walks 1,000 items of random sizes through Fit page by page,
// following Fitted.Next as an agent would, for several budgets, page sizes
// and paging styles: every item comes back exactly once, in order. Under
// the race detector it walks 100 items, 250 in the deep run (deeptest).
func TestFitWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghij klmnopqrstuvwxyz 日本語 é 👍 \"<>&\n")
	count := 1000
	if raceEnabled {
		count = deeptest.Size(100, 250)
	}
	data := make([]doc, count)
	for i := range data {
		n := rng.IntN(1200)
		if rng.IntN(50) == 0 {
			n = 5000 + rng.IntN(20_000) // larger than the small budgets
		}
		r := make([]rune, n)
		for j := range r {
			r[j] = alphabet[rng.IntN(len(alphabet))]
		}
		data[i] = doc{ID: i, Title: fmt.Sprintf("item %d", i), Content: string(r), Score: rng.Float64()}
	}
	want := make([]int, len(data))
	for i := range want {
		want[i] = i
	}
	budgets := []Budget{{MaxChars: 3000}, {MaxChars: 8000}, {MaxChars: 20_000, Margin: 0.8}, Budget100K(), {MaxChars: 50_000, MaxTokens: 4000}}
	sizes := []int{1, 7, 50, 200}
	pagings := []Paging{ByOffset, ByPage}
	for bi, b := range budgets {
		b.Logger = quiet
		for _, size := range sizes {
			for _, paging := range pagings {
				style := HintStyle((bi + size) % 3)
				name := fmt.Sprintf("budget %d/%d chars, page size %d, paging %d, hints %d", b.MaxChars, b.MaxTokens, size, paging, style)
				call := Call{Tool: "search", Args: Args{{"query", "q"}}, Paging: paging, DefaultLimit: 50}
				got := walk(t, name, data, Limits{Default: size, Max: 200}, call, style, b, size <= 50)
				if !slices.Equal(got, want) {
					t.Errorf("%s: walked %d ids, want each of %d once, in order; first difference at %d", name, len(got), len(want), firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestEnvelopeMarshal(t *testing.T) {
	tests := []struct {
		name string
		env  Envelope[string]
		want string
	}{
		{"empty results are []", Envelope[string]{}, `{"results":[],"truncated":false}`},
		{"empty slice", Envelope[string]{Results: []string{}}, `{"results":[],"truncated":false}`},
		{"order and no HTML escaping", Envelope[string]{
			Results:    []string{"<a>"},
			Pagination: &PageInfo{Total: 1, Limit: 10, Returned: 1},
			Truncated:  true,
			Truncation: &Truncation{Reason: ReasonCharacterLimit, OriginalCount: 2, ReturnedCount: 1},
			Hint:       "x & y",
			Next:       Args{{"offset", 1}},
		}, `{"results":["<a>"],"pagination":{"total":1,"totalKind":"exact","limit":10,"offset":0,"returned":1,"hasMore":false},"truncated":true,` +
			`"truncation":{"reason":"character_limit","originalCount":2,"returnedCount":1,"estimatedChars":0,"limitChars":0,"estimatedTokens":0,"limitTokens":0},"hint":"x & y","next":{"offset":1}}`},
	}
	for _, tt := range tests {
		got, err := tt.env.MarshalJSON()
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: MarshalJSON() = %s, %v\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestAppendPageInfo checks the hand-written pagination encoding against
// encoding/json, for every optional field.
func TestAppendPageInfo(t *testing.T) {
	for _, pi := range []PageInfo{
		{},
		{Total: 350, Limit: 100, Returned: 100, HasMore: true, NextOffset: 100},
		{Total: 10_000, TotalKind: TotalAtLeast, Limit: 500, Offset: 500, Returned: 500, HasMore: true, NextOffset: 1000, NextCursor: "a<b>\"c\"\u2028", Clamped: true, RequestedLimit: 9000},
		{Total: 3, TotalKind: TotalUnknown, Limit: 2, Offset: 2, Returned: 1},
		{Total: -1, Limit: -2, Offset: -3, Returned: -4, NextOffset: -5, RequestedLimit: -6},
		{Total: 256, TotalKind: TotalAtLeast, Limit: 10, Returned: 10, HasMore: true, NextOffset: 10, Importing: true},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(pi); err != nil {
			t.Fatal(err)
		}
		b, err := appendPageInfo(nil, &pi)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(b), strings.TrimSuffix(want.String(), "\n"); got != want {
			t.Errorf("%+v: %s\ngot  %s\nwant %s", pi, diffText(got, want), got, want)
		}
	}
}

func TestAppendPageInfoUnknownKind(t *testing.T) {
	pi := PageInfo{TotalKind: 9}
	_, werr := json.Marshal(pi)
	_, err := appendPageInfo(nil, &pi)
	if err == nil || werr == nil {
		t.Errorf("unknown TotalKind: appendPageInfo error %v, encoding/json error %v; want both to fail", err, werr)
	}
	_, err = Fit(Budget{Logger: quiet}, FitInput[int]{Page: Paged[int]{Page: pi}})
	if err == nil || !strings.Contains(err.Error(), "TotalKind") {
		t.Errorf("Fit with an unknown TotalKind: error %v, want one naming TotalKind", err)
	}
}

// TestAppendArgs checks the fast encoding of next arguments against
// Args.MarshalJSON.
func TestAppendArgs(t *testing.T) {
	type mode string
	for _, a := range []Args{
		nil,
		{},
		{{"query", "a<b>&\"c\"\n日本\xff"}, {"offset", -12}, {"limit", 100}, {"exact", true}},
		{{"nil", nil}, {"f", 1.5e300}, {"tags", []string{"x", "<y>"}}, {"m", mode("full")}, {"n", json.Number("12.50")}, {"u", uint8(7)}},
		{{"k\u2028ey", map[string]int{"b": 2, "a": 1}}},
	} {
		want, werr := a.MarshalJSON()
		got, gerr := appendArgs(nil, a)
		if string(got) != string(want) || (gerr == nil) != (werr == nil) {
			t.Errorf("appendArgs(%v) = %s, %v; want %s, %v", a, got, gerr, want, werr)
		}
	}
	if _, err := appendArgs(nil, Args{{"c", make(chan int)}}); err == nil {
		t.Error("appendArgs of a channel: no error")
	}
}

// TestFitAssertsItsMeasure checks that a response whose measured size is
// wrong is refused, not returned: the check behind the hard ceiling.
func TestFitAssertsItsMeasure(t *testing.T) {
	in := FitInput[doc]{Page: pageOf(docs(50, 50, 50), 0, 10, 3), Call: searchCall}
	f, err := prepareFit(context.Background(), Budget{Logger: quiet}, in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.sizeOf(3, "")
	if err != nil {
		t.Fatal(err)
	}
	s.chars--
	if _, err := f.assemble(s); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("assemble with a wrong measure: error %v, want an internal error", err)
	}
}

// TestFitConcurrent runs Fit from many goroutines (run it with -race): the
// pooled buffers must never leak one response into another.
func TestFitConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var items []doc
	for i := range 40 {
		items = append(items, doc{ID: i, Title: "t", Content: strings.Repeat("é", rng.IntN(2000))})
	}
	budgets := []Budget{{MaxChars: 3000}, {MaxChars: 20_000}, {MaxChars: 1_000_000}, {MaxChars: 2500, MaxTokens: 500, Tokenizer: wordTokenizer{}}}
	want := make([]string, len(budgets))
	for i := range budgets {
		budgets[i].Logger = quiet
		fd, err := Fit(budgets[i], FitInput[doc]{Page: pageOf(items, 0, 40, 40), Call: searchCall})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(fd.JSON)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 40 {
				bi := (g + i) % len(budgets)
				fd, err := Fit(budgets[bi], FitInput[doc]{Page: pageOf(items, 0, 40, 40), Call: searchCall})
				if err == nil && string(fd.JSON) != want[bi] {
					err = fmt.Errorf("budget %d: %s", bi, diffText(string(fd.JSON), want[bi]))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestBudgetHugeValues checks that extreme budgets clamp instead of
// overflowing, and still fit a page.
func TestBudgetHugeValues(t *testing.T) {
	b := Budget{MaxChars: math.MaxInt, CharsPerToken: 1e-300, Logger: quiet}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := b.LimitChars(); got < math.MaxInt/10*8 || got > math.MaxInt {
		t.Errorf("LimitChars() = %d, want about 0.9 × MaxInt", got)
	}
	if got := b.LimitTokens(); got != math.MaxInt {
		t.Errorf("LimitTokens() = %d, want MaxInt", got)
	}
	in := FitInput[doc]{Page: pageOf(docs(10, 20), 0, 10, 2), Call: searchCall}
	fd, err := Fit(b, in)
	if err != nil || fd.Kept != 2 {
		t.Fatalf("Fit: kept %d, %v; want 2, nil", fd.Kept, err)
	}
	checkFitted(t, "huge", b, in, fd)
}

// TestCharsForTokens checks the character ceiling derived from a token
// limit against a brute-force search.
func TestCharsForTokens(t *testing.T) {
	for _, cpt := range []float64{0.5, 1, 2.8, 3.3333333333, 4, 7.1} {
		b := Budget{CharsPerToken: cpt}.withDefaults()
		for tokens := 1; tokens <= 300; tokens++ {
			want := 0
			for b.estimateTokens(want+1) <= tokens {
				want++
			}
			if got := b.charsForTokens(tokens); got != want {
				t.Errorf("CharsPerToken %v, %d tokens: charsForTokens = %d, want %d", cpt, tokens, got, want)
			}
		}
	}
	tiny := Budget{CharsPerToken: 1e-300, MaxTokens: 1000, Logger: quiet}
	if got := tiny.withDefaults().charsForTokens(900); got != 0 {
		t.Errorf("CharsPerToken 1e-300: charsForTokens(900) = %d, want 0", got)
	}
	if _, err := Fit(tiny, FitInput[doc]{Page: pageOf(docs(10), 0, 10, 1)}); !errors.Is(err, ErrInvalidBudget) {
		t.Errorf("Fit with 1e-300 characters a token: error %v, want ErrInvalidBudget", err)
	}
}

// TestPresets checks the presets' numbers: Claude Code's 25,000 tokens and
// 50,000 characters with the default margin, Budget100K's 100,000
// characters, 0.8 margin and 4 characters a token, and the list of named
// presets.
func TestPresets(t *testing.T) {
	cc := ClaudeCode()
	if cc.MaxChars != 50_000 || cc.MaxTokens != 25_000 || cc.Margin != DefaultMargin || cc.CharsPerToken != 0 || cc.Tokenizer != nil {
		t.Errorf("ClaudeCode() = %+v, want 50,000 characters, 25,000 tokens, margin 0.9, the Estimator", cc)
	}
	if cc.LimitChars() != 45_000 || cc.LimitTokens() != 22_500 || cc.Validate() != nil {
		t.Errorf("ClaudeCode(): limits %d characters, %d tokens, %v; want 45,000, 22,500", cc.LimitChars(), cc.LimitTokens(), cc.Validate())
	}
	note := Budget100K()
	if note.LimitChars() != 80_000 || note.LimitTokens() != 20_000 {
		t.Errorf("Budget100K(): limits %d characters, %d tokens; want 80,000, 20,000", note.LimitChars(), note.LimitTokens())
	}
	// The note counts 4 characters a token, as it says; the Estimator
	// would count far more for the same JSON.
	js := strings.Repeat(`{"id":"note-000123","title":"Design note","score":0.8571},`, 100)
	if flat, est := note.CountTokens(js), (Estimator{}).CountTokens(js); flat != (len(js)+3)/4 || est < flat*13/10 {
		t.Errorf("Budget100K counts %d tokens for %d characters of JSON, the Estimator %d: want 4 a token, and the Estimator 30%% more", flat, len(js), est)
	}
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
		if p.Source == "" || p.Budget.Validate() != nil {
			t.Errorf("preset %s: source %q, %v", p.Name, p.Source, p.Budget.Validate())
		}
	}
	if want := []string{"default", "claude-code", "note-100k"}; !slices.Equal(names, want) {
		t.Errorf("Presets() names %q, want %q", names, want)
	}
	if p := Presets(); !reflect.DeepEqual(p[0].Budget, Budget{}) || !reflect.DeepEqual(p[1].Budget, ClaudeCode()) || !reflect.DeepEqual(p[2].Budget, Budget100K()) {
		t.Errorf("Presets() budgets %+v", p)
	}
}

type named struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

// TestFitUnclipped: a field named Unclipped is never clipped: the other
// strings are, and when they are not enough the result is not returned
// and the response says the budget it needs.
func TestFitUnclipped(t *testing.T) {
	item := named{Name: strings.Repeat("n", 300), Body: strings.Repeat("b", 3000)}
	in := FitInput[named]{Page: pageOf([]named{item}, 0, 10, 1), Call: searchCall, Unclipped: []string{"name"}}
	b := Budget{MaxChars: 800, Margin: 1}
	fd, err := Fit(b, in)
	if err != nil {
		t.Fatal(err)
	}
	env := decodeEnvelope[named](t, fd.JSON)
	if fd.Truncation.Reason != ReasonSingleResultTooLarge || len(env.Results) != 1 || env.Results[0].Name != item.Name || !slices.Equal(fd.Truncation.ClippedFields, []string{"body"}) {
		t.Errorf("got %+v, %d results; want the body clipped and the name whole", fd.Truncation, len(env.Results))
	}
	item.Name = strings.Repeat("n", 900)
	in.Page = pageOf([]named{item}, 0, 10, 1)
	fd, err = Fit(b, in)
	if err != nil {
		t.Fatal(err)
	}
	if fd.Truncation.Reason != ReasonBudgetTooSmall || fd.Kept != 0 {
		t.Fatalf("a name over the budget: %+v, kept %d; want %q", fd.Truncation, fd.Kept, ReasonBudgetTooSmall)
	}
	checkTooSmall(t, "a name over the budget", b, in, fd)
}

// TestFitLeanPagination: when not one result fits whole with them, the
// cursors the next call does not use are left out of the pagination
// before any result is clipped; the cursor a cursor call continues by
// stays.
func TestFitLeanPagination(t *testing.T) {
	item := named{Name: "a", Body: strings.Repeat("b", 300)}
	long := strings.Repeat("C", 300)
	page := Paged[named]{Items: []named{item}, Page: PageInfo{Total: 9, Limit: 1, Offset: 4, Returned: 1, HasMore: true, NextOffset: 5, NextCursor: long + "n", PrevCursor: long + "p"}}
	for _, paging := range []Paging{ByOffset, ByCursor} {
		// Room for the result whole and the cursor next uses, not for all.
		b := Budget{MaxChars: 1100, Margin: 1}
		if paging == ByCursor {
			b.MaxChars = 1450
		}
		call := searchCall
		call.Paging = paging
		fd, err := Fit(b, FitInput[named]{Page: page, Call: call})
		if err != nil {
			t.Fatal(err)
		}
		env := decodeEnvelope[named](t, fd.JSON)
		wantNext := ""
		if paging == ByCursor {
			wantNext = long + "n"
		}
		if fd.Truncation.Reason != "" || len(env.Results) != 1 || env.Results[0] != item ||
			env.Pagination.PrevCursor != "" || env.Pagination.NextCursor != wantNext || fd.Page != *env.Pagination {
			t.Errorf("paging %d: %s; want the result whole, no prevCursor, nextCursor %q", paging, fd.JSON, wantNext)
		}
	}
	// With room for them, the cursors stay.
	fd, err := Fit(Budget{MaxChars: 5000, Margin: 1}, FitInput[named]{Page: page, Call: searchCall})
	if err != nil || fd.Page.PrevCursor == "" || fd.Page.NextCursor == "" {
		t.Errorf("a roomy budget: %+v, %v; want both cursors", fd.Page, err)
	}
}

// TestFitNextKeepsLongArguments: a caller's argument too long to repeat
// in every response (over an eighth of the budget and MaxNextValue) is
// left out of next and named in nextKeeps; with room, next is whole.
func TestFitNextKeepsLongArguments(t *testing.T) {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("projects/notes-%03d", i)
	}
	call := Call{Tool: "get_notes", Args: Args{{"ids", ids}, {"maxLines", 5}}, DefaultLimit: 10}
	page := pageOf(docs(10), 0, 10, 100)
	for _, tc := range []struct {
		b     Budget
		keeps []string
	}{
		{Budget{MaxChars: 3000, Margin: 1}, []string{"ids"}},
		{Budget{}, nil},
	} {
		in := FitInput[doc]{Page: page, Call: call}
		fd, err := Fit(tc.b, in)
		if err != nil {
			t.Fatal(err)
		}
		checkFitted(t, fmt.Sprintf("budget %d", tc.b.MaxChars), tc.b, in, fd)
		_, hasIDs := fd.Next.Get("ids")
		if !slices.Equal(fd.NextKeeps, tc.keeps) || hasIDs != (tc.keeps == nil) {
			t.Errorf("budget %d: next %v, nextKeeps %v; want nextKeeps %v", tc.b.MaxChars, fd.Next, fd.NextKeeps, tc.keeps)
		}
		if _, ok := fd.Next.Get("maxLines"); !ok {
			t.Errorf("budget %d: next %v lost a short argument", tc.b.MaxChars, fd.Next)
		}
		if tc.keeps != nil && !bytes.Contains(fd.JSON, []byte(`,"nextKeeps":["ids"]`)) {
			t.Errorf("budget %d: %s does not say nextKeeps", tc.b.MaxChars, fd.JSON)
		}
	}
}

// TestFitSumsRunes checks the estimate of responses whose items the
// compiled encoder writes with runes of every length, invalid bytes, U+2028,
// a key not ASCII, Args, and a value it leaves to encoding/json: the runes
// it adds up as it writes them are those the Estimator reads.
func TestFitSumsRunes(t *testing.T) {
	type item struct {
		Text  string   `json:"text"`
		Café  string   `json:"café"`
		Tags  []string `json:"tags"`
		Args  Args     `json:"args,omitempty"`
		Score float64  `json:"score"`
	}
	texts := []string{
		"Réunion à Zürich — 東京オフィス、서울 팀, Привет 🚀 👩‍💻 ✍️",
		"invalid \xff\xe6\x97 bytes, \u2028 and \u2029, \u0800 \uffee \ud7ff \U0010ffff\tend",
		strings.Repeat("plain ASCII text, then é ", 30),
	}
	for _, n := range []int{1, 3, 10, 40, 200} {
		for _, variant := range []string{"plain", "args", "args-json", "nan", "tab"} {
			items := make([]item, n)
			for i := range items {
				items[i] = item{Text: texts[i%len(texts)] + strings.Repeat("日本語 ", i%7), Café: "naïve", Tags: []string{"équipe", "東京"}, Score: float64(i)}
				switch variant {
				case "args":
					items[i].Args = Args{{"q", "é"}}
				case "args-json":
					if i == n/2 {
						items[i].Args = Args{{"q", 1.5}, {"r", "é"}}
					}
				case "nan":
					if i == n/2 {
						items[i].Score = math.NaN()
					}
				case "tab":
					items[i].Café = "\t→"
				}
			}
			in := FitInput[item]{Page: pageOf(items, 0, n, 5*n), Call: searchCall}
			budgets := []Budget{{}}
			for c := 2_000; c <= 30_000; c += 1_300 {
				budgets = append(budgets, Budget{MaxChars: c})
			}
			for _, b := range budgets {
				name := fmt.Sprintf("%d items, %s, %+v", n, variant, b)
				fd, err := Fit(b, in)
				if variant == "nan" && err != nil {
					continue // unless encoding stopped before the NaN
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkFitted(t, name, b, in, fd)
			}
		}
	}
}
