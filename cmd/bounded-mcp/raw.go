package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/internal/jtree"
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
type held struct{ tokens }

// tokens holds bytes by a random token, each until it is taken or for
// heldTTL.
type tokens struct {
	mu      sync.Mutex
	results map[string]heldResult
}

type heldResult struct {
	raw []byte
	at  time.Time
}

func newHeld() *held { return &held{tokens{results: map[string]heldResult{}}} }

// put keeps raw and returns its token, 32 hex digits; it drops what
// waited over heldTTL.
func (t *tokens) put(raw []byte) string {
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, r := range t.results {
		if now.Sub(r.at) > heldTTL {
			delete(t.results, k)
		}
	}
	t.results[token] = heldResult{raw: raw, at: now}
	return token
}

// take returns and forgets the bytes of token.
func (t *tokens) take(token string) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.results[token]
	delete(t.results, token)
	return r.raw, ok
}

// heldTransport is an upstream transport whose connection holds the
// results of tool calls ([heldConn]).
type heldTransport struct {
	mcp.Transport
	h *held
}

func (t heldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	calls := new(sync.Map)
	inner := t.Transport
	if io, ok := inner.(*mcp.IOTransport); ok {
		// Over stdio the results are held before the SDK reads them.
		swapped := *io
		swapped.Reader = &swapReader{r: io.Reader, calls: calls, h: t.h}
		inner = &swapped
	}
	c, err := inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &heldConn{Connection: c, h: t.h, calls: calls}, nil
}

// heldConn is an upstream connection that answers the SDK's tool calls
// with a stand-in naming a token, and keeps the result as it came under
// that token: the proxy decodes it only when it must bound it, and
// passes a result within the budget as it came ([held.take]).
type heldConn struct {
	mcp.Connection
	h *held
	// calls are the IDs of the tool calls in flight, by their JSON, with
	// when each was sent.
	calls *sync.Map
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
		c.calls.Store(idKey(r.ID), now)
	}
	return c.Connection.Write(ctx, m)
}

func (c *heldConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil {
		if _, call := c.calls.LoadAndDelete(idKey(r.ID)); call && r.Error == nil && len(r.Result) > 0 {
			r.Result = c.h.hold(r.Result)
		}
	}
	return m, err
}

// idKey is id as JSON-RPC writes it: a number's digits, a string quoted.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return ""
}

// swapReader reads an upstream's stdout and gives the SDK the results
// of the tool calls in flight as stand-ins, held as they came: the SDK
// reads the short stand-in, not the result. A message is a JSON object
// within a line, at the top of the stream or in a batch; anything else
// passes as it came, and so does a message swapReader cannot read (a key
// with an escape, an id written otherwise than the SDK wrote it), which
// heldConn holds once the SDK has read it.
type swapReader struct {
	r     io.Reader
	calls *sync.Map
	h     *held
	chunk []byte
	// out is what Read gives next; msg the message being read, in which
	// depth, str and esc are the scanner's state.
	out, msg []byte
	depth    int
	str, esc bool
	err      error
}

func (s *swapReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			if len(s.msg) > 0 { // cut off: as it came
				s.out, s.msg = s.msg, nil
				break
			}
			return 0, s.err
		}
		if s.chunk == nil {
			s.chunk = make([]byte, 64<<10)
		}
		n, err := s.r.Read(s.chunk)
		s.feed(s.chunk[:n])
		s.err = err
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

