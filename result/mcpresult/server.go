package mcpresult

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/result"
)

// Serve bounds the results of every tool of s, those added before and
// after, as Bound does, and adds the read tool and the snapshots as
// resources (result.Options.ResourcePrefix followed by the handle, and
// /content/<index> for a binary block). Left alone are the read tool,
// tools that Options.Tools skips, and tools already bounded: those whose
// _meta sets MetaBounded, and tools added through package mcptools.
//
// Handles are bound to the caller's session, or to the principal
// Options.Principal names.
func Serve(s *mcp.Server, b *result.Bounder, o Options) {
	srv := &server{b: b, o: o, read: b.Options().ReadTool, marked: map[string]bool{}}
	s.AddReceivingMiddleware(srv.receive)
	s.AddSendingMiddleware(srv.send)
	s.AddTool(ReadTool(b), srv.readTool)
	prefix := b.Options().ResourcePrefix
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "result", URITemplate: prefix + "{handle}",
		Description: "The whole of a tool result that was cut to fit."}, srv.resource)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "result-block", URITemplate: prefix + "{handle}/content/{index}",
		Description: "Binary data of a tool result that was cut to fit."}, srv.resource)
}

type server struct {
	b    *result.Bounder
	o    Options
	read string
	mu   sync.Mutex
	// marked says, by tool name, whether a tool bounds its own results;
	// it is cleared when the tool list changes.
	marked map[string]bool
}

func (s *server) principal(ctx context.Context, ss *mcp.ServerSession) string {
	if s.o.Principal != nil {
		return s.o.Principal(ctx, ss)
	}
	if ss == nil {
		return ""
	}
	return ss.ID()
}

func (s *server) budget(ctx context.Context, req *mcp.CallToolRequest) bounded.Budget {
	if s.o.BudgetFor != nil {
		return s.o.BudgetFor(ctx, req)
	}
	return s.o.budget(req.Params.Name)
}

func (s *server) receive(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		switch method {
		case "tools/list":
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				s.note(lr.Tools)
			}
		case "tools/call":
			cr, ok1 := req.(*mcp.CallToolRequest)
			tr, ok2 := res.(*mcp.CallToolResult)
			if err != nil || !ok1 || !ok2 || tr == nil {
				return res, err
			}
			name := cr.Params.Name
			if name == s.read || s.o.Tools[name].Skip || s.bounded(ctx, next, cr) {
				return res, nil
			}
			call := result.Call{Tool: name, Args: argsOf(cr.Params.Arguments), Principal: s.principal(ctx, cr.Session)}
			return Bound(ctx, s.b, s.budget(ctx, cr), call, tr)
		}
		return res, err
	}
}

// send forgets which tools bound themselves when the tool list changes.
func (s *server) send(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			s.mu.Lock()
			clear(s.marked)
			s.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// note records which of tools bound their own results.
func (s *server) note(tools []*mcp.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tools {
		s.marked[t.Name] = selfBounded(t)
	}
}

// bounded reports whether the tool req calls bounds its own results,
// listing the server's tools when it is not known yet.
func (s *server) bounded(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	name := req.Params.Name
	s.mu.Lock()
	marked, known := s.marked[name]
	s.mu.Unlock()
	if known {
		return marked
	}
	params := &mcp.ListToolsParams{}
	for range 100 {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: req.Session, Params: params})
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok {
			break
		}
		s.note(lr.Tools)
		if lr.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: lr.NextCursor}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marked[name]
}

// selfBounded reports whether a tool keeps its results to a budget: its
// _meta sets MetaBounded, or it is an mcptools tool (its _meta holds
// the client's size limit and it takes budget and budgetTokens).
func selfBounded(t *mcp.Tool) bool {
	if v, ok := t.Meta[MetaBounded]; ok {
		b, _ := v.(bool)
		return b
	}
	if _, ok := t.Meta[metaMaxResultSizeChars]; !ok {
		return false
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return false
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &schema) != nil {
		return false
	}
	_, b1 := schema.Properties["budget"]
	_, b2 := schema.Properties["budgetTokens"]
	return b1 && b2
}

func (s *server) readTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return Read(ctx, s.b, s.budget(ctx, req), s.principal(ctx, req.Session), req.Params.Arguments)
}

func (s *server) resource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	blk, err := s.b.Resource(ctx, s.principal(ctx, req.Session), uri)
	var he *result.HandleError
	switch {
	case errors.As(err, &he), errors.Is(err, result.ErrInvalidRead):
		return nil, mcp.ResourceNotFoundError(uri)
	case err != nil:
		return nil, err
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: blk.MIMEType, Text: blk.Text}
	if blk.Data != nil {
		rc.Blob, rc.Text = blk.Data, ""
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}
