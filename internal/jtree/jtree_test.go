package jtree

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, in string
		err      error
	}{
		{"number", "-12.5e+3", nil},
		{"digits", strings.Repeat("9", 400), nil},
		{"empty", "", ErrSyntax},
		{"nan", `{"x":NaN}`, ErrSyntax},
		{"leading zero", "01", ErrSyntax},
		{"trailing comma", "[1,]", ErrSyntax},
		{"two values", "1 2", ErrSyntax},
		{"control", "\"a\x01\"", ErrSyntax},
		{"bad escape", `"\x"`, ErrSyntax},
		{"utf8", "\"\xff\"", ErrUTF8},
		{"duplicate", `{"a":1,"a":2}`, ErrDuplicate},
		{"duplicate escaped", `{"a":1,"\u0061":2}`, ErrDuplicate},
		{"duplicate many", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"b":2}`, ErrDuplicate},
		{"same key apart", `{"a":{"a":1},"b":{"a":2}}`, nil},
		{"deep", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), ErrDepth},
		{"pretty", "{ \"a\" : [ 1 , 2 ] ,\n \"b\": \"" + long + "\" }", nil},
		{"unclosed", `{"a":[1,2}`, ErrSyntax},
		{"lone surrogate", `"\ud800"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Parse([]byte(tc.in), 10_000)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Parse(%.40q) = %v, want %v", tc.in, err, tc.err)
			}
			if err != nil {
				return
			}
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tc.in)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tr.Src, want.Bytes()) {
				t.Errorf("Src = %s, want %s", tr.Src, want.Bytes())
			}
		})
	}
}

func TestNodes(t *testing.T) {
	long := strings.Repeat("é", 70)
	in := `{"a":[1,2,3],"b":"` + long + `","c":[` + strings.Repeat(`"`+long+`",`, 3) + `{}],"d":"a\nb` + strings.Repeat("z", 70) + `"}`
	tr, err := Parse([]byte(in), 100)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range tr.Nodes {
		v := tr.Src[n.Start:n.End]
		if !json.Valid(v) {
			t.Errorf("node %d: %s is not a value", i, v)
		}
		if int(n.Runes) != utf8.RuneCount(v) {
			t.Errorf("node %d: runes %d, want %d", i, n.Runes, utf8.RuneCount(v))
		}
		if v[0] == '"' {
			var s string
			json.Unmarshal(v, &s)
			if int(n.Count) != utf8.RuneCountInString(s) || Unquote(v) != s {
				t.Errorf("node %d: count %d, want %d", i, n.Count, utf8.RuneCountInString(s))
			}
		}
	}
	var keys []string
	tr.Children(0, 0, func(c Child) bool {
		keys = append(keys, string(c.Key)+"="+string(tr.Src[c.Start:c.End])[:1])
		return true
	})
	if got := strings.Join(keys, " "); got != `"a"=[ "b"=" "c"=[ "d"="` {
		t.Errorf("children: %s", got)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c\n\t\x01", "é\u2028x", "\xff<>&"} {
		got := AppendString(nil, s)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if want := bytes.TrimSpace(b.Bytes()); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if Unquote(got) != strings.ToValidUTF8(s, "\uFFFD") {
			t.Errorf("Unquote(%s) = %q", got, Unquote(got))
		}
	}
}

func TestPointer(t *testing.T) {
	toks, ok := SplitPointer("/a~1b/~0c/0")
	if !ok || strings.Join(toks, "|") != "a/b|~c|0" {
		t.Errorf("SplitPointer = %q, %v", toks, ok)
	}
	if _, ok := SplitPointer("a"); ok {
		t.Error("SplitPointer(a) ok")
	}
	if _, ok := SplitPointer("/~2"); ok {
		t.Error("SplitPointer(/~2) ok")
	}
	if EscapeToken("a/b~") != "a~1b~0" {
		t.Error(EscapeToken("a/b~"))
	}
	if _, ok := Index("01"); ok {
		t.Error("Index(01) ok")
	}
}
