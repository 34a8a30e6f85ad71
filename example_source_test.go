package bounded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// todo is a task of a to-do list, listed by due date and then by id.
type todo struct {
	ID    int64  `json:"id"`
	Due   string `json:"due"`
	Title string `json:"title"`
}

func todoKeys(t todo) []any { return []any{t.Due, t.ID} }

// pageFromArgs turns a response's next call back into the Page the tool asks
// for, as a tool handler reads the agent's arguments.
func pageFromArgs(next bounded.Args) bounded.Page {
	var p bounded.Page
	if v, ok := next.Get("cursor"); ok {
		p.Cursor = v.(string)
	}
	if v, ok := next.Get("offset"); ok {
		p.Offset = v.(int)
	}
	if v, ok := next.Get("limit"); ok {
		p.Limit = v.(int)
	}
	return p
}

// todoIDs returns the ids of the results of an envelope Respond wrote.
func todoIDs(b []byte) []int64 {
	var env bounded.Envelope[todo]
	if err := json.Unmarshal(b, &env); err != nil {
		panic(err)
	}
	var ids []int64
	for _, t := range env.Results {
		ids = append(ids, t.ID)
	}
	return ids
}

// A cursor walk stays exact while the list changes between calls: a task
// added before the cursor's position does not shift the next page, as it
// shifts the page at the next offset.
func ExampleSliceSource_WithKeys() {
	tasks := []todo{
		{1, "2024-06-03", "Book flights"},
		{2, "2024-06-04", "Renew passport"},
		{3, "2024-06-05", "Pay rent"},
		{4, "2024-06-07", "Call Zoë"},
		{5, "2024-06-09", "Water plants"},
	}
	call := bounded.Call{Tool: "list_tasks"}
	opts := bounded.Options[todo]{Limits: bounded.Limits{Default: 2, Max: 10}}
	ctx := context.Background()

	out, _ := bounded.Respond(ctx, bounded.FromSlice(tasks).WithKeys(todoKeys), call, bounded.Page{}, opts)
	fmt.Println(todoIDs(out.JSON))

	// Meanwhile a task due earlier is added, in order.
	tasks = slices.Insert(tasks, 0, todo{6, "2024-06-01", "Pack bags"})

	for out.Next != nil {
		out, _ = bounded.Respond(ctx, bounded.FromSlice(tasks).WithKeys(todoKeys), call, pageFromArgs(out.Next), opts)
		fmt.Println(todoIDs(out.JSON))
	}

	// By offset, the second page would have repeated task 2.
	out, _ = bounded.Respond(ctx, bounded.FromSlice(tasks), call, bounded.Page{Offset: 2}, opts)
	fmt.Println(todoIDs(out.JSON))
	// Output:
	// [1 2]
	// [3 4]
	// [5]
	// [2 3]
}

