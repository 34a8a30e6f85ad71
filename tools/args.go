package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// ErrInvalidArguments is wrapped by every error about the arguments of a
// tool call. The error is an [*ArgumentError], which names the tool and the
// argument; pagination arguments also match [bounded.ErrInvalidPage],
// line-window arguments [bounded.ErrInvalidWindow], the budget
// [bounded.ErrInvalidBudget], and query arguments [ports.ErrInvalidQuery].
var ErrInvalidArguments = toolargs.ErrInvalidArguments

// ErrUnknownTool is returned by [Set.Call] for a name that is not one of the
// set's tools.
var ErrUnknownTool = errors.New("tools: unknown tool")

// ArgumentError is the error of a bad argument: see [toolargs.ArgumentError].
type ArgumentError = toolargs.ArgumentError

// kind is the JSON type of an argument.
type kind uint8

const (
	kindString kind = iota
	kindInt
	kindNumber
	kindBool
	kindStrings
)

var kindNames = [...]string{"string", "integer", "number", "boolean", "array"}

// role says what an argument is for. Arguments other than pagination ones
// are repeated, as the caller gave them, in the next call of a hint.
type role uint8

const (
	roleArg role = iota
	roleLimit
	roleOffset
	rolePage
	rolePageSize
	roleCursor
)

// param declares one argument: its schema, and how it is parsed.
type param struct {
	name     string
	kind     kind
	desc     string
	required bool
	role     role
	// min and max bound an integer (hasMin, hasMax); a value over max is
	// kept when clamp is set (the port or the budget clamps it and says
	// so), and is an error otherwise.
	hasMin, hasMax bool
	min, max       int
	clamp          bool
	// ceiling: the default is the maximum (a budget), which the schema
	// does not repeat.
	ceiling bool
	// fmin and fmax bound a number: fmin < value <= fmax.
	fmin, fmax float64
	def        any
	enum       []string
	maxItems   int
	// sentinel is the domain error a bad value also matches.
	sentinel error
}

// spec declares a tool: its name, what it says, its arguments and paging.
type spec struct {
	name   string
	desc   string
	params []param
	// paged tools take pagination arguments, by paging style, with limits.
	paged  bool
	paging bounded.Paging
	limits bounded.Limits
	// noCursor leaves the cursor argument out: the tool pages in memory
	// (get_notes over its ids, get_note_links over its categories), by
	// offset only.
	noCursor bool
}

// input is a tool call's parsed arguments: only those the caller gave, by
// name, as string, int, float64, bool or []string.
type input struct {
	spec *spec
	vals map[string]any
	// raw is the arguments as given, size their length in characters.
	raw  string
	size int
}

func (in *input) has(name string) bool { _, ok := in.vals[name]; return ok }

func (in *input) value(name string) any {
	if v, ok := in.vals[name]; ok {
		return v
	}
	for _, p := range in.spec.params {
		if p.name == name {
			return p.def
		}
	}
	return nil
}

// str returns a string argument, or its default, or "".
func (in *input) str(name string) string { s, _ := in.value(name).(string); return s }

// num returns a number argument, or its default, or 0.
func (in *input) num(name string) float64 { f, _ := in.value(name).(float64); return f }

// bool returns a boolean argument, or its default, or false.
func (in *input) bool(name string) bool { b, _ := in.value(name).(bool); return b }

// strs returns a list argument, or nil.
func (in *input) strs(name string) []string { s, _ := in.value(name).([]string); return s }

// parse reads raw, the JSON object of a call's arguments, strictly: it must
// be one object (or empty, or null: no arguments), valid UTF-8, with no
// unknown or repeated key, and every value of its declared type and range.
// An explicit null is the same as leaving the argument out.
func (sp *spec) parse(raw json.RawMessage) (*input, error) {
	in := &input{spec: sp, vals: make(map[string]any), raw: string(raw), size: utf8.RuneCount(raw)}
	bad := func(arg, reason string, kind error) error {
		return &ArgumentError{Tool: sp.name, Argument: arg, Reason: reason, Kind: kind}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return in, in.checkRequired()
	}
	if !utf8.Valid(raw) {
		return nil, bad("", "not valid UTF-8", nil)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad("", "want one JSON object, e.g. {\"id\":\"Home\"}", nil)
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad("", "malformed JSON: "+err.Error(), nil)
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, bad("", "malformed JSON: "+err.Error(), nil)
		}
		if seen[name] {
			return nil, bad(name, "given twice", nil)
		}
		seen[name] = true
		i := slices.IndexFunc(sp.params, func(p param) bool { return p.name == name })
		if i < 0 {
			return nil, toolargs.Unknown(sp.name, name, sp.paramNames())
		}
		if string(v) == "null" {
			continue
		}
		val, err := sp.params[i].parse(v)
		if err != nil {
			return nil, bad(name, err.Error(), sp.params[i].sentinel)
		}
		in.vals[name] = val
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad("", "malformed JSON: "+err.Error(), nil)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("", "more than one JSON value", nil)
	}
	return in, in.checkRequired()
}

func (in *input) checkRequired() error {
	for _, p := range in.spec.params {
		if p.required && !in.has(p.name) {
			return &ArgumentError{Tool: in.spec.name, Argument: p.name, Reason: "is required", Kind: p.sentinel}
		}
	}
	return nil
}

func (sp *spec) paramNames() []string {
	names := make([]string, len(sp.params))
	for i, p := range sp.params {
		names[i] = p.name
	}
	return names
}

