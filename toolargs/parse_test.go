package toolargs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

var errQuery = errors.New("invalid query")

// testParser is a tool with an argument of every kind, paged by page
// number, with fields and detail.
func testParser(t testing.TB) *toolargs.Parser {
	type nested struct {
		Name string `json:"name"`
	}
	type in struct {
		ID        string   `json:"id" jsonschema:"the id"`
		Mode      string   `json:"mode,omitempty"`
		Depth     int      `json:"depth,omitempty"`
		Lines     int      `json:"lines,omitempty"`
		Threshold float64  `json:"threshold,omitempty"`
		Flag      bool     `json:"flag,omitempty"`
		Tags      []string `json:"tags,omitempty"`
		Owner     *nested  `json:"owner,omitempty"`
	}
	s, err := jsonschema.For[in](nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Properties["mode"].Enum = []any{"exact", "fuzzy"}
	s.Properties["mode"].Default = json.RawMessage(`"exact"`)
	s.Properties["depth"].Minimum, s.Properties["depth"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(20.0)
	s.Properties["lines"].Minimum, s.Properties["lines"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(100.0)
	s.Properties["threshold"].ExclusiveMinimum, s.Properties["threshold"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0)
	s.Properties["tags"].MaxItems = jsonschema.Ptr(3)
	p, err := toolargs.NewParser(toolargs.Decl{Tool: "t", In: s,
		Args:   map[string]toolargs.Arg{"id": {Kind: errQuery}, "depth": {Kind: errQuery}, "lines": {Kind: bounded.ErrInvalidWindow, Clamp: true}},
		Limits: bounded.Limits{Default: 10, Max: 50}, Paging: bounded.ByPage,
		Budget: bounded.Budget{MaxChars: 20_000}, Concise: []string{"id"}, Fields: true, FieldNames: []string{"id", "name"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParseErrors: every bad call is an ArgumentError naming the
// argument, saying why, and matching its kind.
func TestParseErrors(t *testing.T) {
	p := testParser(t)
	for _, c := range []struct {
		args, arg, reason string
		kind              error
	}{
		{`[1]`, "", "want a JSON object, not [1]", nil},
		{"{\"id\":\"a\xff\"}", "", "not valid UTF-8", nil},
		{`{"id":"a"} {}`, "", "more than one JSON value", nil},
		{`{"id":"a"`, "", "malformed JSON", nil},
		{`{"id":"a","id":"b"}`, "id", "given twice", nil},
		{`{"id":"a","colour":1}`, "colour", "unknown argument; this tool takes id, mode, depth", nil},
		{`{}`, "id", "missing: it is required", errQuery},
		{`{"id":null}`, "id", "missing: it is required", errQuery},
		{`{"id":3}`, "id", "3 is an integer, want a string", errQuery},
		{`{"id":"a","mode":"regex"}`, "mode", `"regex" is not one of "exact", "fuzzy"`, nil},
		{`{"id":"a","depth":2.5}`, "depth", "2.5 is not a whole number", errQuery},
		{`{"id":"a","depth":1e-1}`, "depth", "1e-1 is not a whole number", errQuery},
		{`{"id":"a","depth":21}`, "depth", "21 is over the maximum 20", errQuery},
		{`{"id":"a","depth":0}`, "depth", "0 is below the minimum 1", errQuery},
		{`{"id":"a","depth":1e999999999999}`, "depth", "is over the maximum 9007199254740991", errQuery},
		{`{"id":"a","threshold":0}`, "threshold", "0 is not in (0, 1]", nil},
		{`{"id":"a","threshold":1.5}`, "threshold", "1.5 is not in (0, 1]", nil},
		{`{"id":"a","flag":"yes"}`, "flag", `"yes" is a string, want a boolean`, nil},
		{`{"id":"a","tags":["a",1]}`, "tags", "entry 1: 1 is an integer, want a string", nil},
		{`{"id":"a","tags":["a","b","c","d"]}`, "tags", "4 entries, over the maximum 3", nil},
		{`{"id":"a","owner":{"name":3}}`, "", "name", nil},
		{`{"id":"a","pageSize":0}`, "pageSize", "0 is below the minimum 1", bounded.ErrInvalidPage},
		{`{"id":"a","page":1,"offset":2}`, "offset", "give page or offset, not both", bounded.ErrInvalidPage},
		{`{"id":"a","cursor":"c","page":1}`, "cursor", "a cursor excludes offset and page", bounded.ErrInvalidCursor},
		{`{"id":"a","budget":10}`, "budget", "10 is below the minimum 1000", bounded.ErrInvalidBudget},
		{`{"id":"a","detail":"brief"}`, "detail", `"brief" is not one of "concise", "detailed"`, nil},
		{`{"id":"a","fields":["colour"]}`, "fields", `"colour" is not a field of the results, which have id, name`, nil},
	} {
		_, err := p.Parse(context.Background(), []byte(c.args))
		var ae *toolargs.ArgumentError
		switch {
		case !errors.As(err, &ae) || !errors.Is(err, toolargs.ErrInvalidArguments):
			t.Errorf("%s: %v, want an ArgumentError", c.args, err)
		case ae.Argument != c.arg || !strings.Contains(ae.Reason, c.reason):
			t.Errorf("%s: argument %q, reason %q; want %q, %q", c.args, ae.Argument, ae.Reason, c.arg, c.reason)
		case c.kind != nil && !errors.Is(err, c.kind):
			t.Errorf("%s: %v, want it to match %v", c.args, err, c.kind)
		}
	}
}

// TestParse: a good call's values are typed, whole numbers exact,
// budgets over their maxima lowered with a note, limits over theirs kept
// for Normalize to clamp, and next repeats the arguments as given.
func TestParse(t *testing.T) {
	p := testParser(t)
	c, err := p.Parse(context.Background(), []byte(`{"id":"a","depth":2.0,"lines":5e3,"threshold":0.5,"tags":["x"],"flag":null,"pageSize":500,"page":1,"budget":99999,"detail":"concise"}`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.In()
	if err != nil {
		t.Fatal(err)
	}
	next, _ := c.Next.Args.MarshalJSON()
	for _, x := range []struct{ name, got, want string }{
		{"in", string(in), `{"id":"a","depth":2,"lines":5000,"threshold":0.5,"tags":["x"],"mode":"exact"}`},
		{"next", string(next), `{"id":"a","depth":2,"lines":5000,"threshold":0.5,"tags":["x"],"budget":18000,"detail":"concise"}`},
		{"mode", c.Str("mode"), "exact"},
		{"notes", strings.Join(c.Notes, " "), "budget 99,999 is over the maximum 18,000, which was used."},
		{"fields", strings.Join(c.Fields, ","), "id"},
	} {
		if x.got != x.want {
			t.Errorf("%s: %s, want %s", x.name, x.got, x.want)
		}
	}
	if want := (bounded.Page{Limit: 500, Offset: 50}); c.Page != want || c.Budget.LimitChars() != 18_000 || c.Int("depth") != 2 || c.Has("flag") {
		t.Errorf("page %+v, budget %d, depth %d, flag %v; want %+v, 18000, 2, absent", c.Page, c.Budget.LimitChars(), c.Int("depth"), c.Has("flag"), want)
	}
}

// FuzzParse: whatever the arguments, Parse returns a call or an
// ArgumentError, never panics; a call's next arguments parse again to
// the same arguments, and its integers are within bounded.MaxOffset.
func FuzzParse(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"id":"a"}`, `{"id":"a","depth":2.0,"tags":["x"]}`, `{"id":"a","page":2e3,"pageSize":1e1}`,
		`{"id":"a","depth":1e-99999999999}`, `{"id":"a","cursor":"x","budgetTokens":400}`, `{"id":"a","owner":{"name":"n"}}`, `[1]`, `{"id":"a","id":"b"}`} {
		f.Add([]byte(s))
	}
	p := testParser(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := p.Parse(context.Background(), raw)
		if err != nil {
			var ae *toolargs.ArgumentError
			if !errors.As(err, &ae) || !errors.Is(err, toolargs.ErrInvalidArguments) || !utf8.ValidString(ae.Error()) && utf8.Valid(raw) {
				t.Fatalf("Parse(%q): %v, want an ArgumentError", raw, err)
			}
			return
		}
		if c.Page.Offset < 0 || c.Page.Offset > bounded.MaxOffset || c.Page.Limit < 0 || c.Page.Limit > bounded.MaxOffset {
			t.Fatalf("Parse(%q): page %+v out of range", raw, c.Page)
		}
		in, err := c.In()
		if err != nil || !json.Valid(in) {
			t.Fatalf("Parse(%q): In %s, %v", raw, in, err)
		}
		next, err := c.Next.Args.MarshalJSON()
		if err != nil {
			t.Fatalf("Parse(%q): next: %v", raw, err)
		}
		again, err := p.Parse(context.Background(), next)
		if err != nil {
			t.Fatalf("Parse(%q): next %s does not parse: %v", raw, next, err)
		}
		a, _ := again.Args.MarshalJSON()
		b, _ := c.Args.MarshalJSON()
		if string(a) != string(b) {
			t.Fatalf("Parse(%q): arguments %s, again %s", raw, b, a)
		}
	})
}
