package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

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

// param declares one of a tool's own arguments; toolargs parses it.
type param struct {
	name     string
	kind     kind
	desc     string
	required bool
	// min and max bound an integer (hasMin, hasMax); a value over max is
	// kept when clamp is set (the port clamps it and says so), and is an
	// error otherwise. Every integer is at most bounded.MaxOffset.
	hasMin, hasMax bool
	min, max       int
	clamp          bool
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

// decl is the declaration toolargs parses sp's calls by: sp's own
// arguments, the paging ones, budget and budgetTokens of b, detail and
// fields, described in the set's instructions rather than each schema.
func (sp *spec) decl(b bounded.Budget, ct Count) toolargs.Decl {
	in := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	d := toolargs.Decl{Tool: sp.name, In: in, Args: map[string]toolargs.Arg{}, Budget: b, Detail: true, Fields: true, Terse: true}
	for _, p := range sp.params {
		in.Properties[p.name] = p.schema()
		in.PropertyOrder = append(in.PropertyOrder, p.name)
		if p.required {
			in.Required = append(in.Required, p.name)
		}
		d.Args[p.name] = toolargs.Arg{Kind: p.sentinel, Clamp: p.clamp}
	}
	if sp.paged {
		d.Limits, d.Paging, d.NoCursor = sp.limits, sp.paging, sp.noCursor
		d.Count, d.CountCap = ct.Mode, ct.Cap
	}
	return d
}

// schema is the JSON Schema of p. It leaves out what every integer
// argument would repeat: a maximum of bounded.MaxOffset, a default of 0.
func (p param) schema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: kindNames[p.kind], Description: p.desc}
	for _, e := range p.enum {
		s.Enum = append(s.Enum, e)
	}
	if p.def != nil && p.def != 0 {
		s.Default = mustJSON(p.def)
	}
	switch p.kind {
	case kindInt:
		if p.hasMin {
			s.Minimum = jsonschema.Ptr(float64(p.min))
		}
		if p.hasMax && p.max != bounded.MaxOffset {
			s.Maximum = jsonschema.Ptr(float64(p.max))
		}
	case kindNumber:
		s.ExclusiveMinimum, s.Maximum = jsonschema.Ptr(p.fmin), jsonschema.Ptr(p.fmax)
	case kindStrings:
		s.Items = &jsonschema.Schema{Type: "string"}
		if p.maxItems > 0 {
			s.MaxItems = jsonschema.Ptr(p.maxItems)
		}
	}
	return s
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
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
