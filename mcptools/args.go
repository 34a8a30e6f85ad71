package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/toolargs"
)

// tool is a registered tool's schema and what parsing its calls needs.
type tool struct {
	mcp    *mcp.Tool
	limits bounded.Limits
	paging bounded.Paging
	count  bounded.CountMode
	budget bounded.Budget
	// in is the schema of the arguments other than the paging ones, and
	// resolved the same, resolved; closed says it takes no others.
	in       *jsonschema.Schema
	resolved *jsonschema.Resolved
	closed   bool
	// params are the paging arguments, by name.
	params map[string]param
	// names are all the arguments' names, in the schema's order.
	names []string
	// fields are the results' fields the fields argument may name.
	fields []string
	// concise are the fields detail=concise keeps.
	concise []string
	// defaults are the defaults of In's arguments.
	defaults []defaultArg
}

// param is a paging argument: its schema, whether a value over its
// maximum is clamped rather than refused, whether next repeats it (the
// budgets), and the sentinel its errors match.
type param struct {
	schema *jsonschema.Schema
	clamp  bool
	repeat bool
	kind   error
}

// parsedCall is a call's arguments, checked.
type parsedCall struct {
	// in is the JSON object In decodes: the arguments other than the
	// paging ones, with the defaults of those missing.
	in []byte
	// call is the call that next continues: every argument given but
	// the paging ones, in order. scope binds the cursors: the tool and
	// the arguments In holds, by name.
	call, scope bounded.Call
	page        bounded.Page
	// budget is the tool's budget lowered by budget and budgetTokens.
	budget bounded.Budget
	// fields are the fields of each result the call asks for; nil for
	// all.
	fields []string
}

