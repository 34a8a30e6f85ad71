package toolargs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/boundedkit/bounded"
)

// Decl declares a tool's arguments: the tool's own, by a JSON Schema,
// and the paging ones bounded adds. [NewParser] compiles it.
type Decl struct {
	// Tool is the tool's name, which errors repeat.
	Tool string
	// In is the schema of the tool's own arguments: an object's, with no
	// paging argument among its properties. nil takes none.
	In *jsonschema.Schema
	// Args says, by name, what In's schema does not say of an argument.
	Args map[string]Arg
	// Limits, when its Max is set, adds the paging arguments of Paging:
	// limit, offset and cursor, or page, pageSize, offset and cursor.
	Limits bounded.Limits
	Paging bounded.Paging
	// NoCursor leaves the cursor argument out.
	NoCursor bool
	// Count and CountCap are the Page's: how its total is counted.
	Count    bounded.CountMode
	CountCap int
	// Budget is the tool's ceiling. It adds budget and budgetTokens,
	// whose maxima are its LimitChars and LimitTokens; a call's value
	// over a maximum is lowered to it, with a note.
	Budget bounded.Budget
	// Detail adds the detail argument: "concise" or "detailed". Concise,
	// when set, adds it too, and names the fields "concise" keeps.
	Detail  bool
	Concise []string
	// Fields adds the fields argument: the results keep only the fields
	// it names. FieldNames, when set, are those it may name.
	Fields     bool
	FieldNames []string
	// Terse leaves out of the added arguments' schemas what a server's
	// instructions say once: descriptions, a maximum of
	// bounded.MaxOffset, a default of 0 and a budget's default (its
	// maximum).
	Terse bool
}

// Arg is what the parser knows of one of In's arguments beyond its
// schema.
type Arg struct {
	// Kind is the sentinel its errors also match, e.g.
	// bounded.ErrInvalidWindow.
	Kind error
	// Clamp keeps a value over the schema's maximum, for the tool to
	// clamp and report, instead of refusing it.
	Clamp bool
}

// role is what an argument is for.
type role uint8

const (
	roleIn role = iota
	roleLimit
	roleOffset
	rolePage
	rolePageSize
	roleCursor
	roleBudget
	roleBudgetTokens
	roleDetail
	roleFields
)

// typ is how a value is parsed.
type typ uint8

const (
	typAny typ = iota // decoded as encoding/json decodes, numbers as json.Number
	typString
	typInt
	typNumber
	typBool
	typStrings
)

// arg is a compiled argument.
type arg struct {
	name   string
	schema *jsonschema.Schema
	role   role
	typ    typ
	types  []string // the JSON types it takes, but null
	kind   error
	clamp  bool
	def    any // the default, parsed; nil when none
}

// Parser parses the calls of one tool. It is safe for concurrent use.
type Parser struct {
	d      Decl
	full   *jsonschema.Schema
	args   map[string]*arg
	names  []string
	closed bool
	// resolved validates In's arguments whole, when In's schema says
	// more than the checks of each value; nil otherwise.
	resolved *jsonschema.Resolved
	required []string
	defaults []defaultArg
}

// defaultArg is an argument's default: its name, and "name":value.
type defaultArg struct {
	name   string
	member []byte
}