func (s *swapReader) Close() error {
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// feed scans b, appending what is ready to s.out.
func (s *swapReader) feed(b []byte) {
	for i := 0; i < len(b); {
		if s.depth == 0 {
			// Between messages: up to the next object as it came.
			j := bytes.IndexByte(b[i:], '{')
			if j < 0 {
				s.out = append(s.out, b[i:]...)
				return
			}
			s.out = append(s.out, b[i:i+j]...)
			i += j
		}
		start := i
		for ; i < len(b); i++ {
			c := b[i]
			if c == '\n' {
				// Messages are one line each: a line the scanner has
				// not closed is no message it reads.
				break
			}
			if s.str {
				switch {
				case s.esc:
					s.esc = false
				case c == '\\':
					s.esc = true
				case c == '"':
					s.str = false
				}
				continue
			}
			switch c {
			case '"':
				s.str = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
			}
			if s.depth == 0 {
				i++
				break
			}
		}
		s.msg = append(s.msg, b[start:i]...)
		switch {
		case s.depth == 0:
			s.out = append(s.out, s.swap(s.msg)...)
			s.msg = s.msg[:0:0]
		case i < len(b): // a newline within the message
			s.out = append(s.out, s.msg...)
			s.msg = s.msg[:0:0]
			s.depth, s.str, s.esc = 0, false, false
		}
	}
}

// maxResultDepth is the deepest result swapReader holds: the SDK reads
// messages 1,000 deep.
const maxResultDepth = 999

// swap returns msg, one JSON object, with its result held and replaced
// by a stand-in when it answers a tool call in flight; else msg.
func (s *swapReader) swap(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"result"`)) {
		return msg
	}
	var id, result []byte
	at := 0
	ok := members(msg, func(key string, v []byte) bool {
		switch key {
		case "id":
			id = v
		case "result":
			result = v
			at = cap(msg) - cap(v) // where v starts in msg
		}
		return true
	})
	if !ok || id == nil || len(result) == 0 || result[0] != '{' || jtree.Valid(result, maxResultDepth) != nil {
		return msg
	}
	if _, call := s.calls.LoadAndDelete(string(id)); !call {
		return msg
	}
	stand := s.h.hold(result) // msg is not read again: feed starts the next one anew
	out := make([]byte, 0, at+len(stand)+len(msg)-at-len(result))
	return append(append(append(out, msg[:at]...), stand...), msg[at+len(result):]...)
}

// hold keeps result, which the caller no longer uses, and returns its
// stand-in: a result with no content, whose _meta names the token.
func (h *held) hold(result json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"content":[],"_meta":{"` + keyHeld + `":"` + h.put(result) + `"}}`)
}

// take returns the result res stands in for, as the upstream wrote it;
// nil when res is not a stand-in.
func (h *held) take(res *mcp.CallToolResult) []byte {
	token, ok := res.Meta[keyHeld].(string)
	if !ok || len(res.Content) > 0 || len(res.Meta) != 1 {
		return nil
	}
	raw, _ := h.tokens.take(token)
	return raw
}

// decodeResult decodes raw, a tool result as the upstream wrote it, with
// its structured content as it came (json.RawMessage): not decoded into
// maps, to be encoded again. A result of texts is read by [decodeTexts];
// any other by encoding/json.
func decodeResult(raw []byte) (*mcp.CallToolResult, error) {
	if res, ok := decodeTexts(raw); ok {
		return res, nil
	}
	return decodeAny(raw)
}

