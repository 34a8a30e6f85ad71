package bounded_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// A page of five notes does not fit a 1,800-character budget: Fit keeps the
// first three, and the hint and the next call continue at the first note it
// cut, so no note is skipped.
func ExampleFit() {
	type note struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	var notes []note
	for i := range 12 {
		notes = append(notes, note{Title: fmt.Sprintf("Note %d", i+1), Body: strings.Repeat("lorem ipsum ", 25)})
	}
	limits := bounded.Limits{Default: 5, Max: 20}
	// The agent asked for the first page.
	page, err := bounded.FetchPage(context.Background(), bounded.FromSlice(notes), "", bounded.Page{}, limits, driver.Codec{})
	if err != nil {
		panic(err)
	}
	fitted, err := bounded.Fit(
		bounded.Budget{MaxChars: 1800, Logger: slog.New(slog.DiscardHandler)},
		bounded.FitInput[note]{
			Page: page,
			Call: bounded.Call{Tool: "search_notes", Args: bounded.Args{{Name: "query", Value: "lorem"}}, DefaultLimit: 5},
		},
	)
	if err != nil {
		panic(err)
	}
	tr := fitted.Truncation
	fmt.Printf("kept %d of %d: %s, %d of %d characters\n", fitted.Kept, tr.OriginalCount, tr.Reason, tr.EstimatedChars, tr.LimitChars)
	fmt.Println(fitted.Hint)
	fmt.Println(string(fitted.JSON[strings.Index(string(fitted.JSON), `"next"`):]))
	// Output:
	// kept 3 of 5: character_limit, 1438 of 1620 characters
	// Found 12 results, showing 1-3. 9 results remain: call search_notes(query="lorem", offset=3) for the next.
	// "next":{"query":"lorem","offset":3}}
}