// NewParser compiles d. Its error says what is wrong with d: In not an
// object's schema, or naming an added argument, invalid Limits or
// Budget, Concise naming a field not in FieldNames.
func NewParser(d Decl) (*Parser, error) {
	in := d.In
	if in == nil {
		in = &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	} else {
		in = in.CloneSchemas()
	}
	if in.Type != "object" {
		return nil, fmt.Errorf("input schema: want an object's schema, not %v", in)
	}
	if err := d.Budget.Validate(); err != nil {
		return nil, err
	}
	if chars := d.Budget.LimitChars(); chars < MinBudget {
		return nil, fmt.Errorf("%w: the budget allows %d characters, under the minimum %d", bounded.ErrInvalidBudget, chars, MinBudget)
	}
	paged := d.Limits.Max > 0
	if paged {
		if _, err := d.Limits.Normalize(bounded.Page{Count: d.Count, CountCap: d.CountCap}); err != nil {
			return nil, err
		}
	}
	if d.FieldNames != nil {
		if err := CheckFields(d.Tool, d.FieldNames, d.Concise); err != nil {
			return nil, err
		}
	}
	p := &Parser{d: d, args: map[string]*arg{}, closed: isFalse(in.AdditionalProperties), required: in.Required}
	order := slices.Clone(in.PropertyOrder)
	if order == nil {
		order = slices.Sorted(maps.Keys(in.Properties))
	}
	deep := !shallowRoot(in)
	for _, name := range order {
		s := in.Properties[name]
		if s == nil {
			continue
		}
		a := &arg{name: name, schema: s, kind: d.Args[name].Kind, clamp: d.Args[name].Clamp}
		a.types, a.typ = typeOf(s)
		if !shallow(s, a.typ) {
			deep = true
		}
		if s.Default != nil {
			v, why := a.parse(s.Default)
			if why != "" {
				return nil, fmt.Errorf("input schema: argument %q: default: %s", name, why)
			}
			a.def = v
			key, _ := json.Marshal(name)
			p.defaults = append(p.defaults, defaultArg{name: name, member: append(append(key, ':'), s.Default...)})
		}
		p.args[name] = a
		p.names = append(p.names, name)
	}
	slices.SortFunc(p.defaults, func(a, b defaultArg) int { return compareStrings(a.name, b.name) })
	full := in
	if full.Properties == nil {
		full.Properties = map[string]*jsonschema.Schema{}
	}
	full.PropertyOrder = slices.Clone(order)
	for _, a := range p.added() {
		if _, dup := in.Properties[a.name]; dup {
			return nil, fmt.Errorf("input schema: argument %q is a paging argument of this tool", a.name)
		}
		full.Properties[a.name] = a.schema
		full.PropertyOrder = append(full.PropertyOrder, a.name)
		p.args[a.name] = a
		p.names = append(p.names, a.name)
	}
	if deep {
		only := in.CloneSchemas()
		for name, a := range d.Args {
			if s := only.Properties[name]; s != nil && a.Clamp { // over the maximum is the tool's to clamp
				s.Maximum, s.ExclusiveMaximum = nil, nil
			}
		}
		r, err := only.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		p.resolved = r
	}
	p.full = full
	return p, nil
}