// buildTool returns the tool t with the schema of in (unless t has one)
// extended with the paging arguments, the output schema of an envelope of
// item (unless t has one) and the size hint. fields, when set, are the
// results' fields the fields argument names; concise, when set, those
// the detail argument's "concise" keeps.
func buildTool(t *mcp.Tool, in, item reflect.Type, l bounded.Limits, paging bounded.Paging, count bounded.CountMode, b bounded.Budget, fields, concise []string) (*tool, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	chars := b.LimitChars()
	if chars < toolargs.MinBudget {
		return nil, fmt.Errorf("%w: the budget allows %d characters, under the minimum %d", bounded.ErrInvalidBudget, chars, toolargs.MinBudget)
	}
	s, err := inputSchema(t.InputSchema, in)
	if err != nil {
		return nil, err
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	tl := &tool{limits: l, paging: paging, count: count, budget: b, in: s, resolved: resolved,
		closed: isFalse(s.AdditionalProperties), params: pagingParams(paging, l, b)}
	if fields != nil {
		tl.params["fields"], tl.fields = fieldsParam(fields), fields
	}
	if concise != nil {
		tl.params["detail"], tl.concise = detailParam, concise
	}
	full := s.CloneSchemas()
	if full.Properties == nil {
		full.Properties = map[string]*jsonschema.Schema{}
	}
	for _, name := range paramOrder {
		p, ok := tl.params[name]
		if !ok {
			continue
		}
		if _, dup := full.Properties[name]; dup {
			return nil, fmt.Errorf("input schema: argument %q is a paging argument of this tool", name)
		}
		full.Properties[name] = p.schema
		if full.PropertyOrder != nil {
			full.PropertyOrder = append(full.PropertyOrder, name)
		}
	}
	tl.names = argNames(s, full)
	tl.defaults = defaultsOf(s)
	mt := *t
	mt.InputSchema = full
	if mt.OutputSchema == nil {
		mt.OutputSchema = envelopeSchema(item)
		if fields != nil || concise != nil { // a result may leave out any field
			results := mt.OutputSchema.(*jsonschema.Schema).Properties["results"]
			results.Items = results.Items.CloneSchemas()
			results.Items.Required = nil
		}
	}
	mt.Meta = maps.Clone(t.Meta)
	if mt.Meta == nil {
		mt.Meta = mcp.Meta{}
	}
	mt.Meta[MetaMaxResultSizeChars] = chars
	tl.mcp = &mt
	return tl, nil
}

// inputSchema is the tool's own schema as a *jsonschema.Schema, or the
// schema inferred from in; either must be an object's.
func inputSchema(given any, in reflect.Type) (*jsonschema.Schema, error) {
	var s *jsonschema.Schema
	switch given := given.(type) {
	case nil:
		inferred, err := jsonschema.ForType(in, nil)
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		s = inferred
	case *jsonschema.Schema:
		s = given.CloneSchemas()
	default:
		b, err := json.Marshal(given)
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	if s == nil || s.Type != "object" {
		return nil, fmt.Errorf("input schema: want an object's schema (In a struct), not %v", s)
	}
	return s, nil
}

// argNames are the names of the arguments of full, the schema s with
// the paging arguments: s's in its order (by name when it has none),
// then the paging ones.
func argNames(s, full *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	if names == nil {
		names = slices.Sorted(maps.Keys(s.Properties))
	}
	for _, name := range paramOrder {
		if _, ok := full.Properties[name]; ok {
			names = append(names, name)
		}
	}
	return names
}

// isFalse reports whether s is the schema false, which no value passes.
func isFalse(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// The paging arguments, in the order the schema lists them.
var paramOrder = []string{"page", "pageSize", "limit", "offset", "cursor", "budget", "budgetTokens", "detail", "fields"}

// pagingParams returns the paging arguments of paging, and budget and
// budgetTokens, with the limits of l and b.
func pagingParams(paging bounded.Paging, l bounded.Limits, b bounded.Budget) map[string]param {
	chars, tokens := b.LimitChars(), b.LimitTokens()
	ps := map[string]param{
		"offset": {schema: integer(0, bounded.MaxOffset, 0, "Results to skip: 0 for the first. next holds the call that continues."), kind: bounded.ErrInvalidPage},
		"cursor": {schema: &jsonschema.Schema{Type: "string", Description: "pagination.nextCursor of the previous response with the same arguments: continues right after it, exactly even while results change. Excludes offset and page."}, kind: bounded.ErrInvalidCursor},
		"budget": {schema: integer(min(toolargs.MinBudget, chars), chars, chars,
			fmt.Sprintf("Most characters of this response, the envelope included: default and maximum %s.", bounded.FormatCount(chars))),
			clamp: true, repeat: true, kind: bounded.ErrInvalidBudget},
		"budgetTokens": {schema: integer(min(toolargs.MinBudgetTokens, tokens), tokens, tokens,
			fmt.Sprintf("Most tokens of this response, e.g. what is left of your context: default and maximum %s.", bounded.FormatCount(tokens))),
			clamp: true, repeat: true, kind: bounded.ErrInvalidBudget},
	}
	size := param{schema: integer(1, l.Max, l.Default,
		fmt.Sprintf("Results per call: default %s, maximum %s (a larger value is clamped).", bounded.FormatCount(l.Default), bounded.FormatCount(l.Max))),
		clamp: true, kind: bounded.ErrInvalidPage}
	if paging == bounded.ByPage {
		ps["page"] = param{schema: integer(0, bounded.MaxOffset, 0, "0-based page number: 0 for the first page."), kind: bounded.ErrInvalidPage}
		ps["pageSize"] = size
	} else {
		ps["limit"] = size
	}
	return ps
}

// integer is the schema of an integer argument.
func integer(lo, hi, def int, desc string) *jsonschema.Schema {
	d, _ := json.Marshal(def)
	return &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(float64(lo)), Maximum: jsonschema.Ptr(float64(hi)), Default: d, Description: desc}
}

// parse checks the arguments raw (a JSON object, or empty) against the
// tool's schema, and returns the call they make.
func (tl *tool) parse(raw json.RawMessage) (parsedCall, error) {
	name := tl.mcp.Name
	var args bounded.Args
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && string(trimmed) != "null" {
		if trimmed[0] != '{' {
			return parsedCall{}, reply.ArgError(name, "", "want a JSON object, not "+reply.Show(json.RawMessage(trimmed)), nil)
		}
		if err := json.Unmarshal(trimmed, &args); err != nil {
			return parsedCall{}, reply.ArgError(name, "", strings.TrimPrefix(err.Error(), "bounded: "), nil)
		}
	}
	var given, repeated bounded.Args // In's arguments; those next repeats
	vals := map[string]any{}
	for _, a := range args {
		if a.Value == nil {
			continue // null is the same as leaving the argument out
		}
		if p, ok := tl.params[a.Name]; ok {
			v, why := p.value(a.Value)
			if why != "" {
				return parsedCall{}, reply.ArgError(name, a.Name, why, p.kind)
			}
			if a.Name == "fields" {
				if v, why = stringList(v); why != "" {
					return parsedCall{}, reply.ArgError(name, a.Name, why, nil)
				}
			}
			vals[a.Name] = v
			if p.repeat {
				repeated = append(repeated, a)
			}
			continue
		}
		s, known := tl.in.Properties[a.Name]
		switch {
		case !known && tl.closed:
			return parsedCall{}, toolargs.Unknown(name, toolargs.Cut(a.Name), tl.names)
		case known:
			if why := check(s, a.Value, false); why != "" {
				return parsedCall{}, reply.ArgError(name, a.Name, why, nil)
			}
		}
		given = append(given, a)
		repeated = append(repeated, a)
	}
	for _, r := range tl.in.Required {
		if _, ok := given.Get(r); !ok {
			return parsedCall{}, reply.ArgError(name, r, "missing: it is required", nil)
		}
	}
	in, err := tl.object(given)
	if err != nil {
		return parsedCall{}, err
	}
	p, err := tl.page(vals)
	if err != nil {
		return parsedCall{}, err
	}
	fields, _ := vals["fields"].([]string)
	if err := toolargs.CheckFields(name, tl.fields, fields); err != nil {
		return parsedCall{}, err
	}
	if fields == nil && vals["detail"] == "concise" {
		fields = tl.concise
	}
	return parsedCall{
		in:     in,
		call:   bounded.Call{Tool: name, Args: repeated, Paging: tl.paging, DefaultLimit: tl.limits.Default},
		scope:  bounded.Call{Tool: name, Args: slices.SortedFunc(slices.Values(given), func(a, b bounded.Arg) int { return strings.Compare(a.Name, b.Name) })},
		page:   p,
		budget: toolargs.CallBudget(tl.budget, vals),
		fields: fields,
	}, nil
}

// object validates the arguments given against the whole schema and
// returns them as the JSON object In decodes, with the schema's defaults
// for those missing.
func (tl *tool) object(given bounded.Args) ([]byte, error) {
	plain := make(map[string]any, len(given))
	for _, a := range given {
		v, err := plainValue(a.Value)
		if err != nil {
			return nil, reply.ArgError(tl.mcp.Name, a.Name, err.Error(), nil)
		}
		plain[a.Name] = v
	}
	if err := tl.resolved.Validate(plain); err != nil {
		return nil, reply.ArgError(tl.mcp.Name, "", strings.TrimPrefix(err.Error(), "validating root: "), nil)
	}
	b, err := given.MarshalJSON()
	if err != nil {
		return nil, reply.ArgError(tl.mcp.Name, "", err.Error(), nil)
	}
	for _, d := range tl.defaults {
		if _, ok := plain[d.name]; ok {
			continue
		}
		if len(b) > 2 {
			b[len(b)-1] = ','
		} else {
			b = b[:len(b)-1]
		}
		b = append(append(b, d.member...), '}')
	}
	return b, nil
}

// plainValue returns v, a value as bounded.Args decodes it, as
// encoding/json decodes it into an any: numbers as float64.
func plainValue(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is out of range", reply.Show(v))
		}
		return f, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			pe, err := plainValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = pe
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			pe, err := plainValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = pe
		}
		return out, nil
	}
	return v, nil
}