// parse decodes one value of p, already known to be valid JSON and not null.
// The error's text is the reason only; parse's caller adds the names.
func (p param) parse(v json.RawMessage) (any, error) {
	wrongType := errors.New(toolargs.WrongType(show(v), jsonType(v), kindNames[p.kind]))
	switch p.kind {
	case kindString:
		if v[0] != '"' {
			return nil, wrongType
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(quoteAll(p.enum), ", "))
		}
		return s, nil
	case kindBool:
		switch string(v) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, wrongType
	case kindInt:
		if !isNumber(v) {
			return nil, wrongType
		}
		n, err := wholeNumber(string(v))
		if err != nil {
			return nil, err
		}
		switch {
		case p.hasMin && n < p.min:
			return nil, fmt.Errorf("%s is below the minimum %d", v, p.min)
		case p.hasMax && n > p.max && !p.clamp:
			return nil, fmt.Errorf("%s is over the maximum %d", v, p.max)
		}
		return n, nil
	case kindNumber:
		if !isNumber(v) {
			return nil, wrongType
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s is out of range", v)
		}
		if f <= p.fmin || f > p.fmax {
			return nil, fmt.Errorf("%s is not in (%v, %v]", v, p.fmin, p.fmax)
		}
		return f, nil
	case kindStrings:
		if v[0] != '[' {
			return nil, wrongType
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, err
		}
		if p.maxItems > 0 && len(elems) > p.maxItems {
			return nil, fmt.Errorf("%d entries, over the maximum %d", len(elems), p.maxItems)
		}
		out := make([]string, len(elems))
		for i, e := range elems {
			if len(e) == 0 || e[0] != '"' {
				return nil, fmt.Errorf("entry %d: %s", i, toolargs.WrongType(show(e), jsonType(e), "string"))
			}
			if err := json.Unmarshal(e, &out[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown kind %d", p.kind)
}

func isNumber(v json.RawMessage) bool {
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}

// jsonType is the JSON Schema type of v, one valid JSON value.
func jsonType(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	switch c := v[0]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	}
	if _, err := wholeNumber(string(v)); err != nil && strings.Contains(err.Error(), "not a whole number") {
		return "number"
	}
	return "integer"
}

// show is v for an error message, cut as [toolargs.Cut] cuts.
func show(v json.RawMessage) string { return toolargs.Cut(string(v)) }

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

// wholeNumber parses a JSON number literal that must be a whole number of
// magnitude at most [bounded.MaxOffset], exactly: "2.0" and "2e3" are whole,
// "2.5" and "1e-1" are not, "1e20" is too large. It never builds a huge
// value, whatever the exponent.
func wholeNumber(lit string) (int, error) {
	s, neg := strings.CutPrefix(lit, "-")
	mant, expStr, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil
	}
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expStr, "+"))
		switch {
		case err != nil && strings.HasPrefix(expStr, "-"), e < -1_000_000:
			return 0, fmt.Errorf("%s is not a whole number", lit)
		case err != nil, e > 1_000_000:
			return 0, fmt.Errorf("%s is over the maximum %d", lit, bounded.MaxOffset)
		}
		exp = e
	}
	exp -= len(frac)
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return 0, fmt.Errorf("%s is not a whole number", lit)
	}
	if len(digits)+exp > 16 {
		return 0, fmt.Errorf("%s is over the maximum %d", lit, bounded.MaxOffset)
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", exp), 10, 64)
	if err != nil || n > bounded.MaxOffset {
		return 0, fmt.Errorf("%s is over the maximum %d", lit, bounded.MaxOffset)
	}
	if neg {
		n = -n
	}
	return int(n), nil
}

// schemaFor returns the JSON Schema of sp's arguments: an object with one
// property per argument, in declaration order, and no others.
func (sp *spec) schemaFor() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range sp.params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(p.name))
		b.WriteByte(':')
		b.Write(mustJSON(p.schema()))
		if p.required {
			required = append(required, p.name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		b.Write(mustJSON(required))
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes()
}

// propSchema is the JSON Schema of one argument.
type propSchema struct {
	Type             string      `json:"type"`
	Description      string      `json:"description,omitempty"`
	Enum             []string    `json:"enum,omitempty"`
	Items            *propSchema `json:"items,omitempty"`
	MaxItems         int         `json:"maxItems,omitempty"`
	Minimum          any         `json:"minimum,omitempty"`
	ExclusiveMinimum any         `json:"exclusiveMinimum,omitempty"`
	Maximum          any         `json:"maximum,omitempty"`
	Default          any         `json:"default,omitempty"`
}

// The schema leaves out what it would repeat in every tool without news:
// a maximum of bounded.MaxOffset (every integer argument's), a default of
// 0, and a ceiling's default (its maximum).
func (p param) schema() propSchema {
	s := propSchema{Type: kindNames[p.kind], Description: p.desc, Enum: p.enum, Default: p.def}
	switch p.kind {
	case kindInt:
		if p.hasMin {
			s.Minimum = p.min
		}
		if p.hasMax && p.max != bounded.MaxOffset {
			s.Maximum = p.max
		}
		if d, ok := p.def.(int); ok && (d == 0 || p.ceiling) {
			s.Default = nil
		}
	case kindNumber:
		s.ExclusiveMinimum, s.Maximum = p.fmin, p.fmax
	case kindStrings:
		s.Items = &propSchema{Type: "string"}
		s.MaxItems = p.maxItems
	}
	return s
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only the package's own schema values are encoded
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
