package toolargs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/probe"
)

// Call is a call's arguments, checked: what the tool reads, and what
// the response says.
type Call struct {
	// Args are the tool's own arguments given, in order, each value
	// typed by its schema: a string, an int, a float64, a bool, a
	// []string, or as encoding/json decodes it with numbers as
	// json.Number. A null argument is left out.
	Args bounded.Args
	// Next is the call that continues: every argument given but the
	// paging ones, in order, budgets lowered to their maxima.
	Next bounded.Call
	// Page is the page the paging arguments ask for, not normalized.
	Page bounded.Page
	// Budget is the tool's budget lowered by budget and budgetTokens.
	Budget bounded.Budget
	// Detail is the detail argument; "" when not given.
	Detail string
	// Fields are the fields of each result the call keeps (fields, or
	// the concise ones); nil for all.
	Fields []string
	// Notes say what was lowered: a budget over its maximum.
	Notes []string

	p *Parser
}

// Parse checks raw, the JSON object of a call's arguments (empty or
// null for none), and returns the call it makes. It must be one JSON
// object of valid UTF-8, with no key repeated; each value of its
// argument's type and within its bounds; every required argument
// given. A null value is the same as leaving the argument out. A value
// over its maximum is refused, but for the page size and the budgets,
// which are lowered, and the arguments [Arg.Clamp] names. Errors are
// [*ArgumentError]s matching the argument's sentinel.
// A budget ctx carries ([WithBudget]) lowers budgetTokens further.
func (p *Parser) Parse(ctx context.Context, raw json.RawMessage) (*Call, error) {
	probe.Parsed()
	tool := p.d.Tool
	c := &Call{p: p, Budget: p.d.Budget}
	c.Next = bounded.Call{Tool: tool, Paging: p.d.Paging, DefaultLimit: p.d.Limits.Default}
	var pa pageArgs
	chars, tokens := 0, 0
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && string(raw) != "null" {
		if !utf8.Valid(raw) {
			return nil, bad(tool, "", "not valid UTF-8", nil)
		}
		if raw[0] != '{' {
			return nil, bad(tool, "", "want a JSON object, not "+Cut(string(raw)), nil)
		}
		members, err := decodeObject(tool, raw)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			name, v := m.name, m.value
			a := p.args[name]
			if a == nil && p.closed {
				return nil, Unknown(tool, Cut(name), p.names)
			}
			if string(v) == "null" {
				continue
			}
			if a == nil { // an argument of an open schema
				val, why := anyValue(v)
				if why != "" {
					return nil, bad(tool, name, why, nil)
				}
				c.Args = append(c.Args, bounded.Arg{Name: name, Value: val})
				c.Next.Args = append(c.Next.Args, bounded.Arg{Name: name, Value: val})
				continue
			}
			val, why := a.parse(v)
			if why != "" {
				return nil, bad(tool, name, why, a.kind)
			}
			switch a.role {
			case roleIn:
				c.Args = append(c.Args, bounded.Arg{Name: name, Value: val})
				c.Next.Args = append(c.Next.Args, bounded.Arg{Name: name, Value: val})
				continue
			case roleLimit, rolePageSize:
				pa.Size = val.(int)
			case roleOffset:
				pa.Offset, pa.HasOffset = val.(int), true
			case rolePage:
				pa.Number, pa.HasNumber = val.(int), true
			case roleCursor:
				pa.Cursor, pa.HasCursor = val.(string), true
			case roleBudget, roleBudgetTokens:
				n, most := val.(int), int(*a.schema.Maximum)
				if n > most {
					c.Notes = append(c.Notes, fmt.Sprintf("%s %s is over the maximum %s, which was used.", name, bounded.FormatCount(n), bounded.FormatCount(most)))
					n = most
				}
				if a.role == roleBudget {
					chars = n
				} else {
					tokens = n
				}
				c.Next.Args = append(c.Next.Args, bounded.Arg{Name: name, Value: n})
			case roleDetail:
				c.Detail = val.(string)
				c.Next.Args = append(c.Next.Args, bounded.Arg{Name: name, Value: val})
			case roleFields:
				c.Fields = val.([]string)
				c.Next.Args = append(c.Next.Args, bounded.Arg{Name: name, Value: val})
			}
		}
	}
	for _, r := range p.required {
		if _, ok := c.Args.Get(r); !ok {
			a := p.args[r]
			var kind error
			if a != nil {
				kind = a.kind
			}
			return nil, bad(tool, r, "missing: it is required", kind)
		}
	}
	if p.resolved != nil {
		if err := p.validate(c.Args); err != nil {
			return nil, err
		}
	}
	if p.d.Limits.Max > 0 {
		pg, err := pa.Page(tool, p.d.Limits)
		if err != nil {
			return nil, err
		}
		pg.Count, pg.CountCap = p.d.Count, p.d.CountCap
		c.Page = pg
	}
	if c.Fields != nil && p.d.FieldNames != nil {
		if err := CheckFields(tool, p.d.FieldNames, c.Fields); err != nil {
			return nil, err
		}
	}
	if c.Fields == nil && c.Detail == "concise" && p.d.Concise != nil {
		c.Fields = p.d.Concise
	}
	if b, ok := ctx.Value(budgetKey{}).(bounded.Budget); ok {
		if most := b.LimitTokens(); most < p.d.Budget.LimitTokens() && (tokens == 0 || tokens > most) {
			tokens = most
			c.Next.Args = setArg(c.Next.Args, "budgetTokens", most)
		}
	}
	c.Budget = lowerBudget(p.d.Budget, chars, tokens)
	return c, nil
}

