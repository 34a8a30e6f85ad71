//lint:file-ignore SA1019 a proxy forwards what the protocol deprecates too: logging, sampling, roots.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

// config is what a proxy needs; flags fill it.
type config struct {
	dial     dialer
	profiles *profile.Set
	// client, when set, names the profile of every client.
	client string
	// principal, when set, binds every handle to it instead of the
	// client's session.
	principal string
	// tools sets limits or opt-outs by tool name.
	tools       map[string]toolPolicy
	bounder     *result.Bounder
	callTimeout time.Duration
	backoff     time.Duration
	logger      *slog.Logger
	// protocol is the version asked of the upstream; "" for the latest.
	protocol string
}

// toolPolicy is one tool's limits over the client's profile, or its
// opt-out.
type toolPolicy struct {
	limits profile.Limits
	skip   bool
}

// proxy serves an upstream MCP server's features through its own server,
// every tool result bounded to the client's profile.
type proxy struct {
	cfg    config
	client *mcp.Client
	up     *upstream
	server *mcp.Server
	mirror *mirror
	routes *routes
	// held holds the results of tool calls on their way, and passed
	// the bytes of those callTool passes whole, as the upstream wrote
	// them.
	held   *held
	passed passed
	// splice, when set, writes the client's stream: a result passed
	// whole is encoded as a stand-in it replaces.
	splice *splicer

	subMu sync.Mutex
	subs  map[string]int // resource subscriptions by URI

	rootsMu sync.Mutex
	roots   []*mcp.Root // the client's, which the upstream reads
}

// newProxy connects to the upstream and returns the proxy serving it.
func newProxy(ctx context.Context, cfg config) (*proxy, error) {
	p := &proxy{cfg: cfg, routes: newRoutes(), subs: map[string]int{}}
	p.client = mcp.NewClient(&mcp.Implementation{Name: "bounded-mcp", Version: version()}, &mcp.ClientOptions{
		Logger:                     cfg.logger,
		ToolListChangedHandler:     func(ctx context.Context, r *mcp.ToolListChangedRequest) { p.resync(r.Session) },
		PromptListChangedHandler:   func(ctx context.Context, r *mcp.PromptListChangedRequest) { p.resync(r.Session) },
		ResourceListChangedHandler: func(ctx context.Context, r *mcp.ResourceListChangedRequest) { p.resync(r.Session) },
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			p.server.ResourceUpdated(ctx, r.Params)
		},
		LoggingMessageHandler:       p.logMessage,
		ProgressNotificationHandler: p.progress,
		CreateMessageHandler:        p.createMessage,
		ElicitationHandler:          p.elicit,
		ElicitationCompleteHandler:  p.elicitationComplete,
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		// What the proxy forwards to its clients, which answer for
		// themselves.
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
	})
	p.held = newHeld()
	dial := func(ctx context.Context) (mcp.Transport, *process, error) {
		t, proc, err := cfg.dial(ctx)
		switch t.(type) {
		case *mcp.IOTransport, *mcp.CommandTransport, *mcp.InMemoryTransport:
			// Their connections learn nothing of the client session's
			// state, which a wrapper would hide from them.
			t = heldTransport{Transport: t, h: p.held}
		}
		return t, proc, err
	}
	p.up = &upstream{dial: dial, client: p.client, proto: cfg.protocol, backoff: cfg.backoff, log: cfg.logger,
		onUp: p.restarted}
	cs, err := p.up.start(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to the upstream server: %w", err)
	}
	init := cs.InitializeResult()
	opts := &mcp.ServerOptions{
		Instructions:            init.Instructions,
		Logger:                  cfg.logger,
		Capabilities:            capabilities(init.Capabilities),
		InitializedHandler:      p.initialized,
		RootsListChangedHandler: func(ctx context.Context, r *mcp.RootsListChangedRequest) { p.syncRoots(r.Session) },
	}
	if c := init.Capabilities; c != nil && c.Completions != nil {
		opts.CompletionHandler = p.complete
	}
	if c := init.Capabilities; c != nil && c.Resources != nil && c.Resources.Subscribe {
		opts.SubscribeHandler, opts.UnsubscribeHandler = p.subscribe, p.unsubscribe
	}
	p.server = mcp.NewServer(serverInfo(init.ServerInfo), opts)
	p.server.AddReceivingMiddleware(p.receive)
	skips := map[string]mcpresult.Tool{}
	for name, tp := range cfg.tools {
		if tp.skip {
			skips[name] = mcpresult.Tool{Skip: true}
		}
	}
	mcpresult.Serve(p.server, cfg.bounder, mcpresult.Options{BudgetFor: p.budgetFor, Tools: skips,
		Principal: func(_ context.Context, ss *mcp.ServerSession) string { return p.principal(ss) }})
	p.mirror = newMirror(p)
	p.mirror.sync(ctx, cs)
	return p, nil
}

