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
)

// keyStructured is the member of the stand-in for structured content set
// aside ([asideConn]).
const keyStructured = "boundedkit/structured"

// asideTTL is how long structured content set aside waits for its call,
// which may have been cancelled.
const asideTTL = time.Minute

// aside holds the structured content of upstream results as it came, by
// token, until the call that gets the result takes it back.
type aside struct {
	mu   sync.Mutex
	held map[string]heldJSON
}

type heldJSON struct {
	raw []byte
	at  time.Time
}

func newAside() *aside { return &aside{held: map[string]heldJSON{}} }

// asideTransport is an upstream transport whose connection sets
// structured content aside.
type asideTransport struct {
	mcp.Transport
	a *aside
}

func (t asideTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &asideConn{Connection: c, a: t.a}, nil
}

// asideConn is an upstream connection that replaces the structured
// content of each result by a stand-in naming a token, and keeps the
// content as it came under that token: the SDK then neither decodes it
// into maps nor the proxy encodes it again ([aside.restore]).
type asideConn struct {
	mcp.Connection
	a *aside
}

func (c *asideConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil && r.Error == nil {
		r.Result = c.a.setAside(r.Result)
	}
	return m, err
}

// setAside returns result with its structuredContent replaced by a
// stand-in, kept by token; result as it is when it has none, or is not
// one JSON object.
func (a *aside) setAside(result json.RawMessage) json.RawMessage {
	at := bytes.Index(result, []byte(`"structuredContent"`))
	if at < 0 || bytes.TrimSpace(result)[0] != '{' {
		return result
	}
	start, end, ok := memberValue(result, "structuredContent")
	if !ok {
		return result
	}
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	now := time.Now()
	a.mu.Lock()
	for k, h := range a.held {
		if now.Sub(h.at) > asideTTL {
			delete(a.held, k)
		}
	}
	a.held[token] = heldJSON{raw: bytes.Clone(result[start:end]), at: now}
	a.mu.Unlock()
	out := make([]byte, 0, len(result)-(end-start)+64)
	out = append(out, result[:start]...)
	out = append(out, `{"`+keyStructured+`":"`+token+`"}`...)
	return append(out, result[end:]...)
}

// restore puts back the structured content of res set aside.
func (a *aside) restore(res *mcp.CallToolResult) {
	m, ok := res.StructuredContent.(map[string]any)
	if !ok || len(m) != 1 {
		return
	}
	token, ok := m[keyStructured].(string)
	if !ok {
		return
	}
	a.mu.Lock()
	h, ok := a.held[token]
	delete(a.held, token)
	a.mu.Unlock()
	if ok {
		res.StructuredContent = json.RawMessage(h.raw)
	}
}

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