type budgetKey struct{}

// WithBudget returns ctx carrying b, a server's limit on every tool's
// results (MAX_MCP_OUTPUT_TOKENS'). When b allows fewer tokens than the
// tool's budget, [Parser.Parse] gives a call that asks for more, or
// for none, a budgetTokens of b's LimitTokens, which next repeats.
func WithBudget(ctx context.Context, b bounded.Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// Has reports whether the call gave the tool's own argument name.
func (c *Call) Has(name string) bool { _, ok := c.Args.Get(name); return ok }

// Value returns the tool's own argument name as given, or its default,
// or nil.
func (c *Call) Value(name string) any {
	if v, ok := c.Args.Get(name); ok {
		return v
	}
	if a := c.p.args[name]; a != nil {
		return a.def
	}
	return nil
}

// Str returns a string argument, or its default, or "".
func (c *Call) Str(name string) string { s, _ := c.Value(name).(string); return s }

// Int returns an integer argument as given, or 0: not its default.
func (c *Call) Int(name string) int { v, _ := c.Args.Get(name); n, _ := v.(int); return n }

// Num returns a number argument, or its default, or 0.
func (c *Call) Num(name string) float64 { f, _ := c.Value(name).(float64); return f }

// Bool returns a boolean argument, or its default, or false.
func (c *Call) Bool(name string) bool { b, _ := c.Value(name).(bool); return b }

// Strs returns a list of strings, or its default, or nil.
func (c *Call) Strs(name string) []string { s, _ := c.Value(name).([]string); return s }

// Scope is the call that binds the cursors: the tool, and its own
// arguments given, by name.
func (c *Call) Scope() bounded.Call {
	return bounded.Call{Tool: c.Next.Tool, Args: slices.SortedFunc(slices.Values(c.Args), func(a, b bounded.Arg) int { return strings.Compare(a.Name, b.Name) })}
}

// In returns the JSON object of the tool's own arguments given, with
// the defaults of In's schema for those missing.
func (c *Call) In() ([]byte, error) {
	b, err := c.Args.MarshalJSON()
	if err != nil {
		return nil, bad(c.Next.Tool, "", err.Error(), nil)
	}
	for _, d := range c.p.defaults {
		if c.Has(d.name) {
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

// member is one member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// decodeObject returns the members of raw, one JSON object, in order; a
// key given twice, malformed JSON or more than one value is an
// [*ArgumentError] of tool.
func decodeObject(tool string, raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.Token() // {
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(tool, "", "malformed JSON: "+err.Error(), nil)
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, bad(tool, "", "malformed JSON: "+err.Error(), nil)
		}
		for _, m := range out {
			if m.name == name {
				return nil, bad(tool, name, "given twice", nil)
			}
		}
		out = append(out, member{name, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(tool, "", "malformed JSON: "+err.Error(), nil)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(tool, "", "more than one JSON value", nil)
	}
	return out, nil
}

// setArg returns args with name's value v, in its place or last.
func setArg(args bounded.Args, name string, v any) bounded.Args {
	for i, a := range args {
		if a.Name == name {
			args[i].Value = v
			return args
		}
	}
	return append(args, bounded.Arg{Name: name, Value: v})
}

// bad is the error of a bad argument, its name cut.
func bad(tool, name, reason string, kind error) *ArgumentError {
	return &ArgumentError{Tool: tool, Argument: Cut(name), Reason: reason, Kind: kind}
}

// validate checks args against In's whole schema.
func (p *Parser) validate(args bounded.Args) error {
	plain := make(map[string]any, len(args))
	for _, a := range args {
		v, err := plainValue(a.Value)
		if err != nil {
			return bad(p.d.Tool, a.Name, err.Error(), p.args[a.Name].kindOrNil())
		}
		plain[a.Name] = v
	}
	if err := p.resolved.Validate(plain); err != nil {
		return bad(p.d.Tool, "", strings.TrimPrefix(err.Error(), "validating root: "), nil)
	}
	return nil
}

func (a *arg) kindOrNil() error {
	if a == nil {
		return nil
	}
	return a.kind
}

// plainValue returns v, a value as Parse types it, as encoding/json
// decodes it into an any: numbers as float64, lists as []any.
func plainValue(v any) (any, error) {
	switch v := v.(type) {
	case int:
		return float64(v), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is out of range", Cut(string(v)))
		}
		return f, nil
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out, nil
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

// anyValue decodes v, one valid JSON value, as encoding/json does,
// numbers as json.Number.
func anyValue(v json.RawMessage) (any, string) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err.Error()
	}
	return out, ""
}

// parse checks v, one valid JSON value other than null, against a's
// schema at the top level, and returns it typed; or why it fails.
func (a *arg) parse(v json.RawMessage) (any, string) {
	got := jsonType(v)
	if len(a.types) > 0 && !slices.Contains(a.types, got) && (got != "integer" || !slices.Contains(a.types, "number")) {
		if got == "number" && slices.Contains(a.types, "integer") {
			if _, err := wholeNumber(string(v)); err != nil {
				return nil, err.Error()
			}
		}
		return nil, WrongType(show(v), got, a.types...)
	}
	s := a.schema
	var val any
	switch a.typ {
	case typString:
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return nil, err.Error()
		}
		val = str
	case typBool:
		val = string(v) == "true"
	case typInt:
		n, err := wholeNumber(string(v))
		if err != nil {
			return nil, err.Error()
		}
		if why := a.bounds(v, float64(n)); why != "" {
			return nil, why
		}
		val = n
	case typNumber:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, show(v) + " is out of range"
		}
		if why := a.bounds(v, f); why != "" {
			return nil, why
		}
		val = f
	case typStrings:
		var elems []json.RawMessage
		if err := json.Unmarshal(v, &elems); err != nil {
			return nil, err.Error()
		}
		switch {
		case s.MaxItems != nil && len(elems) > *s.MaxItems:
			return nil, fmt.Sprintf("%d entries, over the maximum %d", len(elems), *s.MaxItems)
		case s.MinItems != nil && len(elems) < *s.MinItems:
			return nil, fmt.Sprintf("%d entries, under the minimum %d", len(elems), *s.MinItems)
		}
		out := make([]string, len(elems))
		for i, e := range elems {
			if jsonType(e) != "string" {
				return nil, fmt.Sprintf("entry %d: %s", i, WrongType(show(e), jsonType(e), "string"))
			}
			if err := json.Unmarshal(e, &out[i]); err != nil {
				return nil, err.Error()
			}
			if a.role != roleFields && s.Items.Enum != nil && !slices.Contains(s.Items.Enum, any(out[i])) {
				return nil, fmt.Sprintf("entry %d: %s", i, notOneOf(e, s.Items.Enum))
			}
		}
		val = out
	default:
		x, why := anyValue(v)
		if why != "" {
			return nil, why
		}
		if n, ok := x.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) {
				return nil, show(v) + " is out of range"
			}
			if why := a.bounds(v, f); why != "" {
				return nil, why
			}
		}
		val = x
	}
	if s.Enum != nil && a.typ != typStrings {
		b, _ := json.Marshal(val)
		for _, e := range s.Enum {
			if eb, _ := json.Marshal(e); bytes.Equal(b, eb) {
				return val, ""
			}
		}
		return nil, notOneOf(v, s.Enum)
	}
	return val, ""
}

