package bounded_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// The hint tells the agent where the page sits and the exact call that
// continues it, with 0-based pages as the tool takes them.
func ExampleCall_Hint() {
	call := bounded.Call{
		Tool:         "search_knowledge",
		Args:         bounded.Args{{Name: "query", Value: "auth"}},
		Paging:       bounded.ByPage,
		DefaultLimit: 100,
	}
	docs := bounded.FromSlice(make([]string, 350)) // 350 documents match "auth"
	limits := bounded.Limits{Default: 100, Max: 500}
	pg, _ := bounded.FetchPage(context.Background(), docs, "", bounded.Page{}, limits, driver.Codec{})
	fmt.Println(call.Hint(pg.Page, bounded.HintFull))
	fmt.Println(call.Hint(pg.Page, bounded.HintTerse))

	// The last page, asked with a limit over the maximum.
	pg, _ = bounded.FetchPage(context.Background(), docs, "", bounded.Page{Limit: 1000}, limits, driver.Codec{})
	fmt.Println(call.Hint(pg.Page, bounded.HintFull))

	// A capped count that stopped at 10,000.
	capped := bounded.PageInfo{Total: 10_000, TotalKind: bounded.TotalAtLeast, Limit: 100, Returned: 100, HasMore: true, NextOffset: 100}
	fmt.Println(call.Hint(capped, bounded.HintFull))
	// Output:
	// Found 350 results, showing 1-100 (page 1 of 4). 3 pages remain: call search_knowledge(query="auth", page=1) for the next.
	// 1-100 of 350. Next: search_knowledge(query="auth", page=1)
	// Found 350 results, showing 1-350 (page 1 of 1). This is the last page. The limit 1,000 is over the maximum; 500 was used.
	// Found 10,000+ results, showing 1-100. More remain: call search_knowledge(query="auth", page=1) for the next.
}

// Next is the whole argument list of the call that continues: the caller's
// arguments, then the pagination ones the tool takes.
func ExampleCall_Next() {
	call := bounded.Call{
		Tool:         "list_tasks",
		Args:         bounded.Args{{Name: "project", Value: "apollo"}, {Name: "status", Value: "open"}},
		Paging:       bounded.ByPage,
		DefaultLimit: 20,
	}
	tasks := bounded.FromSlice(make([]string, 75)) // 75 open tasks in apollo
	limits := bounded.Limits{Default: 20, Max: 100}
	pg, _ := bounded.FetchPage(context.Background(), tasks, "", bounded.Page{Offset: 20}, limits, driver.Codec{})
	info := pg.Page // tasks 21-40 of 75

	next, ok := call.Next(info)
	fmt.Println(call.Render(next), ok)

	// A budget kept 7 of the 20 tasks: the next call continues by offset.
	next, _ = call.Next(info.Cut(7))
	fmt.Println(call.Render(next))

	// The last page has no next call.
	last, _ := bounded.FetchPage(context.Background(), tasks, "", bounded.Page{Offset: 60}, limits, driver.Codec{})
	_, ok = call.Next(last.Page)
	fmt.Println(ok)
	// Output:
	// list_tasks(project="apollo", status="open", page=2) true
	// list_tasks(project="apollo", status="open", offset=27)
	// false
}

// Render writes a call as an agent would type it, its values as JSON.
func ExampleCall_Render() {
	call := bounded.Call{Tool: "search_notes"}
	fmt.Println(call.Render(bounded.Args{
		{Name: "query", Value: "café \"menu\""},
		{Name: "tags", Value: []string{"food", "paris"}},
		{Name: "limit", Value: 5},
	}))
	// Output:
	// search_notes(query="café \"menu\"", tags=["food","paris"], limit=5)
}

// Arguments keep their order in JSON, and MarshalJSON escapes no HTML.
// json.Marshal escapes it again, as it does the output of every MarshalJSON;
// an Encoder with SetEscapeHTML(false) does not.
func ExampleArgs_MarshalJSON() {
	args := bounded.Args{
		{Name: "query", Value: "tags:<urgent> & due<2024-06"},
		{Name: "status", Value: "open"},
		{Name: "limit", Value: 20},
	}
	b, _ := args.MarshalJSON()
	fmt.Println(string(b))
	b, _ = json.Marshal(args)
	fmt.Println(string(b))
	// Output:
	// {"query":"tags:<urgent> & due<2024-06","status":"open","limit":20}
	// {"query":"tags:\u003curgent\u003e \u0026 due\u003c2024-06","status":"open","limit":20}
}

// An agent's next call decodes back into ordered arguments; numbers stay
// exact as json.Number.
func ExampleArgs_UnmarshalJSON() {
	var args bounded.Args
	err := json.Unmarshal([]byte(`{"query":"Zoë","offset":9007199254740991,"archived":false}`), &args)
	fmt.Println(err)
	for _, a := range args {
		fmt.Printf("%s=%v (%T)\n", a.Name, a.Value, a.Value)
	}
	offset, _ := args.Get("offset")
	fmt.Println(offset)

	err = json.Unmarshal([]byte(`{"query":"a","query":"b"}`), &args)
	fmt.Println(err)
	// Output:
	// <nil>
	// query=Zoë (string)
	// offset=9007199254740991 (json.Number)
	// archived=false (bool)
	// 9007199254740991
	// bounded: argument "query" given twice
}

// A response's next call holds the arguments that continue it; Get reads
// one by name.
func ExampleArgs_Get() {
	tasks := []string{"write spec", "review PR", "fix flaky test", "tag release"}
	call := bounded.Call{Tool: "list_tasks", Args: bounded.Args{{Name: "project", Value: "apollo"}}}
	out, _ := bounded.Respond(context.Background(), bounded.FromSlice(tasks), call, bounded.Page{Limit: 2}, bounded.Options[string]{Limits: bounded.Limits{Default: 10, Max: 50}})

	project, _ := out.Next.Get("project")
	offset, ok := out.Next.Get("offset")
	fmt.Println(project, offset, ok)
	_, ok = out.Next.Get("cursor")
	fmt.Println(ok)
	// Output:
	// apollo 2 true
	// false
}
