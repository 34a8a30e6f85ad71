package result

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
	"github.com/boundedkit/bounded/tokenizer"
)

// jv is a JSON value of a reassembly: scalars as written, strings
// decoded, members in order.
type jv struct {
	kind  byte // '[', '{', '"', 0
	raw   string
	str   string
	items []*jv
	keys  []string
}

func parseJV(t testing.TB, b []byte) *jv {
	t.Helper()
	tr, err := jtree.Parse(b, MaxDepth+3)
	if err != nil {
		t.Fatalf("parse %.80s: %v", b, err)
	}
	return jvOf(tr, 0, rootNode(tr))
}

func jvOf(t *jtree.Tree, start, n int) *jv {
	src := t.Src
	switch src[start] {
	case '"':
		return &jv{kind: '"', str: jtree.Unquote(src[start:jtree.SkipString(src, start)])}
	case '[', '{':
		v := &jv{kind: src[start]}
		if n < 0 {
			sub, _ := jtree.Parse(src[start:jtree.SkipValue(src, start)], MaxDepth+3)
			t, start, n = sub, 0, rootNode(sub)
		}
		t.Children(start, n, func(c jtree.Child) bool {
			if c.Key != nil {
				v.keys = append(v.keys, jtree.Unquote(c.Key))
			}
			v.items = append(v.items, jvOf(t, c.Start, c.Node))
			return true
		})
		return v
	}
	return &jv{raw: string(src[start:jtree.SkipValue(src, start)])}
}

func (v *jv) encode(b []byte) []byte {
	switch v.kind {
	case '"':
		return jtree.AppendString(b, v.str)
	case '[', '{':
		b = append(b, v.kind)
		for i, it := range v.items {
			if i > 0 {
				b = append(b, ',')
			}
			if v.kind == '{' {
				b = append(jtree.AppendString(b, v.keys[i]), ':')
			}
			b = it.encode(b)
		}
		if v.kind == '{' {
			return append(b, '}')
		}
		return append(b, ']')
	}
	return append(b, v.raw...)
}

// at returns the value at ptr, creating it and its missing parents as the
// next children of theirs, of the kinds they have in orig.
func (v *jv) at(t testing.TB, ptr string, orig *jv) *jv {
	t.Helper()
	toks, ok := jtree.SplitPointer(ptr)
	if !ok {
		t.Fatalf("bad pointer %q", ptr)
	}
	for i, tok := range toks {
		var next *jv
		switch v.kind {
		case '[':
			n, ok := jtree.Index(tok)
			if !ok || n > len(v.items) {
				t.Fatalf("%q: element %s of %d", ptr, tok, len(v.items))
			}
			if n < len(v.items) {
				next = v.items[n]
			}
		case '{':
			for j, k := range v.keys {
				if k == tok {
					next = v.items[j]
				}
			}
		default:
			t.Fatalf("%q: token %d inside a scalar", ptr, i)
		}
		if next == nil {
			next = &jv{kind: orig.lookup(toks[:i+1]).kind}
			if v.kind == '{' {
				v.keys = append(v.keys, tok)
			}
			v.items = append(v.items, next)
		}
		v = next
	}
	return v
}

func (v *jv) lookup(toks []string) *jv {
	for _, tok := range toks {
		if v.kind == '[' {
			n, _ := jtree.Index(tok)
			v = v.items[n]
			continue
		}
		for j, k := range v.keys {
			if k == tok {
				v = v.items[j]
				break
			}
		}
	}
	return v
}