// initialized logs the client's profile and takes its roots.
func (p *proxy) initialized(ctx context.Context, r *mcp.InitializedRequest) {
	if ip := r.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		prof := p.profileFor(&mcp.CallToolRequest{Session: r.Session})
		p.cfg.logger.Info("client connected", "name", ip.ClientInfo.Name, "version", ip.ClientInfo.Version, "profile", prof.Describe())
	}
	p.syncRoots(r.Session)
}

// restarted serves what the restarted upstream of cs offers, and renews
// the clients' resource subscriptions with it.
func (p *proxy) restarted(ctx context.Context, cs *mcp.ClientSession) {
	p.mirror.sync(ctx, cs)
	p.subMu.Lock()
	defer p.subMu.Unlock()
	for uri := range p.subs {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			p.cfg.logger.Warn("subscribing the restarted upstream", "uri", uri, "err", err)
		}
	}
}

// close stops the upstream and waits for it.
func (p *proxy) close() { p.up.close() }

// serverInfo is the upstream's implementation, named as served through
// the proxy.
func serverInfo(up *mcp.Implementation) *mcp.Implementation {
	if up == nil {
		return &mcp.Implementation{Name: "bounded-mcp", Version: version()}
	}
	info := *up
	return &info
}

// capabilities are the upstream's, with the tools and resources the
// proxy adds.
func capabilities(up *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{}
	if up != nil {
		c.Experimental, c.Extensions, c.Logging = up.Experimental, up.Extensions, up.Logging
		if up.Prompts != nil {
			c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		}
		if up.Resources != nil {
			c.Resources = &mcp.ResourceCapabilities{Subscribe: up.Resources.Subscribe}
		}
	}
	c.Tools = &mcp.ToolCapabilities{ListChanged: true}
	if c.Resources == nil {
		c.Resources = &mcp.ResourceCapabilities{}
	}
	c.Resources.ListChanged = true
	return c
}

// profileFor returns the profile of a call: the client's, with the
// tool's limits.
func (p *proxy) profileFor(req *mcp.CallToolRequest) profile.Profile {
	var prof profile.Profile
	if p.cfg.client != "" {
		prof, _ = p.cfg.profiles.Named(p.cfg.client)
	} else {
		prof = p.cfg.profiles.ForRequest(req)
	}
	if req != nil && req.Params != nil {
		if tp, ok := p.cfg.tools[req.Params.Name]; ok && !tp.skip {
			prof = prof.With(tp.limits)
		}
	}
	return prof
}

func (p *proxy) budgetFor(_ context.Context, req *mcp.CallToolRequest) bounded.Budget {
	return p.profileFor(req).Budget
}

// receive forwards what the mirror does not hold: resources read by URI
// (those of snapshots aside) and the client's logging level; and it
// notes each session's requests in flight.
func (p *proxy) receive(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss != nil && !strings.HasPrefix(method, "notifications/") && method != "subscriptions/listen" {
			done := p.routes.begin(ss, ctx)
			defer done()
		}
		switch method {
		case "tools/call":
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok {
				if whole := p.passed.take(r); whole != nil && err == nil {
					if p.splice != nil {
						whole = p.splice.standIn(whole)
					}
					return passedResult{CallToolResult: r, whole: whole}, nil
				}
			}
			return res, err
		case "resources/read":
			r, ok := req.(*mcp.ReadResourceRequest)
			if ok && !strings.HasPrefix(r.Params.URI, p.cfg.bounder.Options().ResourcePrefix) {
				return p.readResource(ctx, r)
			}
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if r, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams]); ok && err == nil {
				p.routes.setLevel(ss, r.Params.Level)
				if l, err := p.up.current(); err == nil && l.cs.InitializeResult().ProtocolVersion < newProtocol {
					l.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: r.Params.Level})
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callTool forwards a call to the upstream and bounds its result to the
// caller's profile.
func (p *proxy) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	l, err := p.up.current()
	if err != nil {
		return errorResult(fmt.Sprintf("The upstream server cannot take calls: %v. Call %s again later.", err, name)), nil
	}
	prof := p.profileFor(req)
	tp, hasPolicy := p.cfg.tools[name]
	skip := hasPolicy && tp.skip
	args := req.Params.Arguments
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage("{}") // servers that validate want an object
	}
	if b, ok := p.mirror.budgets(name); ok && !skip {
		args = prof.LowerArgs(args, b)
	}
	meta, release := p.outgoing(ctx, req.Session, req.Params.Meta, l)
	defer release()
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if p.cfg.callTimeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, p.cfg.callTimeout)
	}
	defer cancel()
	res, err := l.cs.CallTool(cctx, &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState})
	if err != nil {
		return p.callError(ctx, cctx, l, "call of "+name, err)
	}
	if whole := p.held.take(res); whole != nil {
		if skip || passesWhole(prof, p.cfg.bounder.Options().MaxBinaryBytes, whole) {
			// Passed as it came: receive writes it so.
			p.passed.store(res, whole)
			return res, nil
		}
		if res, err = decodeResult(whole); err != nil {
			return errorResult(fmt.Sprintf("The upstream server's result of %s is not one MCP reads: %v.", name, err)), nil
		}
		out, err := p.fit(ctx, req, prof, res)
		if err == nil && out == res {
			p.passed.store(res, whole) // passed whole, after all
		}
		return out, err
	}
	if skip {
		return res, nil
	}
	return p.fit(ctx, req, prof, res)
}

