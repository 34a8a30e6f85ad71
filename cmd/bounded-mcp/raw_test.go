package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/profile"
)

// scriptedConn is a connection whose reads are given in advance.
type scriptedConn struct {
	reads   []jsonrpc.Message
	written []jsonrpc.Message
}

func (c *scriptedConn) Read(context.Context) (jsonrpc.Message, error) {
	m := c.reads[0]
	c.reads = c.reads[1:]
	return m, nil
}
func (c *scriptedConn) Write(_ context.Context, m jsonrpc.Message) error {
	c.written = append(c.written, m)
	return nil
}
func (c *scriptedConn) Close() error      { return nil }
func (c *scriptedConn) SessionID() string { return "" }

// TestHeld checks that the result of a tool call is held as it came, its
// stand-in taken back for it once, and that other responses pass as
// they are.
func TestHeld(t *testing.T) {
	ctx := context.Background()
	h := newHeld()
	call, _ := jsonrpc.MakeID(float64(7))
	other, _ := jsonrpc.MakeID(float64(8))
	result := `{"content":[{"type":"text","text":"Zürich\n东京"}],"structuredContent":{"b":[1,2.50],"a":"\"structuredContent\""},"isError":false}`
	sc := &scriptedConn{reads: []jsonrpc.Message{
		&jsonrpc.Response{ID: call, Result: json.RawMessage(result)},
		&jsonrpc.Response{ID: other, Result: json.RawMessage(`{"tools":[]}`)},
	}}
	c := &heldConn{Connection: sc, h: h}
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Request{ID: call, Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)},
		&jsonrpc.Request{ID: other, Method: "tools/list"},
	} {
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	m, _ := c.Read(ctx)
	var res mcp.CallToolResult
	if err := json.Unmarshal(m.(*jsonrpc.Response).Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 0 || res.Meta[keyHeld] == nil {
		t.Fatalf("the stand-in is %s", m.(*jsonrpc.Response).Result)
	}
	if got := h.take(&res); string(got) != result {
		t.Errorf("took %s, want the result as it came", got)
	}
	if got := h.take(&res); got != nil {
		t.Errorf("took it twice: %s", got)
	}
	if m, _ := c.Read(ctx); string(m.(*jsonrpc.Response).Result) != `{"tools":[]}` {
		t.Errorf("a response to tools/list became %s", m.(*jsonrpc.Response).Result)
	}
	// A result of the upstream's own with that _meta key is not taken.
	own := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, Meta: mcp.Meta{keyHeld: "nope"}}
	if h.take(own) != nil {
		t.Error("took a result that is no stand-in")
	}
	// What no call takes goes after heldTTL.
	h.hold(json.RawMessage(`{"content":[]}`))
	for k, r := range h.results {
		r.at = time.Now().Add(-2 * heldTTL)
		h.results[k] = r
	}
	h.hold(json.RawMessage(`{"content":[]}`))
	if len(h.results) != 1 {
		t.Errorf("%d held, want the expired one gone", len(h.results))
	}

	// The bytes a result passes with are taken once; those no call
	// takes go after heldTTL.
	var p passed
	kept, lost := &mcp.CallToolResult{}, &mcp.CallToolResult{}
	p.store(lost, []byte(`{"content":[]}`))
	p.results[lost] = heldResult{raw: p.results[lost].raw, at: time.Now().Add(-2 * heldTTL)}
	p.store(kept, []byte(result))
	if _, ok := p.results[lost]; ok {
		t.Error("bytes no call took are still held")
	}
	if got := p.take(kept); string(got) != result || p.take(kept) != nil {
		t.Errorf("took %s, then again", got)
	}

	dec, err := decodeResult([]byte(result))
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := dec.StructuredContent.(json.RawMessage)
	if !ok || string(raw) != `{"b":[1,2.50],"a":"\"structuredContent\""}` || dec.Content[0].(*mcp.TextContent).Text != "Zürich\n东京" {
		t.Errorf("decoded %#v", dec)
	}
}

