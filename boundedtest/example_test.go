package boundedtest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/boundedtest"
	"github.com/boundedkit/bounded/driver"
)

type task struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

func taskKeys(t task) []any { return []any{t.ID} }

var tasks = []task{{10, "write"}, {20, "review"}, {30, "test"}, {40, "ship"}}

// A store's test checks its source in one call. Each failure fails a
// subtest named after its walk, e.g. cursor/size=3/count=exact.
func ExampleTestSource() {
	var t *testing.T // the *testing.T of the store's TestListTasks
	boundedtest.TestSource(t, bounded.FromSlice(tasks).WithKeys(taskKeys), tasks)
}

func ExampleCheckSource() {
	src := bounded.FromSlice(tasks).WithKeys(taskKeys)
	fmt.Println(boundedtest.CheckSource(context.Background(), src, tasks))
	// Output: <nil>
}

func ExampleCheckSource_failure() {
	// A query whose count joins one row too many.
	query := func(_ context.Context, r driver.Request) ([]task, int, error) {
		end := min(r.Offset+r.Limit, len(tasks))
		return tasks[min(r.Offset, end):end], len(tasks) + 1, nil
	}
	err := boundedtest.CheckSource(context.Background(), bounded.FromFunc(query), tasks)
	first, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Println(first)
	// Output: offset/size=1/count=exact: FetchPage(limit=1, offset=0, count=exact): Total is 5 (exact), want 4
}

// liveTasks is a store of tasks in ID order that changes while it is
// read.
type liveTasks struct {
	mu    sync.Mutex
	tasks []task
}

func (s *liveTasks) Fetch(ctx context.Context, r driver.Request) (driver.Rows[task], error) {
	s.mu.Lock()
	snapshot := slices.Clone(s.tasks)
	s.mu.Unlock()
	return bounded.FromSlice(snapshot).WithKeys(taskKeys).Fetch(ctx, r)
}

func ExampleOptions_CheckSource() {
	store := &liveTasks{tasks: slices.Clone(tasks)}
	o := boundedtest.Options[task]{
		Limits: bounded.Limits{Default: 2, Max: 10},
		// Between pages, add a task and drop the first one.
		Mutate: func(_ context.Context, step int) ([]task, error) {
			store.mu.Lock()
			defer store.mu.Unlock()
			store.tasks = append(store.tasks[1:], task{ID: int64(100 + step), Title: "new"})
			return slices.Clone(store.tasks), nil
		},
	}
	fmt.Println(o.CheckSource(context.Background(), store, tasks))
	// Output: <nil>
}

// A store whose tool pages 20 tasks by default, at most 100, is checked
// with those limits.
func ExampleOptions_TestSource() {
	var t *testing.T // the *testing.T of the store's TestListTasks
	o := boundedtest.Options[task]{Limits: bounded.Limits{Default: 20, Max: 100}}
	o.TestSource(t, bounded.FromSlice(tasks).WithKeys(taskKeys), tasks)
}