// walk bounds r, follows next from its report to the end, and returns the
// document reassembled from the preview and the reads, with the reads.
func walk(t testing.TB, b *Bounder, budget bounded.Budget, call Call, r Result, orig []byte) (got []byte, reads int, bd Bounded) {
	t.Helper()
	ov := &jv{kind: '"'}
	if orig != nil {
		ov = parseJV(t, orig)
	}
	ctx := context.Background()
	var pv []byte
	testHookPreview = func(b []byte) { pv = bytes.Clone(b) }
	defer func() { testHookPreview = nil }()
	bd, err := b.Bound(ctx, budget, call, r)
	if err != nil {
		t.Fatalf("Bound: %v", err)
	}
	checkBudget(t, budget, bd)
	if bd.Report == nil {
		return nil, 0, bd
	}
	var doc *jv
	text := false
	if len(pv) > 0 && bd.Report != nil && r.Structured == nil && len(r.Content) == 1 && parseText(r.Content[0].Text) == nil {
		text = true
		doc = &jv{kind: '"', str: string(pv)}
	} else {
		doc = parseJV(t, pv)
	}
	// The preview's clipped strings, without their markers.
	for _, c := range bd.Report.Cuts {
		if c.Kind != CutString {
			continue
		}
		s := doc
		if c.Pointer != "" || !text {
			s = doc.at(t, c.Pointer, ov)
		}
		s.str = s.str[:runeIndex(s.str, c.Kept)]
	}
	next := bd.Report.Next
	seen := map[string]bool{}
	for next != nil {
		reads++
		if reads > 100_000 {
			t.Fatal("walk does not end")
		}
		raw, _ := next.MarshalJSON()
		if seen[string(raw)] {
			t.Fatalf("read %s repeats", raw)
		}
		seen[string(raw)] = true
		var a ReadArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		ans, err := b.Read(ctx, budget, call.Principal, a)
		if err != nil {
			t.Fatalf("Read(%s): %v", raw, err)
		}
		checkAnswer(t, budget, ans)
		switch ans.Kind {
		case CutArray, CutObject:
			v := doc.at(t, ans.Pointer, ov)
			if ans.Offset != len(v.items) {
				t.Fatalf("read %s: offset %d, have %d items already", raw, ans.Offset, len(v.items))
			}
			for _, it := range ans.Items {
				if v.kind == '[' {
					v.items = append(v.items, parseJV(t, it))
					continue
				}
				m := parseJV(t, it)
				v.keys = append(v.keys, m.keys[0])
				v.items = append(v.items, m.items[0])
			}
			if len(ans.Items) == 0 {
				t.Fatalf("read %s: nothing read", raw)
			}
		case CutString:
			v := doc
			if !text || ans.Pointer != "" {
				v = doc.at(t, ans.Pointer, ov)
			}
			if l, c := position(v.str, utf8.RuneCountInString(v.str)); l != ans.Line || c != ans.Char {
				t.Fatalf("read %s: text from %d,%d; have up to %d,%d", raw, ans.Line, ans.Char, l, c)
			}
			if ans.Text == "" {
				t.Fatalf("read %s: no text", raw)
			}
			v.str += ans.Text
		default:
			t.Fatalf("read %s: kind %s", raw, ans.Kind)
		}
		next = ans.Next
	}
	if text {
		return []byte(doc.str), reads, bd
	}
	return doc.encode(nil), reads, bd
}

// checkBudget checks that a bounded result keeps to budget.
func checkBudget(t testing.TB, budget bounded.Budget, bd Bounded) {
	t.Helper()
	chars, tokens := 0, 0
	texts(bd.Result, func(s string, b []byte) {
		chars += utf8.RuneCountInString(s) + utf8.RuneCount(b)
		tokens += budget.CountTokens(s + string(b))
	}, func(int) {})
	if chars > budget.LimitChars() || tokens > budget.LimitTokens() {
		t.Fatalf("result of %d characters, %d tokens; the limits are %d and %d", chars, tokens, budget.LimitChars(), budget.LimitTokens())
	}
	if bd.Report != nil && bd.Result.Structured != nil && !json.Valid(bd.Result.Structured) {
		t.Fatalf("structured content is not JSON: %.100s", bd.Result.Structured)
	}
}

func checkAnswer(t testing.TB, budget bounded.Budget, a Answer) {
	t.Helper()
	if n := utf8.RuneCount(a.JSON); n > budget.LimitChars() {
		t.Fatalf("answer of %d characters over %d: %.200s", n, budget.LimitChars(), a.JSON)
	}
	if n := budget.CountTokens(string(a.JSON)); n > budget.LimitTokens() {
		t.Fatalf("answer of %d tokens over %d", n, budget.LimitTokens())
	}
	if !json.Valid(a.JSON) {
		t.Fatalf("answer is not JSON: %.200s", a.JSON)
	}
}

// tight is the smallest budget a result may have.
var tight = bounded.Budget{MaxChars: MinChars, Margin: 1}

// marshal encodes v as compact JSON without HTML escaping.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}

func records(n, body int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"id": i, "name": "record " + strconv.Itoa(i), "body": strings.Repeat(fmt.Sprintf("line %d of record %d\n", i%7, i), body)}
	}
	return out
}