// callError turns the error of a forwarded request into what the client
// gets: its own cancellation, a protocol error as the upstream sent it,
// or an isError result saying what happened and what to do.
func (p *proxy) callError(ctx, cctx context.Context, l *link, what string, err error) (*mcp.CallToolResult, error) {
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return errorResult(fmt.Sprintf("The upstream server gave no answer to the %s within %s; the call was cancelled. Call again, perhaps with narrower arguments.",
			what, p.cfg.callTimeout)), nil
	case fromUpstream(err):
		return nil, err
	}
	if why := l.wait(l.grace()); why != "" {
		return errorResult(fmt.Sprintf("The upstream server stopped during the %s: %s. It is being restarted; call again in a few seconds.", what, why)), nil
	}
	p.up.reset(l)
	return errorResult(fmt.Sprintf("The %s failed: %v. The connection to the upstream server is being reset; call again in a few seconds.", what, err)), nil
}

// fromUpstream reports whether err is a JSON-RPC error the upstream sent,
// not one the SDK makes of a connection that failed (codes -32003 to
// -32005: closing, or rejected by the transport).
func fromUpstream(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && (rpcErr.Code < -32005 || rpcErr.Code > -32003)
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// forward is the error of a forwarded request other than a tool call:
// the upstream's, or one that says why it failed.
func (p *proxy) forward(ctx context.Context, what string, do func(l *link) error) error {
	l, err := p.up.current()
	if err != nil {
		return fmt.Errorf("the upstream server cannot take requests: %v", err)
	}
	err = do(l)
	if err == nil || ctx.Err() != nil || fromUpstream(err) {
		return err
	}
	if why := l.wait(l.grace()); why != "" {
		return fmt.Errorf("the upstream server stopped during %s: %s", what, why)
	}
	return fmt.Errorf("%s failed: %w", what, err)
}

// forwardRequest forwards a request of ss whose _meta is meta: send
// makes it on l with the _meta to send.
func forwardRequest[R any](p *proxy, ctx context.Context, what string, ss *mcp.ServerSession, meta mcp.Meta, send func(l *link, meta mcp.Meta) (R, error)) (res R, err error) {
	err = p.forward(ctx, what, func(l *link) error {
		m, release := p.outgoing(ctx, ss, meta, l)
		defer release()
		res, err = send(l, m)
		return err
	})
	return res, err
}

func (p *proxy) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return forwardRequest(p, ctx, "prompts/get", req.Session, req.Params.Meta, func(l *link, m mcp.Meta) (*mcp.GetPromptResult, error) {
		params := *req.Params
		params.Meta = m
		return l.cs.GetPrompt(ctx, &params)
	})
}

func (p *proxy) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return forwardRequest(p, ctx, "resources/read", req.Session, req.Params.Meta, func(l *link, m mcp.Meta) (*mcp.ReadResourceResult, error) {
		params := *req.Params
		params.Meta = m
		return l.cs.ReadResource(ctx, &params)
	})
}

func (p *proxy) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return forwardRequest(p, ctx, "completion/complete", req.Session, req.Params.Meta, func(l *link, m mcp.Meta) (*mcp.CompleteResult, error) {
		params := *req.Params
		params.Meta = m
		return l.cs.Complete(ctx, &params)
	})
}

// subscribe subscribes upstream to a resource the first time a client
// does.
func (p *proxy) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	p.subMu.Lock()
	defer p.subMu.Unlock()
	if p.subs[req.Params.URI] > 0 {
		p.subs[req.Params.URI]++
		return nil
	}
	err := p.forward(ctx, "resources/subscribe", func(l *link) error { return l.cs.Subscribe(ctx, req.Params) })
	if err == nil {
		p.subs[req.Params.URI]++
	}
	return err
}

// unsubscribe unsubscribes upstream when the last client does.
func (p *proxy) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	p.subMu.Lock()
	defer p.subMu.Unlock()
	if p.subs[req.Params.URI] > 1 {
		p.subs[req.Params.URI]--
		return nil
	}
	delete(p.subs, req.Params.URI)
	return p.forward(ctx, "resources/unsubscribe", func(l *link) error { return l.cs.Unsubscribe(ctx, req.Params) })
}

// resync mirrors the upstream's features again after it said they
// changed.
func (p *proxy) resync(cs *mcp.ClientSession) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p.mirror.sync(ctx, cs)
	}()
}

// argsOf decodes a call's arguments, or returns none.
func argsOf(raw json.RawMessage) bounded.Args {
	var a bounded.Args
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}
