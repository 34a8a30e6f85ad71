package mcptools

import (
	"cmp"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/boundedkit/bounded"
)

// envelopeSchema is the output schema of a bounded.Envelope of item
// values: the envelope's keys and their types (bounded.Envelope documents
// them), and the results' schema, which describes what encoding/json
// writes for an item (see encodedSchema); any value when item is nil. It
// is short, as tools/list sends it for every tool.
func envelopeSchema(item reflect.Type) *jsonschema.Schema {
	items := &jsonschema.Schema{}
	if item != nil {
		items = encodedSchema(item)
	}
	typed := func(t string) *jsonschema.Schema { return &jsonschema.Schema{Type: t} }
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"results":         {Type: "array", Items: items},
			"pagination":      typed("object"),
			"truncated":       typed("boolean"),
			"truncation":      typed("object"),
			"hint":            typed("string"),
			"next":            typed("object"),
			"contentMetadata": typed("object"),
		},
		PropertyOrder: []string{"results", "pagination", "truncated", "truncation", "hint", "next", "contentMetadata"},
		Required:      []string{"results", "truncated"},
	}
}

// encodedSchema is the schema of the JSON encoding/json writes for an
// addressable value of type t, as an item of a slice is:
//
//   - a []byte is a base64 string, a field with the ",string" option a
//     string, a json.Number a number;
//   - a type with a MarshalJSON method is any value, one with MarshalText
//     a string, where encoding/json calls them (a pointer's methods only
//     where the value is addressable, as a map's values are not), but
//     time.Time is a string and bounded's types are described;
//   - a struct is its fields as encoding/json finds them (tags, embedded
//     structs, hidden names), those that may be left out not required:
//     omitempty, omitzero and those of an embedded pointer;
//   - a pointer, slice, map and interface may be null;
//   - a type met again inside itself is any value there, as is one
//     encoding/json refuses (a channel, a function).
func encodedSchema(t reflect.Type) *jsonschema.Schema {
	g := schemaGen{visiting: map[reflect.Type]bool{}}
	return g.schema(t, true, false)
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// knownSchemas are the schemas of types that encode themselves, by what
// they write.
var knownSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[bounded.TotalKind](): {Type: "string", Enum: []any{"exact", "atLeast", "unknown"}},
	reflect.TypeFor[bounded.Args]():      {Type: "object"},
	reflect.TypeFor[time.Time]():         {Type: "string"},
}

// schemaGen writes the schemas of encodedSchema; visiting holds the types
// being described, to stop at a type inside itself.
type schemaGen struct {
	visiting map[reflect.Type]bool
}

// schema is the schema of a value of type t as encoding/json writes it:
// addr says the value is addressable, quoted that it has the ",string"
// option.
func (g schemaGen) schema(t reflect.Type, addr, quoted bool) *jsonschema.Schema {
	if t.Kind() == reflect.Pointer {
		return nullable(g.schema(t.Elem(), true, quoted))
	}
	if s := knownSchemas[t]; s != nil {
		return s.CloneSchemas()
	}
	has := func(iface reflect.Type) bool {
		return t.Implements(iface) || addr && reflect.PointerTo(t).Implements(iface)
	}
	switch {
	case has(marshalerType):
		return &jsonschema.Schema{}
	case has(textMarshalerType) && t.Kind() == reflect.Interface:
		return &jsonschema.Schema{Types: []string{"null", "string"}}
	case has(textMarshalerType):
		return &jsonschema.Schema{Type: "string"}
	}
	typed := func(typ string) *jsonschema.Schema {
		if quoted {
			typ = "string"
		}
		return &jsonschema.Schema{Type: typ}
	}
	switch k := t.Kind(); {
	case k == reflect.Bool:
		return typed("boolean")
	case integerKind(k):
		return typed("integer")
	case k == reflect.Float32 || k == reflect.Float64:
		return typed("number")
	case t == reflect.TypeFor[json.Number]():
		return typed("number")
	case k == reflect.String:
		return typed("string")
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !encodesItself(reflect.PointerTo(t.Elem())):
		return &jsonschema.Schema{Types: []string{"null", "string"}} // base64
	case k != reflect.Slice && k != reflect.Struct && k != reflect.Map && k != reflect.Array:
		return &jsonschema.Schema{} // an interface, or a type encoding/json refuses
	}
	if g.visiting[t] {
		return &jsonschema.Schema{}
	}
	g.visiting[t] = true
	defer delete(g.visiting, t)
	switch t.Kind() {
	case reflect.Slice:
		return &jsonschema.Schema{Types: []string{"null", "array"}, Items: g.schema(t.Elem(), true, false)}
	case reflect.Array:
		return &jsonschema.Schema{Type: "array", Items: g.schema(t.Elem(), addr, false), MinItems: jsonschema.Ptr(t.Len()), MaxItems: jsonschema.Ptr(t.Len())}
	case reflect.Map:
		if k := t.Key(); k.Kind() != reflect.String && !integerKind(k.Kind()) && !k.Implements(textMarshalerType) {
			return &jsonschema.Schema{} // refused
		}
		return &jsonschema.Schema{Types: []string{"null", "object"}, AdditionalProperties: g.schema(t.Elem(), false, false)}
	}
	return g.object(t, addr)
}

