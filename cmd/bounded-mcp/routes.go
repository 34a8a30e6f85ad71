//lint:file-ignore SA1019 a proxy forwards what the protocol deprecates too: logging, sampling, roots.

package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newProtocol is the first protocol version without sessions, in which a
// server may not ask the client anything outside a request's result.
const newProtocol = "2026-07-28"

// routes finds the client session and request that a message of the
// upstream belongs to: progress by its token, and logs, sampling,
// elicitation and roots by the requests in flight.
type routes struct {
	mu       sync.Mutex
	seq      int64
	tokens   map[string]route
	inflight map[*mcp.ServerSession]map[int64]context.Context
	levels   map[*mcp.ServerSession]mcp.LoggingLevel
}

// route is a client's request: its session, its context (which carries
// the stream its messages go on) and its progress token.
type route struct {
	ss    *mcp.ServerSession
	ctx   context.Context
	token any
}

func newRoutes() *routes {
	return &routes{tokens: map[string]route{}, inflight: map[*mcp.ServerSession]map[int64]context.Context{},
		levels: map[*mcp.ServerSession]mcp.LoggingLevel{}}
}

// begin notes a request of ss in flight until done is called.
func (r *routes) begin(ss *mcp.ServerSession, ctx context.Context) (done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	id := r.seq
	if r.inflight[ss] == nil {
		r.inflight[ss] = map[int64]context.Context{}
	}
	r.inflight[ss][id] = ctx
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.inflight[ss], id)
		if len(r.inflight[ss]) == 0 {
			delete(r.inflight, ss)
		}
	}
}

// outgoing returns the _meta of a request of ss forwarded upstream on l:
// the client's, without the keys of its own protocol; its progress token
// replaced by one of the proxy's, unique across clients; and its log
// level, for an upstream that takes it per request. release forgets the
// token.
func (p *proxy) outgoing(ctx context.Context, ss *mcp.ServerSession, meta mcp.Meta, l *link) (mcp.Meta, func()) {
	out := mcp.Meta{}
	for k, v := range meta {
		if !strings.HasPrefix(k, protocolKeys) {
			out[k] = v
		}
	}
	r := p.routes
	release := func() {}
	if tok, ok := meta["progressToken"]; ok && tok != nil {
		r.mu.Lock()
		r.seq++
		ours := fmt.Sprintf("bounded-mcp-%d", r.seq)
		r.tokens[ours] = route{ss: ss, ctx: context.WithoutCancel(ctx), token: tok}
		r.mu.Unlock()
		out["progressToken"] = ours
		// The upstream's last progress may be handled after its answer.
		release = func() {
			time.AfterFunc(progressGrace, func() {
				r.mu.Lock()
				delete(r.tokens, ours)
				r.mu.Unlock()
			})
		}
	}
	if ip := l.cs.InitializeResult(); ip != nil && ip.ProtocolVersion >= newProtocol {
		level, ok := meta[mcp.MetaKeyLogLevel]
		if !ok {
			r.mu.Lock()
			level, ok = r.levels[ss]
			r.mu.Unlock()
		}
		if ok {
			out[mcp.MetaKeyLogLevel] = level
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, release
}

// progressGrace is how long the progress of a request is forwarded after
// its answer: the client handles notifications after the answers that
// follow them.
const progressGrace = 5 * time.Second

// protocolKeys starts the _meta keys of the protocol itself, which belong
// to one connection.
const protocolKeys = "io.modelcontextprotocol/"

// setLevel notes the log level a client with a session set.
func (r *routes) setLevel(ss *mcp.ServerSession, level mcp.LoggingLevel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.levels[ss] = level
}

// progress forwards the upstream's progress to the request it belongs to.
func (p *proxy) progress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok, _ := req.Params.ProgressToken.(string)
	p.routes.mu.Lock()
	rt, ok := p.routes.tokens[tok]
	p.routes.mu.Unlock()
	if !ok {
		return
	}
	params := *req.Params
	params.ProgressToken = rt.token
	rt.ss.NotifyProgress(rt.ctx, &params)
}

// logMessage forwards the upstream's log message to every client session:
// one that set a level gets it as its level allows; one on the protocol
// without sessions gets it on a request in flight, if it has one.
func (p *proxy) logMessage(ctx context.Context, req *mcp.LoggingMessageRequest) {
	for ss := range p.server.Sessions() {
		if !legacy(ss) {
			if rctx := p.routes.requestOf(ss); rctx != nil {
				ss.Log(rctx, req.Params)
			}
			continue
		}
		ss.Log(ctx, req.Params)
	}
}

// requestOf returns the context of a request of ss in flight, or nil.
func (r *routes) requestOf(ss *mcp.ServerSession) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(r.inflight[ss])) {
		return r.inflight[ss][id]
	}
	return nil
}