// FetchPage reads a page without fitting it: its items, where it sits, and
// the cursors that continue it. Here search hits, by score descending, then
// by path.
func ExampleFetchPage() {
	type hit struct {
		Path  string
		Score float64
	}
	hits := []hit{{"notes/auth.md", 0.91}, {"notes/oauth-flow.md", 0.87}, {"notes/sessions.md", 0.87}, {"notes/über-tokens.md", 0.42}}
	src := bounded.FromSlice(hits).WithKeys(func(h hit) []any { return []any{h.Score, h.Path} }, true)
	scope := `search_notes query="auth"` // what the results depend on
	pg, err := bounded.FetchPage(context.Background(), src, scope, bounded.Page{Limit: 3}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	if err != nil {
		panic(err)
	}
	for _, h := range pg.Items {
		fmt.Println(h.Score, h.Path)
	}
	info := pg.Page
	fmt.Printf("%d of %d, more: %v, next offset %d, next cursor set: %v\n", info.Returned, info.Total, info.HasMore, info.NextOffset, info.NextCursor != "")
	// Output:
	// 0.91 notes/auth.md
	// 0.87 notes/oauth-flow.md
	// 0.87 notes/sessions.md
	// 3 of 4, more: true, next offset 3, next cursor set: true
}

// Each result's body is clipped, with a marker, by how many results the
// page has: the more results, the shorter each.
func ExampleRespond_content() {
	type note struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	notes := []note{
		{"Kyoto trip", "哲学の道を散歩：temples at dawn, cherry blossoms along the canal."},
		{"Standup", "Shipped the search API; next, pagination for the mobile client."},
		{"Recipe", "Crème brûlée: cream, vanilla, sugar, egg yolks; bake at 150 °C."},
	}
	opts := bounded.Options[note]{
		Limits: bounded.Limits{Default: 20, Max: 100},
		Content: bounded.ContentPolicy{Steps: []bounded.ContentStep{
			{MaxResults: 2, MaxChars: 0}, // one or two notes: whole
			{MaxResults: 100, MaxChars: 40},
		}},
		Clip: func(n note, maxChars int) note {
			n.Body, _ = bounded.Clip(n.Body, maxChars)
			return n
		},
	}
	out, err := bounded.Respond(context.Background(), bounded.FromSlice(notes), bounded.Call{Tool: "search_notes"}, bounded.Page{}, opts)
	if err != nil {
		panic(err)
	}
	var env bounded.Envelope[note]
	_ = json.Unmarshal(out.JSON, &env)
	for _, n := range env.Results {
		fmt.Println(n.Body)
	}
	// Output:
	// 哲学の道を散歩：temples at …[truncated 38 chars]
	// Shipped the search …[truncated 44 chars]
	// Crème brûlée: cream…[truncated 44 chars]
}

// A page over the budget is cut after the last result that fits; the next
// call continues by the cursor right after it, so every task is returned
// once.
func ExampleRespond_budgetCut() {
	var tasks []todo
	for i := range 9 {
		tasks = append(tasks, todo{int64(i + 1), fmt.Sprintf("2024-07-%02d", i+1), strings.Repeat("prepare the quarterly report ", 3)})
	}
	src := bounded.FromSlice(tasks).WithKeys(todoKeys)
	call := bounded.Call{Tool: "list_tasks"}
	opts := bounded.Options[todo]{
		Limits: bounded.Limits{Default: 5, Max: 20},
		Budget: bounded.Budget{MaxChars: 1000, Logger: slog.New(slog.DiscardHandler)},
	}
	p := bounded.Page{}
	for {
		out, err := bounded.Respond(context.Background(), src, call, p, opts)
		if err != nil {
			panic(err)
		}
		tr := out.Truncation
		fmt.Printf("%v reason=%q %d/%d chars\n", todoIDs(out.JSON), tr.Reason, tr.EstimatedChars, tr.LimitChars)
		if p.Cursor == "" {
			fmt.Println(out.Hint)
		}
		if out.Next == nil {
			break
		}
		p = pageFromArgs(out.Next)
	}
	// Output:
	// [1 2] reason="character_limit" 795/900 chars
	// Found 9 results, showing 1-2. 7 results remain: call list_tasks(cursor=<pagination.nextCursor>) for the next.
	// [3 4] reason="character_limit" 876/900 chars
	// [5 6] reason="character_limit" 876/900 chars
	// [7 8 9] reason="" 776/900 chars
}

// When not even the first result, its strings clipped, fits the budget,
// the response holds none: it says what budget the result needs, and the
// next call asks for that result again. Numbers are never clipped, so a
// month of daily step counts needs room for all thirty.
func ExampleRespond_budgetTooSmall() {
	type series struct {
		Metric string `json:"metric"`
		Steps  []int  `json:"steps"`
	}
	steps := make([]int, 30)
	for i := range steps {
		steps[i] = 6000 + i*7919%5000
	}
	src := bounded.FromSlice([]series{{"steps.daily.2024-06", steps}})
	call := bounded.Call{Tool: "get_metrics"}
	opts := bounded.Options[series]{
		Limits: bounded.Limits{Default: 10, Max: 50},
		Budget: bounded.Budget{MaxChars: 500, Margin: 1, Logger: slog.New(slog.DiscardHandler)},
	}
	out, err := bounded.Respond(context.Background(), src, call, bounded.Page{}, opts)
	if err != nil {
		panic(err)
	}
	tr := out.Truncation
	fmt.Println(tr.Reason, out.Kept, tr.NeededChars, tr.NeededTokens)
	fmt.Println(out.Hint)
	fmt.Println(out.Next == nil, out.Page.HasMore, out.Page.NextOffset) // no next call: this one again answers the same

	// With the budget it asks for, the result comes back.
	opts.Budget.MaxChars = tr.NeededChars
	out, _ = bounded.Respond(context.Background(), src, call, bounded.Page{}, opts)
	fmt.Printf("%d kept, reason %q\n", out.Kept, out.Truncation.Reason)
	// Output:
	// budget_too_small 0 611 218
	// The next result needs a budget of 611 characters (218 tokens); this one is 500 (178): call again with a larger budget.
	// true true 0
	// 1 kept, reason ""
}

// A tool call's scope binds the cursors it issues: the same tool with
// other arguments has another scope, so its cursors are refused there.
func ExampleCall_Scope() {
	rust := bounded.Call{Tool: "search_notes", Args: bounded.Args{{Name: "query", Value: "rust"}}}
	golang := bounded.Call{Tool: "search_notes", Args: bounded.Args{{Name: "query", Value: "go"}}}
	src := bounded.FromSlice([]string{"a", "b", "c"}).WithKeys(func(s string) []any { return []any{s} })
	limits := bounded.Limits{Default: 2, Max: 10}

	scope, _ := rust.Scope()
	first, _ := bounded.FetchPage(context.Background(), src, scope, bounded.Page{}, limits, driver.Codec{})
	again, err := bounded.FetchPage(context.Background(), src, scope, bounded.Page{Cursor: first.Page.NextCursor}, limits, driver.Codec{})
	fmt.Println(again.Items, err)

	other, _ := golang.Scope()
	_, err = bounded.FetchPage(context.Background(), src, other, bounded.Page{Cursor: first.Page.NextCursor}, limits, driver.Codec{})
	fmt.Println(errors.Is(err, driver.ErrCursorForeign))
	// Output:
	// [c] <nil>
	// true
}

// A slice the caller already holds pages by offset; its pages issue no
// cursors until WithKeys gives them keys.
func ExampleFromSlice() {
	recent := []string{"main.go", "README.md", "go.mod", "store.go", "store_test.go"} // an editor's recent files
	pg, err := bounded.FetchPage(context.Background(), bounded.FromSlice(recent), "", bounded.Page{Limit: 2, Offset: 2}, bounded.Limits{Default: 10, Max: 50}, driver.Codec{})
	if err != nil {
		panic(err)
	}
	fmt.Println(pg.Items, pg.Page.Total, pg.Page.NextOffset, pg.Page.NextCursor == "")
	// Output: [go.mod store.go] 5 4 true
}

// Fetch is what FetchPage and Respond call: the rows of one valid request,
// whether more follow, and the count.
func ExampleSliceSource_Fetch() {
	rota := []string{"Ana", "Bo", "Chen", "Dana", "Émile"} // on call, a week each
	r, _ := bounded.Limits{Default: 2, Max: 10}.Normalize(bounded.Page{Offset: 2})
	rows, err := bounded.FromSlice(rota).Fetch(context.Background(), r)
	fmt.Println(rows.Items, rows.More, rows.Count, err)
	// Output: [Chen Dana] true 5 <nil>
}
