// Package mcpresult bounds the results of MCP tools on the official Go
// SDK: every tool of a server written without bounded ([Serve]), or every
// tool a host calls on servers it does not control ([Client]). The rest of
// a cut result is read by one tool, read_result, and as a resource.
//
// A server:
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "runs"}, nil)
//	mcp.AddTool(server, &mcp.Tool{Name: "list_runs"}, listRuns) // any tool
//	store, _ := sqlresult.OpenSQLite(ctx, "results.db", result.Quota{})
//	mcpresult.Serve(server, result.New(store, result.Options{Key: key}), mcpresult.Options{Budget: bounded.ClaudeCode()})
//
// A host:
//
//	c := mcpresult.NewClient(session, result.New(result.NewMemory(result.Quota{}), result.Options{}), "user-1", mcpresult.Options{})
//	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "list_runs"}) // bounded; c.ReadTool() goes in the model's tool list
package mcpresult

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/result"
)

// MetaBounded is the key of a tool's _meta that marks a tool whose results
// keep to a budget already: Serve leaves its results alone. The read tool
// has it.
const MetaBounded = "boundedkit/bounded"

// MetaReport is the key of a bounded result's _meta holding its
// result.Report: the handle, the cuts and the next read, for programs.
const MetaReport = "boundedkit/result"

// metaMaxResultSizeChars is the _meta key that mcptools gives its tools
// (mcptools.MetaMaxResultSizeChars).
const metaMaxResultSizeChars = "anthropic/maxResultSizeChars"

// Options configure Serve and Client.
type Options struct {
	// Budget bounds every result and read; the zero Budget is bounded's
	// default.
	Budget bounded.Budget
	// Tools sets budgets and opt-outs by tool name.
	Tools map[string]Tool
	// BudgetFor, when set, returns the budget of one call of a server
	// (e.g. by the client's name), over Budget and Tools' budgets.
	BudgetFor func(ctx context.Context, req *mcp.CallToolRequest) bounded.Budget
	// Principal, when set, names the principal of a server's call, whose
	// handles no other principal can use; nil means the session's ID.
	Principal func(ctx context.Context, session *mcp.ServerSession) string
}

// Tool is one tool's policy.
type Tool struct {
	// Budget, when set, replaces Options.Budget for the tool.
	Budget *bounded.Budget
	// Skip leaves the tool's results as they are.
	Skip bool
}

// budget returns the budget of a call of tool.
func (o *Options) budget(tool string) bounded.Budget {
	if t, ok := o.Tools[tool]; ok && t.Budget != nil {
		return *t.Budget
	}
	return o.Budget
}

// Bound returns res, a result of call, bounded to budget by b: passed
// whole when within it, else cut in its own shape with a note, the
// report in _meta under MetaReport. A result that cannot be bounded (over
// result.Options.MaxBytes, structured content that is not JSON) is an
// isError result saying why. res may be changed: structured content is
// replaced by its JSON.
func Bound(ctx context.Context, b *result.Bounder, budget bounded.Budget, call result.Call, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if res == nil {
		return nil, nil
	}
	if _, done := res.Meta[MetaReport]; done {
		return res, nil
	}
	r, err := fromMCP(res)
	if err != nil {
		return errorResult(fmt.Sprintf("The result of %s could not be bounded: %v.", call.Tool, err)), nil
	}
	out, err := b.Bound(ctx, budget, call, r)
	switch {
	case errors.Is(err, bounded.ErrInvalidBudget), ctx.Err() != nil:
		return nil, err
	case err != nil:
		return errorResult(fmt.Sprintf("The result of %s could not be bounded: %v. Call it again with narrower arguments.", call.Tool, err)), nil
	case out.Report == nil:
		return res, nil
	}
	return toMCP(res, out), nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// argsOf decodes a call's arguments, or returns none.
func argsOf(raw []byte) bounded.Args {
	var a bounded.Args
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

// ReadTool returns the definition of b's read tool, for a host's tool
// list or a server's.
func ReadTool(b *result.Bounder) *mcp.Tool {
	o := b.Options()
	return &mcp.Tool{
		Name: o.ReadTool,
		Description: "Reads the rest of a tool result that was cut to fit: call it with the arguments a cut result or an answer names, " +
			"then with each answer's next. Handles expire after " + ttl(o) + ".",
		InputSchema: json.RawMessage(readSchema),
		Meta:        mcp.Meta{MetaBounded: true},
	}
}

func ttl(o result.Options) string {
	s := o.TTL.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}

const readSchema = `{"type":"object","properties":{` +
	`"handle":{"type":"string"},` +
	`"pointer":{"type":"string","description":"JSON Pointer of the value read; default the whole result"},` +
	`"offset":{"type":"integer","minimum":0,"description":"first element or member of an array or object"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10000},` +
	`"lineOffset":{"type":"integer","minimum":0,"description":"first line of a text"},` +
	`"charOffset":{"type":"integer","minimum":0,"description":"first character of that line"},` +
	`"maxLines":{"type":"integer","minimum":1,"maximum":2000},` +
	`"cursor":{"type":"string","description":"stands for a long pointer, as next gives it"}},` +
	`"required":["handle"],"additionalProperties":false}`

// Read answers a call of the read tool with raw arguments, for principal:
// the answer's JSON as text, or an isError result that says what to call
// instead.
func Read(ctx context.Context, b *result.Bounder, budget bounded.Budget, principal string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a result.ReadArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if len(raw) == 0 || dec.Decode(&a) != nil || a.Handle == "" {
		return errorResult(fmt.Sprintf("Invalid arguments %s: %s takes handle, and optionally pointer or cursor, offset, limit, lineOffset, charOffset and maxLines, as a cut result names them.",
			clipped(raw), b.Options().ReadTool)), nil
	}
	ans, err := b.Read(ctx, budget, principal, a)
	var he *result.HandleError
	switch {
	case errors.As(err, &he):
		return errorResult(capital(he.Error()) + "."), nil
	case errors.Is(err, result.ErrInvalidRead):
		return errorResult(capital(err.Error()) + "."), nil
	case err != nil:
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(ans.JSON)}}}, nil
}

// clipped returns raw cut short for an error message.
func clipped(raw []byte) string {
	s, _ := bounded.Clip(string(raw), 80)
	return s
}

func capital(s string) string {
	s = strings.TrimPrefix(s, "result: ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
