package result_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/result"
)

func Example() {
	ctx := context.Background()
	b := result.New(result.NewMemory(result.Quota{}), result.Options{})
	type run struct {
		ID  int    `json:"id"`
		Log string `json:"log"`
	}
	runs := make([]run, 2000)
	for i := range runs {
		runs[i] = run{ID: i, Log: strings.Repeat("ok\n", 10)}
	}
	body, _ := json.Marshal(map[string]any{"runs": runs})

	budget := bounded.Budget{MaxChars: 4000}
	bd, _ := b.Bound(ctx, budget, result.Call{Tool: "list_runs", Principal: "session-1"}, result.JSON(body))
	for _, c := range bd.Report.Cuts {
		fmt.Printf("%s: %d of %d %s elements\n", c.Pointer, c.Kept, c.Total, c.Kind)
	}

	// The model calls read_result with the arguments of next.
	raw, _ := bd.Report.Next.MarshalJSON()
	var args result.ReadArgs
	json.Unmarshal(raw, &args)
	ans, _ := b.Read(ctx, budget, "session-1", args)
	fmt.Println(ans.Pointer, ans.Offset, len(ans.Items) > 0)
	// Output:
	// /runs: 32 of 2000 array elements
	// /runs 32 true
}
