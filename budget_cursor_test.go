package bounded

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/driver"
)

// keyedStore is a result set ordered by title, then id, paged as a store
// that issues cursors pages it: by offset or after a cursor's keys, with
// NextCursor, PrevCursor and CursorAt.
type keyedStore struct {
	items []doc // in order
	codec driver.Codec
}

const keyedScope = "keyed"

func docKeys(d doc) []any { return []any{d.Title, int64(d.ID)} }

var keyedLimits = Limits{Default: 10, Max: 50}

func newKeyedStore(items []doc) *keyedStore {
	s := &keyedStore{items: slices.Clone(items)}
	s.sort()
	return s
}

func (s *keyedStore) sort() {
	slices.SortFunc(s.items, func(a, b doc) int { return driver.CompareKeys(docKeys(a), docKeys(b), nil) })
}

func (s *keyedStore) insert(d doc) {
	s.items = append(s.items, d)
	s.sort()
}

func (s *keyedStore) remove(id int) {
	s.items = slices.DeleteFunc(s.items, func(d doc) bool { return d.ID == id })
}

// page reads p (forward only).
func (s *keyedStore) page(p Page) (Paged[doc], error) {
	req, err := keyedLimits.normalizeCursor(p, s.codec, keyedScope)
	if err != nil {
		return Paged[doc]{}, err
	}
	start := min(req.Offset, len(s.items))
	if req.At != nil {
		if req.Backward() {
			return Paged[doc]{}, errors.New("keyedStore reads forward only")
		}
		start = sort.Search(len(s.items), func(i int) bool { return driver.CompareKeys(docKeys(s.items[i]), req.At.Keys, nil) > 0 })
	}
	end := min(start+req.Limit, len(s.items))
	var items []doc
	if start < end {
		items = slices.Clone(s.items[start:end])
	}
	info := finishPage(req, len(items), end < len(s.items), len(s.items))
	if len(items) > 0 {
		if err := info.setCursors(s.codec, keyedScope, docKeys(items[0]), docKeys(items[len(items)-1]), false); err != nil {
			return Paged[doc]{}, err
		}
	}
	return Paged[doc]{Items: items, Page: info, CursorAt: cursorsAt(s.codec, keyedScope, info.Offset, items, docKeys)}, nil
}

// keyedDocs returns n docs with titles "doc 000", ... and content of size
// runes each.
func keyedDocs(n, size int) []doc {
	out := make([]doc, n)
	for i := range out {
		out[i] = doc{ID: i, Title: fmt.Sprintf("doc %03d", i), Content: strings.Repeat("x", size), Score: 1}
	}
	return out
}

// pageOfArgs reads a page from a call's pagination arguments: a cursor, an
// offset or a page number.
func pageOfArgs(args Args) (Page, error) {
	limit, _ := args.Get("limit")
	size, _ := limit.(int)
	if c, ok := args.Get("cursor"); ok {
		return Page{Limit: size, Cursor: c.(string)}, nil
	}
	return pageFromArgs(keyedLimits, args)
}

// countingCursorAt wraps at, counting its calls.
func countingCursorAt(at func(int) (string, error), calls *int) func(int) (string, error) {
	return func(n int) (string, error) {
		*calls++
		return at(n)
	}
}

