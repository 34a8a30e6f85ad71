// Package mcptools serves bounded tools on the official MCP Go SDK: a
// tool over the caller's own data, registered in one call as
// mcp.AddTool registers a typed tool. Package mcpset serves the agent
// tool set of package tools beside it.
//
//	type listRuns struct {
//		Status string `json:"status,omitempty" jsonschema:"only runs with this status"`
//	}
//
//	mcptools.AddTool(server, &mcp.Tool{Name: "list_runs", Description: "Lists runs, newest first."},
//		mcptools.Options[Run]{Limits: bounded.Limits{Default: 20, Max: 100}},
//		func(ctx context.Context, req *mcp.CallToolRequest, in listRuns) (bounded.Source[Run], error) {
//			return bounded.FromSlice(runsWithStatus(in.Status)), nil
//		})
//
// The input schema is inferred from the arguments' type (listRuns) and
// given the paging arguments of [Options.Paging] (limit, offset and cursor,
// or page, pageSize, offset and cursor), budget and budgetTokens, each
// with its minimum, maximum and default. The handler returns a source
// ([bounded.FromSlice], [bounded.FromFunc], a bunpage query), paged as
// [bounded.Respond] pages: cursors bound to the tool and the arguments, a
// total, and a budget no response exceeds. Package mcptoolstest checks
// such a server through the SDK's client.
//
// A tool's arguments are parsed by package toolargs, as the set's are.
// [AddEnvelopeTool] serves a tool that parses its own arguments and
// writes its own envelope, as the set's tools do: mcpset.Add registers
// them with it.
//
// A tool has what the set's tools have, by its [Options]: a fields
// argument that keeps only the fields named (Fields), a detail argument
// (Concise), content clipped by the number of results (Clip, Content),
// and progress notifications while its handler runs (Progress).
//
// # Results
//
// A result is one envelope ([bounded.Envelope]): results, pagination,
// truncation, a hint naming the next call and next, its arguments (the
// call's own, as it gave them, and the paging ones). The envelope is the
// result's text and, the same JSON, its structuredContent, described by
// the tool's outputSchema: clients give the model one or the other (Claude
// Code the structuredContent, others the text), so a response takes its
// budget once in the model's context, and twice on the wire.
//
// A bad argument, a cursor of another query or a handler's error is a
// result with isError set and a message that says what to change (for a
// cursor: pass it as it came with the same arguments, or omit it to start
// over), never a protocol error. An unknown argument's message lists
// those the tool takes. A source that fails while it reads (a query the
// database refused) says so without its cause, which goes to the log.
// An error keeps to the call's budget: the names and values it repeats
// are cut short, and a longer message is cut in the middle.
//
// # Client limits
//
// A tool's _meta declares [MetaMaxResultSizeChars], the most characters
// of its results, so that Claude Code does not write a large result to a
// file. MAX_MCP_OUTPUT_TOKENS, the client's limit on one result in tokens,
// lowers every tool's token budget when the server's environment sets it
// ([ClientBudget]). A value no response fits in is raised to the
// smallest budget that answers, and one that is not a positive integer
// is ignored: the server starts, and logs a warning once.
package mcptools
