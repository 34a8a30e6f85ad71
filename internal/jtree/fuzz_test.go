package jtree

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks Parse against encoding/json: it accepts only valid
// JSON, compacts it as json.Compact does, and its nodes hold values.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `"\ud83d\ude00"`, `[1e400,-0.0,"\u0000"]`, "[\"a\xffb\"]", `{"a":1,"a":2}`, ` [ 1 , "x" ] `, `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Parse(b, 64)
		if err != nil {
			if json.Valid(b) && utf8.Valid(b) && !bytes.Contains(b, []byte("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[")) {
				var v any
				if json.Unmarshal(b, &v) == nil && err != nil && !isDup(err) && !deep(b) {
					t.Fatalf("Parse(%q) = %v; encoding/json accepts it", b, err)
				}
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("Parse(%q) accepted invalid JSON", b)
		}
		var want bytes.Buffer
		json.Compact(&want, b)
		if !bytes.Equal(tr.Src, want.Bytes()) {
			t.Fatalf("Src = %q, want %q", tr.Src, want.Bytes())
		}
		for _, n := range tr.Nodes {
			v := tr.Src[n.Start:n.End]
			if !json.Valid(v) || int(n.Runes) != utf8.RuneCount(v) {
				t.Fatalf("node %q: runes %d", v, n.Runes)
			}
			if v[0] == '"' {
				var s string
				json.Unmarshal(v, &s)
				if Unquote(v) != s || int(n.Count) != utf8.RuneCountInString(s) {
					t.Fatalf("string %q decodes to %q (%d runes), want %q", v, Unquote(v), n.Count, s)
				}
			}
		}
	})
}

func isDup(err error) bool { return errors.Is(err, ErrDuplicate) }

// deep reports nesting over Parse's limit in the fuzz test.
func deep(b []byte) bool {
	d, m := 0, 0
	for _, c := range b {
		switch c {
		case '[', '{':
			d++
			m = max(m, d)
		case ']', '}':
			d--
		}
	}
	return m >= 64
}