// bounds returns why f, the value v, is out of a's bounds, or "".
func (a *arg) bounds(v json.RawMessage, f float64) string {
	s := a.schema
	switch {
	case s.Minimum != nil && f < *s.Minimum:
		return fmt.Sprintf("%s is below the minimum %s", show(v), num(*s.Minimum))
	case s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum:
		if s.Maximum != nil {
			return fmt.Sprintf("%s is not in (%s, %s]", show(v), num(*s.ExclusiveMinimum), num(*s.Maximum))
		}
		return fmt.Sprintf("%s is not over %s", show(v), num(*s.ExclusiveMinimum))
	case a.clamp:
	case s.Maximum != nil && f > *s.Maximum:
		if s.ExclusiveMinimum != nil {
			return fmt.Sprintf("%s is not in (%s, %s]", show(v), num(*s.ExclusiveMinimum), num(*s.Maximum))
		}
		return fmt.Sprintf("%s is over the maximum %s", show(v), num(*s.Maximum))
	case s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum:
		return fmt.Sprintf("%s is not under %s", show(v), num(*s.ExclusiveMaximum))
	}
	return ""
}

// notOneOf is the reason of v, not one of enum.
func notOneOf(v json.RawMessage, enum []any) string {
	shown := make([]string, len(enum))
	for i, e := range enum {
		b, _ := json.Marshal(e)
		shown[i] = string(b)
	}
	return fmt.Sprintf("%s is not one of %s", show(v), strings.Join(shown, ", "))
}

// num writes a schema's bound: 1000, not 1e+03.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// show is v for an error message, cut as [Cut] cuts.
func show(v json.RawMessage) string { return Cut(string(v)) }

// jsonType is the JSON Schema type of v, one valid JSON value:
// "integer" for a whole number, "number" for another.
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
	shown := Cut(lit)
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expStr, "+"))
		switch {
		case err != nil && strings.HasPrefix(expStr, "-"), e < -1_000_000:
			return 0, fmt.Errorf("%s is not a whole number", shown)
		case err != nil, e > 1_000_000:
			return 0, fmt.Errorf("%s is over the maximum %d", shown, bounded.MaxOffset)
		}
		exp = e
	}
	exp -= len(frac)
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return 0, fmt.Errorf("%s is not a whole number", shown)
	}
	if len(digits)+exp > 16 {
		return 0, fmt.Errorf("%s is over the maximum %d", shown, bounded.MaxOffset)
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", exp), 10, 64)
	if err != nil || n > bounded.MaxOffset {
		return 0, fmt.Errorf("%s is over the maximum %d", shown, bounded.MaxOffset)
	}
	if neg {
		n = -n
	}
	return int(n), nil
}