func TestWalkShapes(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2000)
	lines := strings.Repeat("a line of text that is not short at all, and goes on\n", 3000)
	big := map[string]any{}
	for i := range 3000 {
		big["key"+strconv.Itoa(i)] = i
	}
	huge := strings.Repeat("x", 70_000) + "\n" + strings.Repeat("é", 50_000)
	for _, tc := range []struct {
		name string
		doc  any
	}{
		{"top-level array", records(400, 1)},
		{"arrays in objects", map[string]any{"meta": map[string]any{"n": 1}, "items": records(300, 2), "tags": strings.Split(long[:3000], " "), "more": records(50, 20)}},
		{"arrays of arrays", [][]any{{1, 2, 3}, make([]any, 2000), {[]int{1, 2}, strings.Repeat("y", 5000)}}},
		{"one huge string", long},
		{"long lines", map[string]any{"text": huge, "after": lines}},
		{"large object", big},
		{"deep", map[string]any{"a": map[string]any{"b": map[string]any{"c": records(100, 30)}}}},
		{"numbers", []json.Number{json.Number(strings.Repeat("9", 400)), "1e400", "-0.5"}},
		{"many strings", strings.Split(strings.Repeat(long[:200]+"|", 200), "|")},
		{"long keys", map[string]any{strings.Repeat("k/~", 100): map[string]any{strings.Repeat("é", 150): records(200, 3)}}},
	} {
		for _, budget := range []bounded.Budget{tight, {MaxChars: 3000, Margin: 1}, {}} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, budget.LimitChars()), func(t *testing.T) {
				b := New(NewMemory(Quota{}), Options{})
				orig := marshal(tc.doc)
				got, reads, bd := walk(t, b, budget, Call{Tool: "t", Principal: "p"}, JSON(orig), orig)
				if bd.Report == nil {
					if !bytes.Equal(bd.Result.Structured, orig) {
						t.Fatal("passed result changed")
					}
					return
				}
				if !bytes.Equal(got, orig) {
					t.Fatalf("reassembled after %d reads differs:\ngot  %.300s\nwant %.300s", reads, got, orig)
				}
			})
		}
	}
}

func TestWalkText(t *testing.T) {
	lines := strings.Repeat("a line of text that is not short at all, and goes on\n", 3000)
	for _, tc := range []struct{ name, text string }{
		{"lines", lines},
		{"one long line", strings.Repeat("0123456789", 20_000)},
		{"long lines", strings.Repeat(strings.Repeat("é", 3000)+"\n", 30) + "no newline at the end"},
		{"crlf", strings.Repeat("a line\r\n", 8000)},
		{"json-like", "{" + lines},
		{"nan", `{"x": NaN, "text": "` + lines + `"}`},
		{"invalid utf-8", strings.Repeat("ok \xff\xfe bad\n", 5000)},
	} {
		for _, budget := range []bounded.Budget{tight, {}} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, budget.LimitChars()), func(t *testing.T) {
				b := New(NewMemory(Quota{}), Options{})
				got, reads, bd := walk(t, b, budget, Call{Tool: "t", Principal: "p"}, Text(tc.text), nil)
				if bd.Report == nil {
					t.Fatal("not cut")
				}
				if string(got) != tc.text {
					t.Fatalf("reassembled after %d reads differs: got %d bytes, want %d", reads, len(got), len(tc.text))
				}
			})
		}
	}
}

func TestWalkContent(t *testing.T) {
	lines := strings.Repeat("a line of text that is not short at all, and goes on\n", 500)
	img := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1<<18)
	r := Result{
		Content: []Block{
			{Type: TypeText, Text: lines},
			{Type: TypeText, Text: string(marshal(records(60, 3)))},
			{Type: TypeImage, MIMEType: "image/png", Data: img[:100]},
			{Type: TypeImage, MIMEType: "image/png", Data: img},
			{Type: TypeResource, URI: "file:///a.txt", MIMEType: "text/plain", Text: lines[:5000]},
			{Type: TypeResourceLink, URI: "file:///b.txt", Name: "b.txt"},
			{Type: TypeAudio, MIMEType: "audio/wav", Data: img[:5000]},
		},
		Structured: marshal(map[string]any{"summary": lines[:3000], "ids": make([]int, 500)}),
	}
	for _, budget := range []bounded.Budget{tight, {MaxChars: 4000, Margin: 1}, {}} {
		t.Run(strconv.Itoa(budget.LimitChars()), func(t *testing.T) {
			b := New(NewMemory(Quota{}), Options{MaxBinaryBytes: 1 << 16})
			d, err := b.newDoc(r)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Clone(d.tree.Src)
			got, reads, bd := walk(t, b, budget, Call{Tool: "t", Principal: "p"}, r, want)
			if !bytes.Equal(got, want) {
				t.Fatalf("reassembled after %d reads differs:\ngot  %.300s\nwant %.300s", reads, got, want)
			}
			out := bd.Result.Content
			if len(out) < 5 {
				return
			}
			if out[2].Type != TypeImage || !bytes.Equal(out[2].Data, img[:100]) {
				t.Errorf("small image: %+v", out[2].Type)
			}
			if out[3].Type != TypeResourceLink || !strings.HasPrefix(out[3].URI, DefaultResourcePrefix) {
				t.Errorf("large image became %s %s", out[3].Type, out[3].URI)
			}
			if !json.Valid([]byte(out[1].Text)) {
				t.Errorf("JSON text block is not JSON: %.100s", out[1].Text)
			}
		})
	}
}

