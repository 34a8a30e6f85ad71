package main

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

// fitTries caps the boundings of one result that keep to a profile's
// lines and bytes.
const fitTries = 4

// fit returns res bounded to prof: within its budget, and within its
// lines and bytes, bounded again to a smaller budget while it is not.
func (p *proxy) fit(ctx context.Context, req *mcp.CallToolRequest, prof profile.Profile, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	call := result.Call{Tool: req.Params.Name, Args: argsOf(req.Params.Arguments), Principal: p.principal(req.Session)}
	budget := prof.Budget
	for try := 1; ; try++ {
		out, err := mcpresult.Bound(ctx, p.cfg.bounder, budget, call, res)
		if err != nil || out == nil {
			return out, err
		}
		texts := textsOf(out)
		if prof.Fits(texts...) || try == fitTries {
			return out, nil
		}
		smaller, ok := shrink(budget, prof, texts)
		if !ok {
			return out, nil
		}
		budget = smaller
	}
}

// shrink returns a budget under which a result whose texts are over
// prof's lines or bytes should keep to them, or false when no budget a
// result may have is smaller.
func shrink(b bounded.Budget, prof profile.Profile, texts []string) (bounded.Budget, bool) {
	chars, lines, bytes := 0, 0, 0
	for _, t := range texts {
		chars += utf8.RuneCountInString(t)
		bytes += len(t)
		for _, c := range t {
			if c == '\n' {
				lines++
			}
		}
		lines++
	}
	share := 1.0
	if prof.MaxLines > 0 && lines > prof.MaxLines {
		share = min(share, float64(prof.MaxLines)/float64(lines))
	}
	if prof.MaxBytes > 0 && bytes > prof.MaxBytes {
		share = min(share, float64(prof.MaxBytes)/float64(bytes))
	}
	limit := int(float64(min(chars, b.LimitChars())) * share * 0.9)
	if limit >= b.LimitChars() || b.LimitChars() <= result.MinChars {
		return b, false
	}
	return bounded.Budget{MaxChars: max(limit, result.MinChars), MaxTokens: b.LimitTokens(), Margin: 1,
		Tokenizer: b.Tokenizer, CharsPerToken: b.CharsPerToken}, true
}

// textsOf returns what the model reads of res: its text blocks, or its
// structured content when it has none.
func textsOf(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	if len(out) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		out = append(out, string(b))
	}
	return out
}

// principal is whose snapshots a session reads, as mcpresult.Serve
// binds handles: -principal's name, or the session's ID.
func (p *proxy) principal(ss *mcp.ServerSession) string {
	if p.cfg.principal != "" {
		return p.cfg.principal
	}
	if ss == nil {
		return ""
	}
	return ss.ID()
}
