package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
)

// keyHeld is the key of the stand-in's _meta naming the result held
// ([heldConn]).
const keyHeld = "boundedkit/held"

// heldTTL is how long a result held waits for its call, which may have
// been cancelled.
const heldTTL = time.Minute

// held keeps the results of tool calls as the upstream wrote them, by
// token, until the call that gets the result takes it.
type held struct {
	mu      sync.Mutex
	results map[string]heldResult
}

type heldResult struct {
	raw []byte
	at  time.Time
}

func newHeld() *held { return &held{results: map[string]heldResult{}} }

// heldTransport is an upstream transport whose connection holds the
// results of tool calls ([heldConn]).
type heldTransport struct {
	mcp.Transport
	h *held
}

func (t heldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &heldConn{Connection: c, h: t.h}, nil
}

// heldConn is an upstream connection that answers the SDK's tool calls
// with a stand-in naming a token, and keeps the result as it came under
// that token: the proxy decodes it only when it must bound it, and
// passes a result within the budget as it came ([held.take]).
type heldConn struct {
	mcp.Connection
	h *held
	// calls are the IDs of the tool calls in flight, with when each was
	// sent.
	calls sync.Map
}

func (c *heldConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" && r.ID.IsValid() {
		now := time.Now()
		c.calls.Range(func(id, at any) bool {
			if now.Sub(at.(time.Time)) > heldTTL { // cancelled, never answered
				c.calls.Delete(id)
			}
			return true
		})
		c.calls.Store(r.ID, now)
	}
	return c.Connection.Write(ctx, m)
}

func (c *heldConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil {
		if _, call := c.calls.LoadAndDelete(r.ID); call && r.Error == nil && len(r.Result) > 0 {
			r.Result = c.h.hold(r.Result)
		}
	}
	return m, err
}

// hold keeps result and returns its stand-in: a result with no content,
// whose _meta names the token.
func (h *held) hold(result json.RawMessage) json.RawMessage {
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	now := time.Now()
	h.mu.Lock()
	for k, r := range h.results {
		if now.Sub(r.at) > heldTTL {
			delete(h.results, k)
		}
	}
	h.results[token] = heldResult{raw: bytes.Clone(result), at: now}
	h.mu.Unlock()
	return json.RawMessage(`{"content":[],"_meta":{"` + keyHeld + `":"` + token + `"}}`)
}

// take returns the result res stands in for, as the upstream wrote it;
// nil when res is not a stand-in.
func (h *held) take(res *mcp.CallToolResult) []byte {
	token, ok := res.Meta[keyHeld].(string)
	if !ok || len(res.Content) > 0 || len(res.Meta) != 1 {
		return nil
	}
	h.mu.Lock()
	r, ok := h.results[token]
	delete(h.results, token)
	h.mu.Unlock()
	if !ok {
		return nil
	}
	return r.raw
}

// decodeResult decodes raw, a tool result as the upstream wrote it, with
// its structured content as it came (json.RawMessage): not decoded into
// maps, to be encoded again.
func decodeResult(raw []byte) (*mcp.CallToolResult, error) {
	var structured []byte
	if bytes.Contains(raw, []byte(`"structuredContent"`)) {
		if start, end, ok := memberValue(raw, "structuredContent"); ok {
			structured = raw[start:end:end]
			raw = append(append(append([]byte(nil), raw[:start]...), "null"...), raw[end:]...)
		}
	}
	res := new(mcp.CallToolResult)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, err
	}
	if structured != nil && string(structured) != "null" {
		res.StructuredContent = json.RawMessage(structured)
	}
	return res, nil
}

// passesWhole reports whether raw, a tool result as the upstream wrote
// it, keeps to prof without being read: its bytes, at least the
// characters and bytes of its texts, within the characters, the bytes,
// the binary limit and half the tokens, as result.Bounder's check of a
// result's size settles it; and prof has no limit on lines. Otherwise
// the result is decoded and bounded, and the proxy still writes it as it
// came when it passes whole.
func passesWhole(prof profile.Profile, maxBinary int, raw []byte) bool {
	n := len(raw)
	return n <= prof.Budget.LimitChars() && 2*n <= prof.Budget.LimitTokens() && n <= maxBinary &&
		(prof.MaxBytes == 0 || n <= prof.MaxBytes) && prof.MaxLines == 0
}

// passed holds, by result, the bytes callTool passes a result with,
// until receive writes them; those of a call that fails on its way (a
// cancellation) go after heldTTL.
type passed struct {
	mu      sync.Mutex
	results map[*mcp.CallToolResult]heldResult
}

func (p *passed) store(res *mcp.CallToolResult, whole []byte) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.results == nil {
		p.results = map[*mcp.CallToolResult]heldResult{}
	}
	for k, r := range p.results {
		if now.Sub(r.at) > heldTTL {
			delete(p.results, k)
		}
	}
	p.results[res] = heldResult{raw: whole, at: now}
}

// take returns and forgets the bytes res is passed with; nil for none.
func (p *passed) take(res *mcp.CallToolResult) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.results[res]
	delete(p.results, res)
	if !ok {
		return nil
	}
	return r.raw
}

// passedResult is a result passed whole, written as the upstream wrote
// it: the SDK does not encode it again.
type passedResult struct {
	*mcp.CallToolResult
	whole []byte
}

func (r passedResult) MarshalJSON() ([]byte, error) { return r.whole, nil }

// memberValue returns where the value of the top-level member key of
// the JSON object b starts and ends.
func memberValue(b []byte, key string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		name, _ := t.(string)
		from := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false
		}
		if name == key {
			// Past the colon and any space before the value.
			rest := b[from:]
			skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n:"))
			return from + skip, int(dec.InputOffset()), true
		}
	}
	return 0, 0, false
}
