package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"
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
	// The other response first, with the call in flight: only the
	// call's is held.
	sc := &scriptedConn{reads: []jsonrpc.Message{
		&jsonrpc.Response{ID: other, Result: json.RawMessage(`{"tools":[]}`)},
		&jsonrpc.Response{ID: call, Result: json.RawMessage(result)},
	}}
	c := &heldConn{Connection: sc, h: h, calls: new(sync.Map)}
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Request{ID: call, Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)},
		&jsonrpc.Request{ID: other, Method: "tools/list"},
	} {
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := c.Read(ctx); string(m.(*jsonrpc.Response).Result) != `{"tools":[]}` {
		t.Errorf("a response to tools/list became %s", m.(*jsonrpc.Response).Result)
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

// chunked reads r in reads of at most n bytes.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.b))
	copy(p, c.b[:k])
	c.b = c.b[k:]
	return k, nil
}

// swapped reads stream through a swapReader in reads of n bytes, with
// the calls ids in flight.
func swapped(t testing.TB, stream string, n int, h *held, ids ...string) string {
	calls := new(sync.Map)
	for _, id := range ids {
		calls.Store(id, time.Now())
	}
	out, err := io.ReadAll(&swapReader{r: &chunked{b: []byte(stream), n: n}, calls: calls, h: h})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestSwapReader: the result of a call in flight is held and its
// stand-in read in its place, however the stream is cut, in a batch too;
// the rest of the stream is read as it came, lines that are no message
// included.
func TestSwapReader(t *testing.T) {
	result := `{"content":[{"type":"text","text":"a \"}{\" \\\\ ["}],"structuredContent":{"a":[1,{"b":"]"}]}}`
	stream := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":"\"result\""}}` + "\n" +
		`garbage "{" ` + "\n" + `{"unclosed": [` + "\n" +
		`[{"jsonrpc":"2.0","id":3,"result":{"content":[]}}]` + "\n" +
		`{"result":` + result + `,"jsonrpc":"2.0","id":7}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"result":{"content":[]}}` + "\n" +
		`{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}` +
		`{"jsonrpc":"2.0","id":9,"result":` + result + `}`
	stand := regexp.MustCompile(`\{"content":\[\],"_meta":\{"boundedkit/held":"([0-9a-f]{32})"\}\}`)
	for n := 1; n <= len(stream); n++ {
		h := newHeld()
		got := swapped(t, stream, n, h, "7", "9", `"s"`, "3")
		held := 0
		back := stand.ReplaceAllStringFunc(got, func(m string) string {
			held++
			raw, _ := h.tokens.take(stand.FindStringSubmatch(m)[1])
			return string(raw)
		})
		// Those of 3 (in a batch), 7 and 9; not 8 (no call) nor "s" (an
		// error).
		if held != 3 || back != stream {
			t.Fatalf("reads of %d bytes: %s", n, got)
		}
	}
	// A result that is not JSON the SDK reads stays for the SDK to
	// refuse.
	bad := `{"jsonrpc":"2.0","id":1,"result":{"a":1,}}` + "\n"
	if got := swapped(t, bad, 7, newHeld(), "1"); got != bad {
		t.Errorf("read %s", got)
	}
}

// FuzzSwapReader: with no call in flight, a stream is read as it came,
// however it is cut.
func FuzzSwapReader(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`+"\n"+`{"a":"\"}"}`, 3)
	f.Add(`}}]] {"x":[{"y":"\\"}]} "unterminated {`, 1)
	f.Fuzz(func(t *testing.T, stream string, n int) {
		if n < 1 || n > 1<<16 {
			return
		}
		if got := swapped(t, stream, n, newHeld()); got != stream {
			t.Fatalf("read %q, want %q", got, stream)
		}
	})
}

// TestIDKey: the key of a call's ID is the ID as the stream writes it,
// which swapReader finds the call by.
func TestIDKey(t *testing.T) {
	n, _ := jsonrpc.MakeID(float64(7))
	s, _ := jsonrpc.MakeID("a\"b")
	if idKey(n) != "7" || idKey(s) != `"a\"b"` {
		t.Errorf("keys %s, %s", idKey(n), idKey(s))
	}
}

// TestDecodeAny: a result decodeTexts leaves to encoding/json keeps its
// structured content as it came.
func TestDecodeAny(t *testing.T) {
	raw := `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}], "structuredContent" : {"n":2.50,"s":"\u00e9"},"isError":false}`
	res, err := decodeResult([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := res.StructuredContent.(json.RawMessage)
	if _, img := res.Content[0].(*mcp.ImageContent); !ok || string(sc) != `{"n":2.50,"s":"\u00e9"}` || !img {
		t.Errorf("decoded %#v, structured %s", res, res.StructuredContent)
	}
}