// defaultsOf are the arguments of s with a default, by name: each as a
// member of a JSON object.
func defaultsOf(s *jsonschema.Schema) []defaultArg {
	var out []defaultArg
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if def := s.Properties[name].Default; def != nil {
			key, _ := json.Marshal(name)
			out = append(out, defaultArg{name: name, member: append(append(key, ':'), def...)})
		}
	}
	return out
}

// defaultArg is an argument's default: its name, and "name":value.
type defaultArg struct {
	name   string
	member []byte
}

// page is the page the paging arguments vals ask for.
func (tl *tool) page(vals map[string]any) (bounded.Page, error) {
	p, err := toolargs.PageArgsOf(vals, tl.paging).Page(tl.mcp.Name, tl.limits)
	p.Count = tl.count
	return p, err
}

// value checks v, an argument's value as bounded.Args decodes it, and
// returns it as an int (a string for the cursor), or why it is wrong.
func (p param) value(v any) (any, string) {
	if why := check(p.schema, v, p.clamp); why != "" {
		return nil, why
	}
	n, ok := v.(json.Number)
	if !ok {
		return v, ""
	}
	// Whole, within the minimum, and within the maximum unless p clamps.
	// A value over the maximum stays as given, up to MaxOffset: a limit
	// is clamped by bounded.Limits, which reports it, and a budget by
	// toolargs.CallBudget.
	i, err := strconv.Atoi(string(n))
	if err != nil { // 1e3, or over any int
		f, _ := strconv.ParseFloat(string(n), 64)
		i = int(min(f, bounded.MaxOffset))
	}
	return min(i, bounded.MaxOffset), ""
}

