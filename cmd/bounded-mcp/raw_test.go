package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAside checks that structured content set aside comes back as it
// came, byte for byte, and that results without it pass unchanged.
func TestAside(t *testing.T) {
	a := newAside()
	for _, tc := range []struct{ result, structured string }{
		{`{"content":[{"type":"text","text":"x"}],"structuredContent":{"b":[1,2.50,{"c":"\"structuredContent\""}],"a":"Zürich"}}`,
			`{"b":[1,2.50,{"c":"\"structuredContent\""}],"a":"Zürich"}`},
		{`{ "structuredContent" :  [ 1 , 2 ] , "content" : [] , "isError" : false }`, `[ 1 , 2 ]`},
		{`{"content":[{"type":"text","text":"{\"structuredContent\":1}"}]}`, ""},
		{`{"content":[],"_meta":{"structuredContent":{"x":1}}}`, ""},
		{`{"content":[]}`, ""},
		{`[1]`, ""},
		{`{"structuredContent":`, ""},
	} {
		out := a.setAside(json.RawMessage(tc.result))
		if tc.structured == "" {
			if string(out) != tc.result {
				t.Errorf("setAside(%s) = %s, want it unchanged", tc.result, out)
			}
			continue
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("setAside(%s) = %s: %v", tc.result, out, err)
		}
		a.restore(&res)
		raw, ok := res.StructuredContent.(json.RawMessage)
		if !ok || string(raw) != tc.structured {
			t.Errorf("setAside(%s): restored %#v, want %s", tc.result, res.StructuredContent, tc.structured)
		}
		if len(a.held) != 0 {
			t.Errorf("setAside(%s): %d held after restore", tc.result, len(a.held))
		}
	}
	// A stand-in of a token not held, or a result not set aside, stays.
	res := &mcp.CallToolResult{StructuredContent: map[string]any{keyStructured: "nope"}}
	a.restore(res)
	if _, ok := res.StructuredContent.(map[string]any); !ok {
		t.Errorf("restore of an unknown token gave %#v", res.StructuredContent)
	}
	// What no call takes back goes after asideTTL.
	a.setAside(json.RawMessage(`{"structuredContent":{"x":1}}`))
	for k, h := range a.held {
		h.at = time.Now().Add(-2 * asideTTL)
		a.held[k] = h
	}
	a.setAside(json.RawMessage(`{"structuredContent":{"y":2}}`))
	if len(a.held) != 1 {
		t.Errorf("%d held, want the expired one gone", len(a.held))
	}
	for _, h := range a.held {
		if !strings.Contains(string(h.raw), `"y"`) {
			t.Errorf("held %s, want the new one", h.raw)
		}
	}
}