// legacy reports whether ss speaks a protocol with sessions, in which the
// server may ask the client for sampling, elicitation and roots.
func legacy(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion < newProtocol
}

// errNoClient is the error of a request of the upstream that no client
// can answer.
var errNoClient = errors.New("bounded-mcp: no client session can answer this request")

// asker returns the client session, and the request in flight, that the
// upstream's request goes to: the only session, or the only one with
// requests in flight.
func (p *proxy) asker() (*mcp.ServerSession, context.Context, error) {
	var all []*mcp.ServerSession
	for ss := range p.server.Sessions() {
		all = append(all, ss)
	}
	p.routes.mu.Lock()
	var busy []*mcp.ServerSession
	for ss := range p.routes.inflight {
		busy = append(busy, ss)
	}
	p.routes.mu.Unlock()
	var ss *mcp.ServerSession
	switch {
	case len(all) == 1:
		ss = all[0]
	case len(busy) == 1:
		ss = busy[0]
	default:
		return nil, nil, fmt.Errorf("%w: %d sessions, %d with requests in flight", errNoClient, len(all), len(busy))
	}
	if !legacy(ss) {
		return nil, nil, fmt.Errorf("%w: the client speaks protocol %s, in which a server asks only within a result", errNoClient, newProtocol)
	}
	ctx := p.routes.requestOf(ss)
	if ctx == nil {
		ctx = context.Background()
	}
	return ss, ctx, nil
}

func (p *proxy) createMessage(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ss, rctx, err := p.asker()
	if err != nil {
		return nil, err
	}
	return ss.CreateMessage(merge(rctx, ctx), req.Params)
}

func (p *proxy) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	ss, rctx, err := p.asker()
	if err != nil {
		return nil, err
	}
	return ss.Elicit(merge(rctx, ctx), req.Params)
}

func (p *proxy) elicitationComplete(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if ss, rctx, err := p.asker(); err == nil {
		ss.NotifyElicitationComplete(rctx, req.Params)
	}
}

// merge returns rctx, the request a message goes with, ended when ctx,
// the upstream's request, ends too.
func merge(rctx, ctx context.Context) context.Context {
	out, cancel := context.WithCancel(rctx)
	stop := context.AfterFunc(ctx, cancel)
	context.AfterFunc(out, func() { stop() })
	return out
}

// syncRoots gives the upstream the roots of the client of ss, which it
// reads when it asks the proxy for roots.
func (p *proxy) syncRoots(ss *mcp.ServerSession) {
	ip := ss.InitializeParams()
	if !legacy(ss) || ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		return
	}
	go func() {
		res, err := ss.ListRoots(context.Background(), nil)
		if err != nil || res == nil {
			return
		}
		p.rootsMu.Lock()
		defer p.rootsMu.Unlock()
		var uris []string
		for _, r := range p.roots {
			uris = append(uris, r.URI)
		}
		p.client.RemoveRoots(uris...)
		p.roots = res.Roots
		p.client.AddRoots(res.Roots...)
	}()
}