// TestFitCursorAt checks that a cut page continues by the cursor of its cut
// position, CursorAt(Kept): in the pagination for every paging style, and in
// the hint and the next call of a ByCursor call; that following it returns
// the first item cut; and that a page without CursorAt, or not cut, keeps
// the old behaviour.
func TestFitCursorAt(t *testing.T) {
	st := newKeyedStore(keyedDocs(100, 300))
	byCursor := Call{Tool: "search", Args: Args{{"query", "auth"}}, Paging: ByCursor, DefaultLimit: 10}
	byOffset := Call{Tool: "search", Args: Args{{"query", "auth"}}, Paging: ByOffset, DefaultLimit: 10}
	byPage := Call{Tool: "search", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: 10}
	budgets := []Budget{
		{MaxChars: 2500},                    // tokens estimated by the Estimator
		{MaxChars: 2500, CharsPerToken: 4},  // and by a ratio
		{MaxChars: 100_000, MaxTokens: 700}, // tokens bind
		{MaxChars: 100_000, MaxTokens: 300, Tokenizer: wordTokenizer{}},
	}
	tests := []struct {
		name   string
		start  Page // read from st
		call   Call
		noAt   bool // drop the page's CursorAt
		cut    bool // want a cut
		by     string
		budget int // MaxChars when set, instead of budgets
	}{
		{name: "ByCursor cut continues by CursorAt", start: Page{Offset: 40}, call: byCursor, cut: true, by: "cursor"},
		{name: "ByCursor cut of a page read by cursor", start: Page{Cursor: "after 37"}, call: byCursor, cut: true, by: "cursor"},
		{name: "ByCursor cut of the last page", start: Page{Offset: 90}, call: byCursor, cut: true, by: "cursor"},
		{name: "ByOffset cut carries the cursor, continues by offset", start: Page{Offset: 40}, call: byOffset, cut: true, by: "offset"},
		{name: "ByPage cut carries the cursor, continues by offset", start: Page{Offset: 40}, call: byPage, cut: true, by: "offset"},
		{name: "ByCursor cut without CursorAt continues by offset", start: Page{Offset: 40}, call: byCursor, noAt: true, cut: true, by: "offset"},
		{name: "ByCursor without a cut follows NextCursor", start: Page{Offset: 40}, call: byCursor, by: "cursor", budget: 100_000},
		{name: "ByCursor last page without a cut has no next", start: Page{Offset: 90}, call: byCursor, budget: 100_000},
	}
	for _, tt := range tests {
		bs := budgets
		if tt.budget > 0 {
			bs = []Budget{{MaxChars: tt.budget}}
		}
		for bi, b := range bs {
			b.Logger = quiet
			name := fmt.Sprintf("%s (budget %d)", tt.name, bi)
			p := tt.start
			if p.Cursor != "" {
				at, err := st.page(Page{Limit: 37})
				if err != nil {
					t.Fatal(err)
				}
				p.Cursor = at.Page.NextCursor
			}
			pg, err := st.page(p)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			calls := 0
			if tt.noAt {
				pg.CursorAt = nil
			} else {
				pg.CursorAt = countingCursorAt(pg.CursorAt, &calls)
			}
			in := FitInput[doc]{Page: pg, Call: tt.call}
			fd, err := Fit(b, in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkFitted(t, name, b, in, fd)
			if b.Tokenizer == nil {
				checkMaximal(t, name, b, in, fd)
			}
			if cut := fd.Kept < len(pg.Items); cut != tt.cut {
				t.Fatalf("%s: kept %d of %d; want a cut %v", name, fd.Kept, len(pg.Items), tt.cut)
			}
			if !tt.cut && calls > 0 {
				t.Errorf("%s: CursorAt called %d times for a page not cut", name, calls)
			}
			switch {
			case tt.noAt && fd.Page.NextCursor != "":
				t.Errorf("%s: a cut without CursorAt has NextCursor %q", name, fd.Page.NextCursor)
			case !tt.noAt && fd.Page.HasMore && fd.Page.NextCursor == "":
				t.Errorf("%s: no NextCursor in %+v", name, fd.Page)
			case tt.cut && !tt.noAt:
				want, _ := pg.CursorAt(fd.Kept)
				if fd.Page.NextCursor != want || !strings.Contains(string(fd.JSON), `"nextCursor":"`+want+`"`) {
					t.Errorf("%s: NextCursor %q, want CursorAt(%d) = %q in the pagination", name, fd.Page.NextCursor, fd.Kept, want)
				}
			}
			if tt.by == "" {
				if fd.Next != nil {
					t.Errorf("%s: next %v on the last page", name, fd.Next)
				}
				continue
			}
			if _, ok := fd.Next.Get(tt.by); !ok {
				t.Fatalf("%s: next %v, want it to continue by %s", name, fd.Next, tt.by)
			}
			if tt.by == "cursor" {
				if c, _ := fd.Next.Get("cursor"); c != fd.Page.NextCursor || !strings.Contains(strings.ReplaceAll(fd.Hint, "<pagination.nextCursor>", strconv.Quote(fd.Page.NextCursor)), fmt.Sprintf("cursor=%q", fd.Page.NextCursor)) {
					t.Errorf("%s: next %v, hint %q; want both to name NextCursor %q", name, fd.Next, fd.Hint, fd.Page.NextCursor)
				}
			}
			// The next call starts at the first item not returned.
			np, err := pageOfArgs(fd.Next)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			next, err := st.page(np)
			if err != nil {
				t.Fatalf("%s: next call %v: %v", name, fd.Next, err)
			}
			if off := pg.Page.Offset + fd.Kept; len(next.Items) == 0 || next.Items[0].ID != st.items[off].ID || next.Page.Offset != off {
				t.Errorf("%s: the next call %v reads from offset %d, want %d (id %d)", name, fd.Next, next.Page.Offset, off, st.items[off].ID)
			}
		}
	}
}

// TestFitCursorAtSingleResultTooLarge checks the cut after a first item
// clipped to fit: the next page starts after it, by CursorAt(1).
func TestFitCursorAtSingleResultTooLarge(t *testing.T) {
	items := keyedDocs(5, 20)
	items[0].Content = strings.Repeat("lorem ipsum ", 2000)
	st := newKeyedStore(items)
	pg, err := st.page(Page{})
	if err != nil {
		t.Fatal(err)
	}
	call := Call{Tool: "search", Paging: ByCursor, DefaultLimit: 10}
	b := Budget{MaxChars: 2000, Logger: quiet}
	in := FitInput[doc]{Page: pg, Call: call}
	fd, err := Fit(b, in)
	if err != nil {
		t.Fatal(err)
	}
	checkFitted(t, "clipped", b, in, fd)
	want, _ := pg.CursorAt(1)
	if fd.Truncation.Reason != ReasonSingleResultTooLarge || fd.Kept != 1 || fd.Page.NextCursor != want {
		t.Fatalf("reason %q, kept %d, NextCursor %q; want %q, 1, %q", fd.Truncation.Reason, fd.Kept, fd.Page.NextCursor, ReasonSingleResultTooLarge, want)
	}
	if c, _ := fd.Next.Get("cursor"); c != want {
		t.Errorf("next %v, want cursor %q", fd.Next, want)
	}
}

// TestFitCursorAtError checks that Fit returns the error of CursorAt, and
// calls it only for a cut.
func TestFitCursorAtError(t *testing.T) {
	st := newKeyedStore(keyedDocs(20, 300))
	pg, err := st.page(Page{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	pg.CursorAt = func(int) (string, error) { return "", boom }
	call := Call{Tool: "search", Paging: ByCursor, DefaultLimit: 10}
	if _, err := Fit(Budget{MaxChars: 2500, Logger: quiet}, FitInput[doc]{Page: pg, Call: call}); !errors.Is(err, boom) {
		t.Errorf("cut: %v, want the error of CursorAt", err)
	}
	if _, err := Fit(Budget{MaxChars: 100_000, Logger: quiet}, FitInput[doc]{Page: pg, Call: call}); err != nil {
		t.Errorf("no cut: %v, want CursorAt not called", err)
	}
	// CursorsAt's own errors: positions out of the page.
	pg, _ = st.page(Page{Limit: 3})
	for _, n := range []int{-1, 0, 4} {
		if _, err := pg.CursorAt(n); !errors.Is(err, ErrInvalidPage) {
			t.Errorf("CursorAt(%d) of 3 items: %v, want ErrInvalidPage", n, err)
		}
	}
	if at := cursorsAt(driver.Codec{}, keyedScope, 0, []doc(nil), docKeys); at != nil {
		t.Errorf("CursorsAt of no items is not nil")
	}
}

// TestFitCursorAtMaximal fits pages whose items' sort keys, and so the
// cursors of their cuts, differ in length by hundreds of characters into
// many budgets: the cut always keeps the longest prefix that fits, whatever
// the cursors of other cuts.
func TestFitCursorAtMaximal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	items := make([]doc, 40)
	for i := range items {
		// Titles of 1 to 400 bytes, some escaped in JSON; the keys sort by
		// title, so a cut's cursor is 2 to 560 characters long.
		title := strings.Repeat(string(rune('a'+rng.IntN(26))), 1+rng.IntN(400))
		if i%7 == 0 {
			title += "\"\\\n日本"
		}
		items[i] = doc{ID: i, Title: title, Content: strings.Repeat("y", rng.IntN(200)), Score: 1}
	}
	st := newKeyedStore(items)
	pg, err := st.page(Page{Limit: 40})
	if err != nil {
		t.Fatal(err)
	}
	kinds := []Budget{{CharsPerToken: 4}, {}, {MaxTokens: 1 << 30}}
	calls := []Call{
		{Tool: "search", Args: Args{{"query", "q"}}, Paging: ByCursor, DefaultLimit: 10},
		{Tool: "search", Paging: ByOffset, DefaultLimit: 40, CursorArg: "after"},
	}
	fits, cuts := 0, 0
	for maxChars := 900; maxChars < 12_000; maxChars += 173 {
		for _, kind := range kinds {
			for _, call := range calls {
				b := kind
				b.MaxChars, b.Logger = maxChars, quiet
				if b.MaxTokens > 0 {
					b.MaxTokens = maxChars / 3
				}
				name := fmt.Sprintf("budget %+v, paging %d", b, call.Paging)
				in := FitInput[doc]{Page: pg, Call: call}
				fd, err := Fit(b, in)
				if errors.Is(err, ErrInvalidBudget) {
					continue // too small for the envelope and one clipped item
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fd.Truncation.Reason == ReasonBudgetTooSmall {
					checkTooSmall(t, name, b, in, fd)
					continue
				}
				fits++
				if fd.Kept < len(pg.Items) {
					cuts++
				}
				checkFitted(t, name, b, in, fd)
				checkMaximal(t, name, b, in, fd)
			}
		}
	}
	if fits < 300 || cuts < 250 {
		t.Errorf("%d fits, %d cut: too few to check", fits, cuts)
	}
}

// TestFitCursorWalkUnderWrites walks a result set by the next calls of
// fitted responses, under small budgets that cut most pages, while items
// are inserted and deleted behind and ahead of the walk between calls. By
// cursor every item present throughout comes back exactly once; by offset
// (the walk a cut page continued by before CursorAt) items are skipped or
// repeated, or the walk never ends.
func TestFitCursorWalkUnderWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var items []doc
	for i := range 120 {
		items = append(items, doc{ID: i, Title: fmt.Sprintf("m %03d", i), Content: strings.Repeat("z", rng.IntN(600)), Score: 1})
	}
	walk := func(paging Paging, maxChars, size int) (bad []string, cuts int) {
		st := newKeyedStore(items)
		call := Call{Tool: "search", Paging: paging, DefaultLimit: keyedLimits.Default}
		b := Budget{MaxChars: maxChars, Logger: quiet}
		returned := map[int]int{}
		deleted := map[int]bool{}
		var order []int // ids in the order returned
		args := Args{{"limit", size}}
		next := 1000 // ids of inserted items
		for step := 0; ; step++ {
			if step > 500 {
				return []string{"the walk does not end"}, cuts
			}
			p, err := pageOfArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			pg, err := st.page(p)
			if err != nil {
				t.Fatalf("paging %d, %v: %v", paging, args, err)
			}
			in := FitInput[doc]{Page: pg, Call: call}
			fd, err := Fit(b, in)
			if err != nil {
				t.Fatalf("paging %d, %v: %v", paging, args, err)
			}
			checkFitted(t, fmt.Sprintf("paging %d, step %d", paging, step), b, in, fd)
			if fd.Kept < len(pg.Items) {
				cuts++
			}
			for _, d := range pg.Items[:fd.Kept] {
				returned[d.ID]++
				order = append(order, d.ID)
			}
			if fd.Next == nil {
				break
			}
			// Writes between calls: insert one item behind the walk and one
			// ahead of it, and on every other call delete the item returned
			// first of those not deleted yet (behind the walk).
			st.insert(doc{ID: next, Title: "a first", Content: "new"})
			st.insert(doc{ID: next + 1, Title: "z last", Content: "new"})
			next += 2
			if step%2 == 1 {
				id := order[len(deleted)]
				st.remove(id)
				deleted[id] = true
			}
			args = fd.Next
		}
		for id, n := range returned {
			if n > 1 {
				bad = append(bad, fmt.Sprintf("%d returned %d times", id, n))
			}
		}
		for _, d := range items {
			if n := returned[d.ID]; !deleted[d.ID] && n != 1 {
				bad = append(bad, fmt.Sprintf("%d, present throughout, returned %d times", d.ID, n))
			}
		}
		for id := 1001; id < next; id += 2 {
			if n := returned[id]; n != 1 {
				bad = append(bad, fmt.Sprintf("%d, inserted ahead, returned %d times", id, n))
			}
		}
		return bad, cuts
	}
	for _, maxChars := range []int{1300, 2000} {
		for _, size := range []int{4, 10} {
			bad, cuts := walk(ByCursor, maxChars, size)
			if len(bad) > 10 {
				bad = append(bad[:10], "...")
			}
			if len(bad) > 0 {
				t.Errorf("walked by cursor under %d characters, pages of %d: %s", maxChars, size, strings.Join(bad, "; "))
			}
			if cuts < 10 {
				t.Errorf("walked by cursor under %d characters, pages of %d: %d cuts, too few to check", maxChars, size, cuts)
			}
			if bad, _ := walk(ByOffset, maxChars, size); len(bad) == 0 {
				t.Errorf("walked by offset under %d characters, pages of %d: exact, so the writes test nothing", maxChars, size)
			}
		}
	}
}

// checkTooSmall checks a response that returned no result because not
// even the first one fits: it goes on at that result, says what it needs,
// and a budget of that size returns the result.
func checkTooSmall[T any](t *testing.T, name string, b Budget, in FitInput[T], fd Fitted) {
	t.Helper()
	tr := fd.Truncation
	if fd.Kept != 0 || !fd.Page.HasMore || fd.Page.NextOffset != in.Page.Page.Offset || fd.Page.Returned != 0 {
		t.Errorf("%s: too small, yet kept %d, page %+v; want nothing kept and the page going on at offset %d", name, fd.Kept, fd.Page, in.Page.Page.Offset)
	}
	if tr.NeededChars <= tr.LimitChars && tr.NeededTokens <= tr.LimitTokens {
		t.Errorf("%s: too small, yet needs %d characters, %d tokens within the limits %d, %d", name, tr.NeededChars, tr.NeededTokens, tr.LimitChars, tr.LimitTokens)
	}
	if n := utf8.RuneCount(fd.JSON); n > tr.LimitChars {
		t.Errorf("%s: the too-small response has %d characters, over %d", name, n, tr.LimitChars)
	}
	big := b
	big.MaxChars, big.Margin = max(tr.NeededChars, b.LimitChars()), 1
	if b.MaxTokens > 0 {
		big.MaxTokens = max(tr.NeededTokens, b.LimitTokens())
	}
	more, err := Fit(big, in)
	if err != nil || more.Kept < 1 {
		t.Errorf("%s: with the %d characters and %d tokens needed: kept %d, %v, %+v; want the first result", name, tr.NeededChars, tr.NeededTokens, more.Kept, err, more.Truncation)
	}
}
