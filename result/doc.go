// Package result bounds the result of any tool, one nobody here wrote, to
// a budget, and reads the rest of it later exactly once.
//
// A result is JSON, plain text, or an MCP content list ([Result]). Within
// its budget it passes whole and untouched. Otherwise [Bounder.Bound]
// returns it in the same shape, cut to fit, with a note naming every cut
// by JSON Pointer (RFC 6901), with counts and the read call for the rest.
// The whole original is kept as a snapshot in a [Store] behind a signed,
// expiring handle bound to the caller's principal. [Bounder.Read] answers
// those read calls: a page of an array or an object's members, or a
// window of a text, each within the budget, with the next call. Following
// next alone reads all the preview left out, once.
//
//	b := result.New(result.NewMemory(result.Quota{}), result.Options{Key: key})
//	bd, err := b.Bound(ctx, bounded.ClaudeCode(), result.Call{Tool: "list_runs", Principal: session}, result.JSON(body))
//	// bd.Result goes to the model; later, for its read_result call:
//	ans, err := b.Read(ctx, bounded.ClaudeCode(), session, args)
//
// Stores: [NewMemory] here, SQLite and Postgres in package sqlresult;
// package resulttest checks any store. Package mcpresult serves all this
// on the official MCP Go SDK, for servers and for hosts.
package result
