package bounded_test

import (
	"context"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

type task struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

func ExampleRespond() {
	tasks := make([]task, 25)
	for i := range tasks {
		tasks[i] = task{ID: int64(i + 1), Title: fmt.Sprintf("task %d", i+1)}
	}
	src := bounded.FromSlice(tasks)
	call := bounded.Call{Tool: "list_tasks"}
	out, err := bounded.Respond(context.Background(), src, call, bounded.Page{Limit: 10}, bounded.Options[task]{Limits: bounded.Limits{Default: 10, Max: 50}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Hint)
	fmt.Println(out.Next)
	// Output:
	// Found 25 results, showing 1-10. 2 pages remain: call list_tasks(offset=10) for the next.
	// [{offset 10}]
}

func ExampleFromFunc() {
	// A user's own query: LIMIT r.Limit OFFSET r.Offset, and a count.
	query := func(_ context.Context, r driver.Request) ([]task, int, error) {
		var page []task
		for i := r.Offset; i < min(r.Offset+r.Limit, 7); i++ {
			page = append(page, task{ID: int64(i + 1), Title: "t"})
		}
		return page, 7, nil
	}
	call := bounded.Call{Tool: "list_tasks"}
	out, err := bounded.Respond(context.Background(), bounded.FromFunc(query), call, bounded.Page{Limit: 5, Offset: 5}, bounded.Options[task]{Limits: bounded.Limits{Default: 5, Max: 20}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Hint)
	// Output:
	// Found 7 results, showing 6-7. This is the last page.
}

// A query that reads one row past the page needs no count: the source drops
// the extra row and reports that more follow.
func ExampleFromFunc_uncounted() {
	logLines := []string{"12:04 deploy ok", "12:01 deploy started", "11:58 tests passed", "11:52 push"} // newest first
	query := bounded.FromFunc(func(_ context.Context, r driver.Request) ([]string, int, error) {
		end := min(r.Offset+r.Limit+1, len(logLines))    // LIMIT r.Limit+1
		return logLines[min(r.Offset, end):end], -1, nil // -1: not counted
	})
	r, _ := bounded.Limits{Default: 2, Max: 10}.Normalize(bounded.Page{})
	rows, err := query.Fetch(context.Background(), r)
	fmt.Println(rows.Items, rows.More, err)
	// Output: [12:04 deploy ok 12:01 deploy started] true <nil>
}
