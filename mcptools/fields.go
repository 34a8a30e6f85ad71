package mcptools

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// fieldsParam is the fields argument of a tool whose results have the
// fields have.
func fieldsParam(have []string) param {
	enum := make([]any, len(have))
	for i, f := range have {
		enum[i] = f
	}
	return param{schema: &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: enum},
		Description: "Only these fields of each result (and its id)."}, repeat: true}
}

// detailParam is the detail argument of a tool with concise results.
var detailParam = param{schema: &jsonschema.Schema{Type: "string", Enum: []any{"concise", "detailed"},
	Description: "concise: fewer fields per result."}, repeat: true}

// stringList returns v, a list argument as bounded.Args decodes it, as
// strings, or why it is not a list of strings.
func stringList(v any) ([]string, string) {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			b, _ := json.Marshal(e)
			return nil, "entry " + string(b) + " is not a string"
		}
		out[i] = s
	}
	return out, ""
}

// fit fits in into the call's budget, each result cut down to the
// fields the call names, if any.
func fit[T any](ctx context.Context, c parsedCall, in bounded.FitInput[T]) (bounded.Fitted, error) {
	if len(c.fields) == 0 {
		return bounded.FitContext(ctx, c.budget, in)
	}
	out, err := toolargs.Project(c.call.Tool, in, c.fields)
	if err != nil {
		return bounded.Fitted{}, err
	}
	return bounded.FitContext(ctx, c.budget, out)
}