// check returns why v, an argument's value as bounded.Args decodes it,
// does not pass the top level of s ("" when it does): its type, bounds
// and enumeration. Over the maximum passes when clamp is set. Nested
// constraints are left to the schema's validation.
func check(s *jsonschema.Schema, v any, clamp bool) string {
	got := jsonType(v)
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	if len(want) > 0 && !slices.Contains(want, got) && (got != "integer" || !slices.Contains(want, "number")) {
		if got == "number" && slices.Contains(want, "integer") {
			return reply.Show(v) + " is not a whole number"
		}
		return toolargs.WrongType(reply.Show(v), got, want...)
	}
	if n, ok := v.(json.Number); ok {
		f, _ := strconv.ParseFloat(string(n), 64)
		switch {
		case s.Minimum != nil && f < *s.Minimum:
			return fmt.Sprintf("%s is below the minimum %v", reply.Show(n), *s.Minimum)
		case s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum:
			return fmt.Sprintf("%s is not over %v", reply.Show(n), *s.ExclusiveMinimum)
		case clamp:
		case s.Maximum != nil && f > *s.Maximum:
			return fmt.Sprintf("%s is over the maximum %v", reply.Show(n), *s.Maximum)
		case s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum:
			return fmt.Sprintf("%s is not under %v", reply.Show(n), *s.ExclusiveMaximum)
		}
	}
	if s.Enum != nil {
		b, _ := json.Marshal(v)
		var shown []string
		for _, e := range s.Enum {
			eb, _ := json.Marshal(e)
			if bytes.Equal(b, eb) {
				return ""
			}
			shown = append(shown, string(eb))
		}
		return fmt.Sprintf("%s is not one of %s", reply.Show(v), strings.Join(shown, ", "))
	}
	return ""
}

// jsonType is the JSON Schema type of v, as bounded.Args decodes values.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}