// TestPassesWhole checks the limits a result passed as it came keeps to.
func TestPassesWhole(t *testing.T) {
	text := func(s string) []byte {
		b, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}})
		return b
	}
	claude := profile.Default().For("claude-code")
	codex := profile.Default().For("codex-mcp-client")
	for _, tc := range []struct {
		name string
		prof profile.Profile
		raw  []byte
		want bool
	}{
		{"short", claude, text("a short answer"), true},
		{"over the characters", claude, text(strings.Repeat("x", claude.Budget.LimitChars())), false},
		{"over the binary limit", claude, text(strings.Repeat("x", 100)), false},
		{"over the lines", codex, text(strings.Repeat("l\n", codex.MaxLines)), false},
		// Lines are counted on the texts, which an upstream may escape
		// as it likes (\u000a): a profile with lines reads the result.
		{"a profile with lines", codex, []byte(`{"content":[{"type":"text","text":"` + strings.Repeat(`l\u000a`, codex.MaxLines) + `"}]}`), false},
		{"a profile with lines, short", codex, text("a short answer"), false},
		// Over half the tokens, the texts' tokens are counted on them.
		{"over half the tokens", profile.Profile{Budget: bounded.Budget{MaxChars: 20_000, MaxTokens: 1000}}, text(strings.Repeat("ab ", 200)), false},
		{"over the tokens", profile.Profile{Budget: bounded.Budget{MaxChars: 20_000, MaxTokens: 1000}}, text(strings.Repeat("é ", 1500)), false},
	} {
		maxBinary := 1 << 20
		if tc.name == "over the binary limit" {
			maxBinary = 50
		}
		if got := passesWhole(tc.prof, maxBinary, tc.raw); got != tc.want {
			t.Errorf("%s: passesWhole = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzDecodeTexts: what decodeTexts reads of a result, encoding/json
// reads the same.
func FuzzDecodeTexts(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"Zürich\n东京 \"q\" \\"}],"structuredContent":{"a":[1,"]}"]},"isError":false}`,
		`{"content":[],"_meta":{"k":"v"},"isError":true}`,
		`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up"}},"content":[{"type":"text","text":"{\"records\":[]}"}],"structuredContent":{"records":[]},"resultType":"complete"}`,
		` { "content" : [ { "text" : "a\u0041" , "type" : "text" } ] , "structuredContent" : null } `,
		`{"content":[{"type":"text","text":"\ud83d\ude00 \u00e9"}],"structuredContent":"x\\\""}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
		`{"content":[{"type":"text","text":"a"}],"content":[]}`,
		`{"structuredContent":{"records":[{"id":1,"name":"r"}]},"content":[{"type":"text","text":"{\"records\":[{\"id\":1}]}"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		fast, ok := decodeTexts(raw)
		if !ok {
			return
		}
		slow, err := decodeAny(raw)
		if err != nil {
			t.Fatalf("decodeTexts read %s, which encoding/json refuses: %v", raw, err)
		}
		a, errA := json.Marshal(fast)
		b, errB := json.Marshal(slow)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s:\ndecodeTexts %s (%v)\nencoding/json %s (%v)", raw, a, errA, b, errB)
		}
	})
}

// TestDecodeTexts: results of texts are read without encoding/json's
// reflection; any other shape is left to it.
func TestDecodeTexts(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"content":[{"type":"text","text":"Zürich \"q\""}],"structuredContent":{"a":[1,"]}"]},"isError":false}`: true,
		` { "content" : [ ] , "_meta" : { "k" : 1 } } `:                                                          true,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`:                                    false,
		`{"content":[{"type":"text","text":"a","annotations":{"priority":1}}]}`:                                  false,
		`{"content":[{"type":"text","text":"a"}],"content":[]}`:                                                  false,
		`{"structuredContent":{}}`: false,
		`{"content":[],"other":1}`: false,
		`{"\u0063ontent":[]}`:      false,
	} {
		res, ok := decodeTexts([]byte(raw))
		if ok != want {
			t.Errorf("decodeTexts(%s) = %v, want %v", raw, ok, want)
			continue
		}
		if !ok {
			continue
		}
		slow, err := decodeAny([]byte(raw))
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(slow)
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("decodeTexts(%s) = %s, encoding/json %s (%v)", raw, a, b, err)
		}
	}
}
