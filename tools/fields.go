package tools

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

// fieldsParam is the fields argument of every tool.
var fieldsParam = param{name: "fields", kind: kindStrings}

// resultFields returns the JSON names of the fields of a result type, in
// the order it encodes them (embedded structs' fields in place).
func resultFields(t reflect.Type) []string {
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
	walk(t)
	fieldCache.Store(t, names)
	return names
}

var fieldCache sync.Map // reflect.Type -> []string

// projected is a result cut down to the fields a call asked for: its JSON
// object, and its relevance score.
type projected struct {
	raw   json.RawMessage
	score float64
}

// MarshalJSON returns the projected object.
func (p projected) MarshalJSON() ([]byte, error) { return p.raw, nil }

// fitFields is bounded.Fit for a request: when the call gives fields, the
// results keep only those (and their id), validated against T's fields;
// while the data is being written, its pagination says so
// ([Config.Importing]).
func fitFields[T any](r *request, in bounded.FitInput[T]) (bounded.Fitted, error) {
	if r.importing {
		// The data is still being written: a total counted exactly is
		// a lower bound, and the pagination says why.
		if r.counted && in.Page.Page.TotalKind == bounded.TotalExact && in.Page.Page.Total > 0 {
			in.Page.Page.TotalKind = bounded.TotalAtLeast
		}
		in.Page.Page.Importing = true
	}
	in.Notes = append(in.Notes, r.notes...)
	fields := r.in.strs("fields")
	if len(fields) == 0 {
		return bounded.Fit(r.budget, in)
	}
	have := resultFields(reflect.TypeFor[T]())
	for _, f := range fields {
		if !slices.Contains(have, f) {
			return bounded.Fitted{}, &ArgumentError{Tool: r.call.Tool, Argument: "fields",
				Reason: fmt.Sprintf("%q is not a field of the results, which have %s", f, strings.Join(have, ", "))}
		}
	}
	keep := func(name string) bool { return name == "id" || slices.Contains(fields, name) }
	out := bounded.FitInput[projected]{Call: in.Call, Hints: in.Hints, Window: in.Window, Unclipped: in.Unclipped,
		Clipped: in.Clipped, WindowNext: in.WindowNext, Notes: in.Notes,
		Page: bounded.Paged[projected]{Page: in.Page.Page, CursorAt: in.Page.CursorAt}}
	for _, it := range in.Page.Items {
		p, err := project(it, keep)
		if err != nil {
			return bounded.Fitted{}, err
		}
		if in.Relevance != nil {
			p.score = in.Relevance(it)
		}
		out.Page.Items = append(out.Page.Items, p)
	}
	if in.Relevance != nil {
		out.Relevance = func(p projected) float64 { return p.score }
	}
	return bounded.Fit(r.budget, out)
}

// project encodes v, a JSON object, keeping the fields keep accepts, in
// order.
func project(v any, keep func(string) bool) (projected, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return projected{}, err
	}
	dec := json.NewDecoder(&b)
	if _, err := dec.Token(); err != nil { // {
		return projected{}, err
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return projected{}, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return projected{}, err
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
	return projected{raw: append(out, '}')}, nil
}
