package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// label encodes as text, by a method of its value.
type label int

func (l label) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "L%d", int(l)), nil }

// counter encodes as text by a method of its pointer: as text where it is
// addressable (a field of a result), as an object where it is not (a
// map's value).
type counter struct{ N int }

func (c *counter) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "C%d", c.N), nil }

// octet is a byte that encodes itself: a slice of octets is an array.
type octet byte

func (o octet) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `"%02x"`, byte(o)), nil }

// Origin and Extra are embedded in kinds: by value and by pointer.
type Origin struct {
	OriginID int    `json:"originId"`
	Note     string `json:"note,omitempty"`
	ID       string `json:"id"` // hidden by kinds.ID, which is shallower
}

type Extra struct {
	Level int `json:"level"`
}

// Tagged is embedded under a name of its own: an object, not promoted.
type Tagged struct {
	Inner int `json:"inner"`
}

// hidden is an unexported embedded struct: its exported fields are
// promoted.
type hidden struct {
	Shown int `json:"shown"`
}

// Left and Right are embedded side by side: of their fields of one name,
// the tagged one is written, and none when neither is.
type Left struct {
	Dup int
	X   int `json:"X"`
}

type Right struct {
	Dup int
	X   string
}

// kinds has a field of every kind encoding/json writes.
type kinds struct {
	ID       int               `json:"id"`
	Bytes    []byte            `json:"bytes"`
	Octets   []octet           `json:"octets"`
	Array    [2]byte           `json:"array"`
	Count    int64             `json:"count,string"`
	Small    uint8             `json:"small,string"`
	Ratio    float64           `json:"ratio,string"`
	Flag     bool              `json:"flag,string"`
	Quoted   string            `json:"quoted,string"`
	PtrCount *int              `json:"ptrCount,string"`
	Num      json.Number       `json:"num"`
	NumText  json.Number       `json:"numText,string"`
	Raw      json.RawMessage   `json:"raw"`
	Temp     celsius           `json:"temp"`
	TempText celsius           `json:"tempText,string"`
	Label    label             `json:"label"`
	Counter  counter           `json:"counter"`
	At       time.Time         `json:"at"`
	AtPtr    *time.Time        `json:"atPtr"`
	Kind     bounded.TotalKind `json:"kind"`
	Args     bounded.Args      `json:"args"`
	Origin
	*Extra
	Tagged `json:"tagged"`
	hidden
	Left
	Right
	Map      map[string]int    `json:"map"`
	IntKeys  map[int64]string  `json:"intKeys"`
	Counters map[label]counter `json:"counters"`
	Ptr      *int              `json:"ptr"`
	PtrPtr   **string          `json:"ptrPtr"`
	Omit     string            `json:"omit,omitempty"`
	OmitZero time.Time         `json:"omitZero,omitzero"`
	Skip     string            `json:"-"`
	Any      any               `json:"any"`
	Untagged string
	Nested   []Origin    `json:"nested"`
	Matrix   [][]float32 `json:"matrix"`
	Func     func()      `json:"-"`
	private  string
	Chan     chan int            `json:"-"`
	Deep     map[string][]*Extra `json:"deep"`
}

// fullKinds is a kinds with every field set.
func fullKinds() kinds {
	n, s := 42, "x"
	ps := &s
	at := base
	return kinds{
		ID: 1, Bytes: []byte("hello"), Octets: []octet{1, 255}, Array: [2]byte{1, 2}, Count: -7, Small: 200,
		Ratio: 0.5, Flag: true, Quoted: `a "b"`, PtrCount: &n, Num: "12.5", NumText: "3", Raw: json.RawMessage(`{"a":[1]}`),
		Temp: 21.5, TempText: -3, Label: 3, Counter: counter{N: 4}, At: base, AtPtr: &at, Kind: bounded.TotalAtLeast,
		Args:   bounded.Args{{Name: "a", Value: 1}},
		Origin: Origin{OriginID: 9, Note: "n", ID: "shadowed"}, Extra: &Extra{Level: 2}, Tagged: Tagged{Inner: 5}, hidden: hidden{Shown: 6},
		Map: map[string]int{"a": 1}, IntKeys: map[int64]string{-1: "m"}, Counters: map[label]counter{7: {N: 8}},
		Ptr: &n, PtrPtr: &ps, Omit: "o", OmitZero: base, Skip: "s", Any: []any{1, "a", nil},
		Untagged: "u", Nested: []Origin{{OriginID: 1}}, Matrix: [][]float32{{1.5}, nil}, Func: func() {}, private: "p",
		Deep: map[string][]*Extra{"a": {{Level: 1}, nil}},
	}
}

