package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// A tool call takes the agent's JSON arguments and returns one bounded
// envelope; next holds the arguments of the call that continues it.
func ExampleSet_Call() {
	ctx := context.Background()
	store := memrepo.New()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	_ = store.PutNote(ctx, ports.Note{ID: "Home", Title: "Home"})
	for i := range 5 {
		_ = store.PutNote(ctx, ports.Note{ID: fmt.Sprintf("daily/%d", i+1), Title: fmt.Sprintf("Day %d", i+1),
			Links: []ports.Link{{Target: "Home"}}, UpdatedAt: day.AddDate(0, 0, i)})
	}
	set, err := tools.New(tools.Config{Notes: store, Mode: tools.Balanced})
	if err != nil {
		panic(err)
	}
	out, err := set.Call(ctx, "search_by_links", json.RawMessage(`{"hasLinksTo":["Home"],"limit":2,"detail":"concise"}`))
	if err != nil {
		panic(err)
	}
	var env struct {
		Results []tools.NoteItem
		Hint    string
		Next    json.RawMessage
	}
	if err := json.Unmarshal(out, &env); err != nil {
		panic(err)
	}
	for _, n := range env.Results {
		fmt.Println(n.ID, n.Title)
	}
	fmt.Println(env.Hint)
	fmt.Println(string(env.Next))
	// Output:
	// daily/5 Day 5
	// daily/4 Day 4
	// Found 5 results, showing 1-2. 2 pages remain: call search_by_links(hasLinksTo=["Home"], detail="concise", cursor=<pagination.nextCursor>, limit=2) for the next.
	// {"hasLinksTo":["Home"],"detail":"concise","cursor":"AQDLviBcfLTUxwICA4CAzITwiaYGBQdkYWlseS80lcnK5zfZEsI","limit":2}
}
