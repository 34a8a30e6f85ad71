package mcptools

import (
	"encoding"
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/boundedkit/bounded"
)

// envelopeSchema is the output schema of a bounded.Envelope of item
// values: the envelope's keys and their types (bounded.Envelope documents
// them), and the results' schema inferred from item; any value when item
// is nil or its schema cannot be inferred (a recursive type, a channel).
// It is short, as tools/list sends it for every tool.
//
// A type that encodes itself (json.Marshaler) is any value in the
// schema, one that encodes as text (encoding.TextMarshaler) a string,
// unless jsonschema-go or this package knows its encoding: time.Time and
// bounded's own types.
func envelopeSchema(item reflect.Type) *jsonschema.Schema {
	items := &jsonschema.Schema{}
	if item != nil {
		known := map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[bounded.TotalKind](): {Type: "string", Enum: []any{"exact", "atLeast", "unknown"}},
			reflect.TypeFor[bounded.Args]():      {Type: "object"},
			reflect.TypeFor[time.Time]():         {Type: "string"},
		}
		addEncoders(item, known, map[reflect.Type]bool{})
		if s, err := jsonschema.ForType(item, &jsonschema.ForOptions{TypeSchemas: known}); err == nil {
			items = s
		}
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

// addEncoders adds to known the types reachable from t that encode
// themselves, each as any value, or a string for a TextMarshaler.
func addEncoders(t reflect.Type, known map[reflect.Type]*jsonschema.Schema, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] || known[t] != nil {
		return
	}
	seen[t] = true
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(reflect.TypeFor[json.Marshaler]()):
		// Any value, by its types: jsonschema-go adds "null" to the
		// types of a pointer's schema, and a schema of no type would
		// then allow null alone.
		known[t] = &jsonschema.Schema{Types: []string{"null", "boolean", "number", "string", "array", "object"}}
		return
	case pt.Implements(reflect.TypeFor[encoding.TextMarshaler]()):
		known[t] = &jsonschema.Schema{Type: "string"}
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		addEncoders(t.Elem(), known, seen)
	case reflect.Struct:
		for f := range t.Fields() {
			if f.IsExported() || f.Anonymous {
				addEncoders(f.Type, known, seen)
			}
		}
	}
}