// TestOutputSchemaEncoding: the output schema describes each field as
// encoding/json writes it, and the tool's results, full and zero, pass
// it (mcptoolstest validates each against the schema the client lists).
func TestOutputSchemaEncoding(t *testing.T) {
	items := []kinds{fullKinds(), {}, {Bytes: []byte{}, Map: map[string]int{}, Nested: []Origin{}, Num: "-1e300", Any: map[string]any{"k": true}}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var k kinds
		randomize(r, reflect.ValueOf(&k).Elem(), 0)
		items = append(items, k)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcptools.AddTool(server, &mcp.Tool{Name: "kinds"}, mcptools.Options[kinds]{Limits: runLimits},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[kinds], error) {
			return bounded.FromSlice(items), nil
		})
	c := mcptoolstest.Serve(t, server)
	// Every result passes the output schema.
	if results, _ := c.Walk("kinds", `{"limit":50}`, 0, nil); len(results) != len(items) {
		t.Fatalf("%d results, want %d", len(results), len(items))
	}

	var out struct {
		Properties map[string]struct {
			Items *jsonschema.Schema `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(mustJSON(c.Tools["kinds"].OutputSchema)), &out); err != nil {
		t.Fatal(err)
	}
	s := out.Properties["results"].Items
	if s == nil {
		t.Fatal("no schema of the results")
	}
	want := map[string]string{ // each property's types; "any" for any value
		"id": "integer", "bytes": "null string", "octets": "array null", "array": "array", "count": "string",
		"small": "string", "ratio": "string", "flag": "string", "quoted": "string", "ptrCount": "null string",
		"num": "number", "numText": "string", "raw": "any", "temp": "any", "tempText": "any", "label": "string",
		"counter": "string", "at": "string", "atPtr": "null string", "kind": "string", "args": "object",
		"originId": "integer", "note": "string", "level": "integer", "tagged": "object", "shown": "integer",
		"map": "null object", "intKeys": "null object", "counters": "null object", "ptr": "integer null",
		"ptrPtr": "null string", "omit": "string", "omitZero": "string", "any": "any",
		"X": "integer", "Untagged": "string", "nested": "array null", "matrix": "array null", "deep": "null object",
	}
	got := map[string]string{}
	for name, p := range s.Properties {
		got[name] = types(p)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got[name] != want[name] {
			t.Errorf("%s: %q, want %q", name, got[name], want[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: in the schema, not written by encoding/json", name)
		}
	}
	wantRequired := slices.DeleteFunc(slices.Sorted(maps.Keys(want)), func(name string) bool {
		return name == "note" || name == "level" || name == "omit" || name == "omitZero"
	})
	if required := slices.Sorted(slices.Values(s.Required)); !slices.Equal(required, wantRequired) {
		t.Errorf("required %q,\nwant %q", required, wantRequired)
	}
	for _, c := range []struct{ path, want string }{
		{"octets.items", "any"}, {"nested.items.originId", "integer"}, {"matrix.items", "array null"},
		{"matrix.items.items", "number"}, {"counters.additionalProperties", "object"},
		{"counters.additionalProperties.N", "integer"}, {"deep.additionalProperties.items", "null object"},
		{"deep.additionalProperties.items.level", "integer"}, {"intKeys.additionalProperties", "string"},
		{"tagged.inner", "integer"},
	} {
		if got := types(at(s, c.path)); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}

	// Values as encoding/json writes them pass the schema, and values of
	// other types do not.
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		var v any
		if err := json.Unmarshal([]byte(mustJSON(&it)), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("item %d: %v\n%s", i, err, mustJSON(&it))
		}
	}
	full := mustJSON(new(fullKinds()))
	for _, bad := range []struct{ from, to string }{
		{`"bytes":"aGVsbG8="`, `"bytes":[104,101]`},
		{`"count":"-7"`, `"count":-7`},
		{`"flag":"true"`, `"flag":true`},
		{`"ptrCount":"42"`, `"ptrCount":42`},
		{`"counter":"C4"`, `"counter":{"N":4}`},
		{`"label":"L3"`, `"label":3`},
		{`"num":12.5`, `"num":"12.5"`},
		{`"level":2,`, ``},
	} {
		if !strings.Contains(full, bad.from) {
			t.Fatalf("%s not in %s", bad.from, full)
		}
		var v any
		if err := json.Unmarshal([]byte(strings.Replace(full, bad.from, bad.to, 1)), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err == nil && bad.to != "" {
			t.Errorf("%s instead of %s passes the schema", bad.to, bad.from)
		}
	}
}

// randomize sets v to a random value of its type that encoding/json
// writes, or leaves it zero: each pointer, slice and map nil, empty or
// not; strings with quotes, HTML and invalid UTF-8.
func randomize(r *rand.Rand, v reflect.Value, depth int) {
	if r.IntN(4) == 0 || depth > 5 {
		return
	}
	samples := map[reflect.Type][]any{
		reflect.TypeFor[json.RawMessage]():   {json.RawMessage(`null`), json.RawMessage(`[1,{"a":"b"}]`), json.RawMessage(`"s"`), json.RawMessage(`-3e7`)},
		reflect.TypeFor[json.Number]():       {json.Number("0"), json.Number("-1.5e10"), json.Number("42")},
		reflect.TypeFor[time.Time]():         {base, time.Date(1, 1, 1, 0, 0, 0, 1, time.FixedZone("x", 3600))},
		reflect.TypeFor[bounded.Args]():      {bounded.Args{}, bounded.Args{{Name: "a", Value: "b"}, {Name: "n", Value: 1}}},
		reflect.TypeFor[bounded.TotalKind](): {bounded.TotalExact, bounded.TotalAtLeast, bounded.TotalUnknown},
		reflect.TypeFor[any]():               {nil, 1.5, "a", []any{true, nil}, map[string]any{"k": []any{}}},
	}
	if s, ok := samples[v.Type()]; ok {
		if v.CanSet() {
			if x := s[r.IntN(len(s))]; x != nil {
				v.Set(reflect.ValueOf(x))
			}
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			randomize(r, v.Field(i), depth+1)
		}
		return
	case reflect.Array:
		for i := range v.Len() {
			randomize(r, v.Index(i), depth+1)
		}
		return
	}
	if !v.CanSet() {
		return
	}
	switch t := v.Type(); t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := r.Int64() >> r.IntN(64)
		for v.OverflowInt(n) {
			n >>= 8
		}
		v.SetInt(n * int64(1-2*r.IntN(2)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := r.Uint64() >> r.IntN(64)
		for v.OverflowUint(n) {
			n >>= 8
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(r.NormFloat64() * math.Pow(10, float64(r.IntN(30)-15)))
	case reflect.String:
		v.SetString([]string{"", "plain", `"quoted" <b>&amp;</b>`, "ünï\u2028\n", "bad \xff utf-8"}[r.IntN(5)])
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		randomize(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		n := r.IntN(3)
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			randomize(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(t)
		for range r.IntN(3) {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			randomize(r, k, depth+1)
			randomize(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// TestOutputSchemaResultTypes: results of any type encoding/json writes,
// not only structs, pass their schema.
func TestOutputSchemaResultTypes(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	full := fullKinds()
	addResults(server, "pointers", []*kinds{&full, nil})
	addResults(server, "maps", []map[string]float64{{"a": 1.5}, nil})
	addResults(server, "labels", []label{1, 2})
	addResults(server, "bytes", [][]byte{[]byte("abc"), nil})
	addResults(server, "times", []time.Time{base})
	addResults(server, "raw", []json.RawMessage{json.RawMessage(`[1]`), nil})
	addResults(server, "floats", []float64{1.5, math.MaxFloat64})
	addResults(server, "nodes", []node{{ID: 1, Children: []node{{ID: 2, Children: []node{{ID: 3}}}}}})
	c := mcptoolstest.Serve(t, server)
	for name := range c.Tools {
		env, _ := c.Call(name, `{}`) // the results pass the output schema
		if len(env.Results) == 0 {
			t.Errorf("%s: no results", name)
		}
	}
}

func addResults[T any](s *mcp.Server, name string, items []T) {
	mcptools.AddTool(s, &mcp.Tool{Name: name}, mcptools.Options[T]{Limits: runLimits},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[T], error) {
			return bounded.FromSlice(items), nil
		})
}

// types are the JSON types s allows, sorted and joined by spaces, or
// "any".
func types(s *jsonschema.Schema) string {
	switch {
	case s == nil:
		return "missing"
	case s.Type != "":
		return s.Type
	case len(s.Types) > 0 && len(s.Types) < 6:
		return strings.Join(slices.Sorted(slices.Values(s.Types)), " ")
	case len(s.Types) == 0 && s.Not == nil && s.AnyOf == nil && s.OneOf == nil:
		return "any"
	}
	return fmt.Sprintf("%v", s.Types)
}

// at is the schema at path in s: property names and the keywords items
// and additionalProperties, joined by dots.
func at(s *jsonschema.Schema, path string) *jsonschema.Schema {
	for name := range strings.SplitSeq(path, ".") {
		if s == nil {
			return nil
		}
		switch name {
		case "items":
			s = s.Items
		case "additionalProperties":
			s = s.AdditionalProperties
		default:
			s = s.Properties[name]
		}
	}
	return s
}