func TestResource(t *testing.T) {
	ctx := context.Background()
	img := bytes.Repeat([]byte{1, 2, 3}, 1<<20)
	doc := marshal(records(500, 5))
	r := Result{Content: []Block{{Type: TypeText, Text: string(doc)}, {Type: TypeImage, MIMEType: "image/png", Data: img}}}
	b := New(NewMemory(Quota{}), Options{})
	bd, err := b.Bound(ctx, bounded.Budget{}, Call{Tool: "t", Principal: "p"}, r)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := b.Resource(ctx, "p", bd.Report.Resource)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := b.newDoc(r)
	if whole.Text != string(d.tree.Src) || whole.MIMEType != "application/json" {
		t.Errorf("whole resource: %.100s", whole.Text)
	}
	link := bd.Result.Content[1]
	bin, err := b.Resource(ctx, "p", link.URI)
	if err != nil || !bytes.Equal(bin.Data, img) || bin.MIMEType != "image/png" {
		t.Errorf("image resource %s: %v", link.URI, err)
	}
	if _, err := b.Resource(ctx, "q", bd.Report.Resource); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("another principal's resource: %v", err)
	}
	plain := strings.Repeat("a line\n", 10_000)
	tb, _ := b.Bound(ctx, bounded.Budget{}, Call{Tool: "t", Principal: "p"}, Text(plain))
	text, err := b.Resource(ctx, "p", tb.Report.Resource)
	if err != nil || text.Text != plain || text.MIMEType != "text/plain" {
		t.Errorf("text resource: %v", err)
	}
}

func TestKeep(t *testing.T) {
	ctx := context.Background()
	b := New(NewMemory(Quota{}), Options{})
	body := strings.Repeat("a line of a clipped field\n", 2000)
	doc := marshal(map[string]any{"results": []any{map[string]any{"id": 1, "content": body}}})
	h, err := b.Keep(ctx, Call{Tool: "get_note", Principal: "p"}, JSON(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	next := bounded.Args{{Name: "handle", Value: h}, {Name: "pointer", Value: "/results/0/content"}}
	for reads := 0; next != nil; reads++ {
		raw, _ := next.MarshalJSON()
		var a ReadArgs
		json.Unmarshal(raw, &a)
		ans, err := b.Read(ctx, tight, "p", a)
		if err != nil || reads > 1000 {
			t.Fatalf("read %s: %v", raw, err)
		}
		got.WriteString(ans.Text)
		next = ans.Next
	}
	if got.String() != body {
		t.Errorf("read %d characters of %d", got.Len(), len(body))
	}
	if _, err := New(nil, Options{}).Keep(ctx, Call{}, JSON(doc)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Keep without a store: %v", err)
	}
}

// TestWalkTokens walks under token limits: counted exactly by o200k, and
// by a flat characters-a-token rule.
func TestWalkTokens(t *testing.T) {
	counter, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	doc := marshal(map[string]any{"items": records(150, 4), "text": strings.Repeat("日本語のテキスト、そして English.\n", 300)})
	for name, budget := range map[string]bounded.Budget{
		"o200k": {MaxChars: 20_000, MaxTokens: 1200, Tokenizer: counter},
		"flat":  {MaxChars: 3000, CharsPerToken: 2},
	} {
		t.Run(name, func(t *testing.T) {
			b := New(NewMemory(Quota{}), Options{})
			got, reads, bd := walk(t, b, budget, Call{Tool: "t", Principal: "p"}, JSON(doc), doc)
			if bd.Report == nil || !bytes.Equal(got, doc) {
				t.Fatalf("reassembled after %d reads differs", reads)
			}
		})
	}
}