// added returns the arguments d adds, in schema order.
func (p *Parser) added() []*arg {
	d := p.d
	terse := func(s string) string {
		if d.Terse {
			return ""
		}
		return s
	}
	var out []*arg
	add := func(name string, r role, t typ, kind error, clamp bool, s *jsonschema.Schema) {
		a := &arg{name: name, schema: s, role: r, typ: t, kind: kind, clamp: clamp}
		a.types, _ = typeOf(s)
		out = append(out, a)
	}
	integer := func(lo, hi, def int, desc string, ceiling bool) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(float64(lo)), Description: terse(desc)}
		if !d.Terse || hi != bounded.MaxOffset {
			s.Maximum = jsonschema.Ptr(float64(hi))
		}
		if !d.Terse || def != 0 && !ceiling {
			s.Default, _ = json.Marshal(def)
		}
		return s
	}
	if d.Limits.Max > 0 {
		l := d.Limits
		size := integer(1, l.Max, l.Default, fmt.Sprintf("Results per call: default %s, maximum %s (a larger value is clamped).", bounded.FormatCount(l.Default), bounded.FormatCount(l.Max)), false)
		offsetDesc := "Results to skip: 0 for the first. next holds the call that continues."
		if d.Paging == bounded.ByPage {
			add("page", rolePage, typInt, bounded.ErrInvalidPage, false, integer(0, bounded.MaxOffset, 0, "0-based page number: 0 for the first page.", false))
			add("pageSize", rolePageSize, typInt, bounded.ErrInvalidPage, true, size)
			offsetDesc = "Results to skip, instead of page."
		} else {
			add("limit", roleLimit, typInt, bounded.ErrInvalidPage, true, size)
		}
		off := integer(0, bounded.MaxOffset, 0, offsetDesc, false)
		if d.Terse && d.Paging == bounded.ByPage {
			off.Description = offsetDesc
		}
		add("offset", roleOffset, typInt, bounded.ErrInvalidPage, false, off)
		if !d.NoCursor {
			add("cursor", roleCursor, typString, bounded.ErrInvalidCursor, false, &jsonschema.Schema{Type: "string",
				Description: terse("pagination.nextCursor of the previous response with the same arguments: continues right after it, exactly even while results change. Excludes offset and page.")})
		}
	}
	chars, tokens := d.Budget.LimitChars(), d.Budget.LimitTokens()
	add("budget", roleBudget, typInt, bounded.ErrInvalidBudget, true, integer(min(MinBudget, chars), chars, chars,
		fmt.Sprintf("Most characters of this response, the envelope included: default and maximum %s.", bounded.FormatCount(chars)), true))
	add("budgetTokens", roleBudgetTokens, typInt, bounded.ErrInvalidBudget, true, integer(min(MinBudgetTokens, tokens), tokens, tokens,
		fmt.Sprintf("Most tokens of this response, e.g. what is left of your context: default and maximum %s.", bounded.FormatCount(tokens)), true))
	if d.Detail || d.Concise != nil {
		add("detail", roleDetail, typString, nil, false, &jsonschema.Schema{Type: "string", Enum: []any{"concise", "detailed"},
			Description: terse("concise: fewer fields per result.")})
	}
	if d.Fields {
		items := &jsonschema.Schema{Type: "string"}
		for _, f := range d.FieldNames {
			items.Enum = append(items.Enum, f)
		}
		add("fields", roleFields, typStrings, nil, false, &jsonschema.Schema{Type: "array", Items: items,
			Description: terse("Only these fields of each result (and its id).")})
	}
	return out
}

// Schema returns the tool's input schema: In's, with the arguments d
// adds, in order. The caller must not change it.
func (p *Parser) Schema() *jsonschema.Schema { return p.full }

// Names returns the names of the arguments the tool takes, in the
// schema's order.
func (p *Parser) Names() []string { return slices.Clone(p.names) }

// Budget returns the tool's budget.
func (p *Parser) Budget() bounded.Budget { return p.d.Budget }

// typeOf returns the JSON types s takes, null aside, and how a value of
// them is parsed.
func typeOf(s *jsonschema.Schema) ([]string, typ) {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(types) != 1 {
		return types, typAny
	}
	switch types[0] {
	case "string":
		return types, typString
	case "integer":
		return types, typInt
	case "number":
		return types, typNumber
	case "boolean":
		return types, typBool
	case "array":
		if s.Items != nil && s.Items.Type == "string" && shallowKeys(s.Items, "type", "description", "enum") {
			return types, typStrings
		}
	}
	return types, typAny
}

// shallow reports whether the checks of one value (type, bounds, enum,
// the entries of a list of strings and their number) are all s says.
func shallow(s *jsonschema.Schema, t typ) bool {
	if t == typAny && len(s.Types) == 0 && s.Type == "" {
		return shallowKeys(s, "description", "title", "default")
	}
	keys := []string{"type", "description", "title", "default", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
	if t == typStrings {
		keys = append(keys, "items", "maxItems", "minItems")
	}
	return t != typAny && shallowKeys(s, keys...)
}

// shallowRoot reports whether the object schema s says no more than its
// properties, which are required, and whether it takes others.
func shallowRoot(s *jsonschema.Schema) bool {
	ap := s.AdditionalProperties
	if ap != nil && !isFalse(ap) {
		if b, err := json.Marshal(ap); err != nil || string(b) != "true" && string(b) != "{}" {
			return false
		}
	}
	return shallowKeys(s, "type", "properties", "required", "additionalProperties", "description", "title", "$schema", "$id")
}

// shallowKeys reports whether s, as JSON, has no key but keys.
func shallowKeys(s *jsonschema.Schema, keys ...string) bool {
	b, err := json.Marshal(s)
	if err != nil {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return string(b) == "true"
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// isFalse reports whether s is the schema false, which no value passes.
func isFalse(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