// decodeAny is decodeResult by encoding/json.
func decodeAny(raw []byte) (*mcp.CallToolResult, error) {
	var structured []byte
	if bytes.Contains(raw, []byte(`"structuredContent"`)) {
		start := -1
		members(raw, func(key string, v []byte) bool {
			if key == "structuredContent" {
				start, structured = cap(raw)-cap(v), v[:len(v):len(v)]
				return false
			}
			return true
		})
		if start >= 0 {
			end := start + len(structured)
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

// decodeTexts decodes raw, valid JSON, when it is a result whose members
// are content, structuredContent, isError, _meta and a complete
// resultType, once each, and whose
// content is texts with a type and a text alone: as json.Unmarshal
// would, without its reflection. It reports false for any other result.
func decodeTexts(raw []byte) (*mcp.CallToolResult, bool) {
	res := new(mcp.CallToolResult)
	var seen [5]bool
	once := func(i int) bool {
		ok := !seen[i]
		seen[i] = true
		return ok
	}
	ok := members(raw, func(key string, v []byte) bool {
		switch key {
		case "content":
			res.Content = []mcp.Content{}
			return once(0) && elements(v, func(e []byte) bool {
				var typed, hasText bool
				var text string
				ok := members(e, func(key string, v []byte) bool {
					switch {
					case key == "type" && !typed:
						typed = string(v) == `"text"`
						return typed
					case key == "text" && !hasText:
						text, hasText = unquote(v)
						return hasText
					}
					return false
				})
				if !ok || !typed || !hasText {
					return false
				}
				res.Content = append(res.Content, &mcp.TextContent{Text: text})
				return true
			})
		case "structuredContent":
			if string(v) != "null" {
				res.StructuredContent = json.RawMessage(v)
			}
			return once(1)
		case "isError":
			res.IsError = string(v) == "true"
			return once(2) && (res.IsError || string(v) == "false")
		case "_meta":
			return once(3) && len(v) > 0 && v[0] == '{' && json.Unmarshal(v, &res.Meta) == nil
		case "resultType":
			// The SDK's field is unexported: a result that asks for
			// input is left to encoding/json.
			return once(4) && string(v) == `"complete"`
		}
		return false
	})
	if !ok || !seen[0] {
		return nil, false
	}
	if seen[4] {
		// Set as the SDK sets it, with no other field.
		var typed mcp.CallToolResult
		if json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &typed) != nil {
			return nil, false
		}
		typed.Meta, typed.Content, typed.StructuredContent, typed.IsError = res.Meta, res.Content, res.StructuredContent, res.IsError
		res = &typed
	}
	return res, true
}

// members calls f with the key and the value of each member of the
// object b, in order, while f returns true. It reports false when b is
// not an object, a key has an escape, or f returned false. b is valid
// JSON: members checks its shape, not its grammar.
func members(b []byte, f func(key string, v []byte) bool) bool {
	return each(b, '{', '}', f)
}

// elements calls f with each element of the array b, in order, while f
// returns true. It reports false when b is not an array or f returned
// false. b is valid JSON.
func elements(b []byte, f func(e []byte) bool) bool {
	return each(b, '[', ']', func(_ string, e []byte) bool { return f(e) })
}

// each calls f with each member (open '{') or element (open '[') of b.
func each(b []byte, open, close byte, f func(key string, v []byte) bool) bool {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != open {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return skipSpace(b, i+1) == len(b)
	}
	for i < len(b) {
		var key []byte
		if open == '{' {
			if b[i] != '"' {
				return false
			}
			end := jtree.SkipString(b, i)
			if bytes.IndexByte(b[i:end], '\\') >= 0 {
				return false
			}
			key = b[i+1 : end-1]
			if i = skipSpace(b, end); i == len(b) || b[i] != ':' {
				return false
			}
			i = skipSpace(b, i+1)
		}
		end := valueEnd(b, i)
		if end < 0 || !f(string(key), b[i:end]) {
			return false
		}
		if i = skipSpace(b, end); i == len(b) {
			return false
		}
		switch b[i] {
		case close:
			return skipSpace(b, i+1) == len(b)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return false
		}
	}
	return false
}

// valueEnd returns where the JSON value at b[i] ends; -1 when it does
// not. b is valid JSON.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	if c := b[i]; c == '"' || c == '{' || c == '[' {
		return jtree.SkipValue(b, i)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// unquote returns the JSON string v as json.Unmarshal decodes it.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if in := v[1 : len(v)-1]; utf8.Valid(in) && !hasControl(in) {
		return jtree.Unquote(v), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// hasControl reports whether b holds a control character, which JSON
// strings may not hold unescaped.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
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

// splicePrefix opens the stand-in a result passed whole is encoded as
// when the client's connection splices ([splicer]).
const splicePrefix = `{"content":[],"_meta":{"boundedkit/passed":"`

// splicer writes a client's stdio stream, with each stand-in of a result
// passed whole replaced by the result's bytes: the SDK encodes the short
// stand-in, not the result, which goes out as the upstream wrote it. The
// SDK writes each message in one Write, and a stand-in is JSON
// structure, never inside a string, naming a token only this process
// knows.
type splicer struct {
	w io.Writer
	tokens
}

func newSplicer(w io.Writer) *splicer {
	return &splicer{w: w, tokens: tokens{results: map[string]heldResult{}}}
}

// standIn keeps whole and returns what the SDK encodes in its place;
// bytes no message names go after heldTTL.
func (s *splicer) standIn(whole []byte) []byte {
	return []byte(splicePrefix + s.put(whole) + `"}}`)
}

func (s *splicer) Write(p []byte) (int, error) {
	i := bytes.Index(p, []byte(splicePrefix))
	if i < 0 {
		return s.w.Write(p)
	}
	out := make([]byte, 0, len(p))
	rest := p
	for i >= 0 {
		tokenAt := i + len(splicePrefix)
		end := tokenAt + 32 + len(`"}}`)
		if end > len(rest) || string(rest[tokenAt+32:end]) != `"}}` {
			out = append(out, rest[:tokenAt]...)
			rest = rest[tokenAt:]
		} else {
			if raw, ok := s.take(string(rest[tokenAt : tokenAt+32])); ok {
				out = append(append(out, rest[:i]...), raw...)
			} else {
				out = append(out, rest[:end]...)
			}
			rest = rest[end:]
		}
		i = bytes.Index(rest, []byte(splicePrefix))
	}
	out = append(out, rest...)
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