// object is the schema of a struct of type t, addressable when addr.
func (g schemaGen) object(t reflect.Type, addr bool) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, f := range jsonFields(t) {
		if s.Properties == nil {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		fs := g.schema(f.typ, addr || f.viaPointer, f.quoted)
		if f.desc != "" {
			fs.Description = f.desc
		}
		s.Properties[f.name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if !f.optional {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}

// jsonField is a field encoding/json writes.
type jsonField struct {
	name   string
	tagged bool
	index  []int
	typ    reflect.Type
	desc   string // the jsonschema tag
	quoted bool
	// optional: omitempty, omitzero, or a field of an embedded pointer;
	// viaPointer: the last.
	optional, viaPointer bool
}

// jsonFields are the fields of the struct type t encoding/json writes,
// in its order: those of embedded structs breadth first, a name held by
// fields of the same depth written by none, unless one is tagged.
func jsonFields(t reflect.Type) []jsonField {
	type embedded struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []jsonField
	visited := map[reflect.Type]bool{}
	var count map[reflect.Type]int
	next, nextCount := []embedded{{typ: t}}, map[reflect.Type]int{}
	for len(next) > 0 {
		current := next
		next, count, nextCount = nil, nextCount, map[reflect.Type]int{}
		for _, e := range current {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				switch {
				case sf.Anonymous && !sf.IsExported() && ft.Kind() != reflect.Struct,
					!sf.Anonymous && !sf.IsExported():
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(e.index), i)
				viaPointer := e.viaPointer || sf.Type.Kind() == reflect.Pointer
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					if nextCount[ft]++; nextCount[ft] == 1 {
						next = append(next, embedded{typ: ft, index: index, viaPointer: viaPointer})
					}
					continue
				}
				f := jsonField{name: name, tagged: name != "", index: index, typ: sf.Type, desc: sf.Tag.Get("jsonschema"),
					viaPointer: e.viaPointer, optional: e.viaPointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")}
				if f.name == "" {
					f.name = sf.Name
				}
				if k := ft.Kind(); hasOption(opts, "string") {
					f.quoted = k == reflect.Bool || integerKind(k) || k == reflect.Float32 || k == reflect.Float64 || k == reflect.String
				}
				fields = append(fields, f)
				if count[e.typ] > 1 { // embedded twice at this depth: no field of it is written
					fields = append(fields, f)
				}
			}
		}
	}
	// Of the fields of one name, the shallowest is written, the tagged one
	// among those of its depth; none when that leaves two.
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(len(a.index), len(b.index)), -compareBool(a.tagged, b.tagged))
	})
	var out []jsonField
	for same := range chunkBy(fields, func(f jsonField) string { return f.name }) {
		if len(same) > 1 && len(same[0].index) == len(same[1].index) && same[0].tagged == same[1].tagged {
			continue
		}
		out = append(out, same[0])
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

// encodesItself reports whether t has a MarshalJSON or MarshalText
// method.
func encodesItself(t reflect.Type) bool {
	return t.Implements(marshalerType) || t.Implements(textMarshalerType)
}

// integerKind reports whether k is a signed or unsigned integer's kind.
func integerKind(k reflect.Kind) bool {
	return reflect.Int <= k && k <= reflect.Uintptr
}

// chunkBy yields the runs of s's consecutive elements with the same key.
func chunkBy[E any, K comparable](s []E, key func(E) K) func(yield func([]E) bool) {
	return func(yield func([]E) bool) {
		for len(s) > 0 {
			n := 1
			for n < len(s) && key(s[n]) == key(s[0]) {
				n++
			}
			if !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
	}
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// hasOption reports whether the comma-separated options of a json tag
// hold opt.
func hasOption(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// validTagName reports whether encoding/json takes name from a tag.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// nullable is s allowing null too.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case s.Type != "":
		s.Types, s.Type = []string{"null", s.Type}, ""
	case len(s.Types) > 0 && !slices.Contains(s.Types, "null"):
		s.Types = append([]string{"null"}, s.Types...)
	default: // any value, or null already
		return s
	}
	if s.Enum != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}
