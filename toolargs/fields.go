package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/boundedkit/bounded"
)

// Fields returns the JSON names of T's fields, in the order
// encoding/json writes them: an embedded struct's fields in its place.
func Fields[T any]() []string { return fieldsOf(reflect.TypeFor[T]()) }

func fieldsOf(t reflect.Type) []string {
	if v, ok := fieldCache.Load(t); ok {
		return v.([]string)
	}
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" || !f.IsExported() && !f.Anonymous:
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			case name == "":
				names = append(names, f.Name)
			default:
				names = append(names, name)
			}
		}
	}
	if t.Kind() == reflect.Struct {
		walk(t)
	}
	fieldCache.Store(t, names)
	return names
}

var fieldCache sync.Map // reflect.Type -> []string

// CheckFields returns an [*ArgumentError] of tool, listing have, when
// fields names a field not in have.
func CheckFields(tool string, have, fields []string) error {
	for _, f := range fields {
		if !slices.Contains(have, f) {
			return &ArgumentError{Tool: tool, Argument: "fields",
				Reason: fmt.Sprintf("%q is not a field of the results, which have %s", f, strings.Join(have, ", "))}
		}
	}
	return nil
}

// Projected is a result cut down to the fields a call asked for: its
// JSON object, and its relevance score.
type Projected struct {
	raw   json.RawMessage
	score float64
}

// MarshalJSON returns the projected object.
func (p Projected) MarshalJSON() ([]byte, error) { return p.raw, nil }

// Project returns in with each result cut down to fields and its id. A
// name that is not one of T's fields is an [*ArgumentError] of tool
// that lists T's fields. in's relevance scores the results before the
// cut.
func Project[T any](tool string, in bounded.FitInput[T], fields []string) (bounded.FitInput[Projected], error) {
	if err := CheckFields(tool, Fields[T](), fields); err != nil {
		return bounded.FitInput[Projected]{}, err
	}
	keep := func(name string) bool { return name == "id" || slices.Contains(fields, name) }
	out := bounded.FitInput[Projected]{Call: in.Call, Hints: in.Hints, Window: in.Window, Unclipped: in.Unclipped,
		Clipped: in.Clipped, WindowNext: in.WindowNext, Notes: in.Notes,
		Page: bounded.Paged[Projected]{Page: in.Page.Page, CursorAt: in.Page.CursorAt}}
	for _, it := range in.Page.Items {
		p, err := project(it, keep)
		if err != nil {
			return bounded.FitInput[Projected]{}, err
		}
		if in.Relevance != nil {
			p.score = in.Relevance(it)
		}
		out.Page.Items = append(out.Page.Items, p)
	}
	if in.Relevance != nil {
		out.Relevance = func(p Projected) float64 { return p.score }
	}
	return out, nil
}

// project encodes v, a JSON object, keeping the fields keep accepts, in
// order.
func project(v any, keep func(string) bool) (Projected, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Projected{}, err
	}
	dec := json.NewDecoder(&b)
	if _, err := dec.Token(); err != nil { // {
		return Projected{}, err
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Projected{}, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return Projected{}, err
		}
		name := tok.(string)
		if !keep(name) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(name)
		out = append(append(append(out, key...), ':'), val...)
	}
	return Projected{raw: append(out, '}')}, nil
}
