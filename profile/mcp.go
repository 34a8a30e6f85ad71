package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
)

// ForRequest returns the profile of the client that sent req, by the name
// it gave at initialize.
func (s *Set) ForRequest(req *mcp.CallToolRequest) Profile {
	if req == nil {
		return s.unknown
	}
	if info := req.ClientInfo(); info != nil {
		return s.For(info.Name)
	}
	return s.unknown
}

// BudgetFor returns the budget of the client that sent req, for
// mcpresult.Options.BudgetFor.
func (s *Set) BudgetFor(_ context.Context, req *mcp.CallToolRequest) bounded.Budget {
	return s.ForRequest(req).Budget
}

// Budgets are the limits a bounded tool's arguments set: budget in
// characters, budgetTokens in tokens.
type Budgets struct{ Chars, Tokens int }

// ToolBudgets returns the largest budget and budgetTokens arguments t
// takes, and whether it takes both, as tools of package mcptools do.
func ToolBudgets(t *mcp.Tool) (Budgets, bool) {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return Budgets{}, false
	}
	type prop struct {
		Maximum *float64 `json:"maximum"`
	}
	var schema struct {
		Properties map[string]*prop `json:"properties"`
	}
	if json.Unmarshal(raw, &schema) != nil {
		return Budgets{}, false
	}
	c, t1 := schema.Properties["budget"]
	k, t2 := schema.Properties["budgetTokens"]
	if !t1 || !t2 || c == nil || k == nil {
		return Budgets{}, false
	}
	most := func(p *prop) int {
		if p.Maximum == nil || *p.Maximum >= math.MaxInt32 {
			return math.MaxInt32
		}
		return int(*p.Maximum)
	}
	return Budgets{Chars: most(c), Tokens: most(k)}, true
}

// LowerArgs returns the arguments args of a call to a tool that takes
// budgets up to most, with budget and budgetTokens lowered to p's limits.
// A budget the call gives under p's is kept; one p does not lower is left
// as it is. Arguments that are not a JSON object are returned as they
// are.
func (p Profile) LowerArgs(args json.RawMessage, most Budgets) json.RawMessage {
	chars := p.Budget.LimitChars()
	if p.MaxBytes > 0 {
		chars = min(chars, p.MaxBytes)
	}
	tokens := p.Budget.LimitTokens()
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		m = map[string]json.RawMessage{}
	} else if json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	changed := false
	lower := func(name string, limit, most int) {
		if limit <= 0 || limit >= most {
			return
		}
		var cur float64
		if v, ok := m[name]; ok && json.Unmarshal(v, &cur) == nil && cur <= float64(limit) {
			return
		}
		m[name], _ = json.Marshal(limit)
		changed = true
	}
	lower("budget", chars, most.Chars)
	lower("budgetTokens", tokens, most.Tokens)
	if !changed {
		return args
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

// Middleware returns receiving middleware for a server whose bounded
// tools (those of package mcptools, which take budget and budgetTokens)
// should answer each client within its profile: it lowers those
// arguments of every call to the caller's profile. Other tools' calls
// pass as they are.
func Middleware(s *Set) mcp.Middleware {
	var mu sync.Mutex
	known := map[string]*Budgets{} // by tool; nil: takes no budgets
	note := func(tools []*mcp.Tool) {
		mu.Lock()
		defer mu.Unlock()
		for _, t := range tools {
			if b, ok := ToolBudgets(t); ok {
				known[t.Name] = &b
			} else {
				known[t.Name] = nil
			}
		}
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil {
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && method == "tools/list" {
					note(lr.Tools)
				}
				return res, err
			}
			mu.Lock()
			b, seen := known[call.Params.Name]
			mu.Unlock()
			if !seen {
				note(listAll(ctx, next, call.Session))
				mu.Lock()
				b = known[call.Params.Name]
				mu.Unlock()
			}
			if b != nil {
				call.Params.Arguments = s.ForRequest(call).LowerArgs(call.Params.Arguments, *b)
			}
			return next(ctx, method, req)
		}
	}
}

// listAll lists the tools of a server through its method handler.
func listAll(ctx context.Context, next mcp.MethodHandler, ss *mcp.ServerSession) []*mcp.Tool {
	var all []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for range 1000 {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Params: params})
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok {
			break
		}
		all = append(all, lr.Tools...)
		if lr.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: lr.NextCursor}
	}
	return all
}
