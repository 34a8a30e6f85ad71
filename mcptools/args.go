package mcptools

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// tool is a registered tool: what tools/list lists, and the parser of its
// calls.
type tool struct {
	mcp    *mcp.Tool
	parser *toolargs.Parser
	budget bounded.Budget
}

// buildTool returns the tool t with the schema of in (unless t has one)
// extended with the paging arguments, the output schema of an envelope of
// item (unless t has one) and the size hint. fields, when set, are the
// results' fields the fields argument names; concise, when set, those
// the detail argument's "concise" keeps.
func buildTool(t *mcp.Tool, in, item reflect.Type, l bounded.Limits, paging bounded.Paging, count bounded.CountMode, b bounded.Budget, fields, concise []string) (*tool, error) {
	s, err := inputSchema(t.InputSchema, in)
	if err != nil {
		return nil, err
	}
	p, err := toolargs.NewParser(toolargs.Decl{Tool: t.Name, In: s, Limits: l, Paging: paging, Count: count, Budget: b,
		Concise: concise, Fields: fields != nil, FieldNames: fields})
	if err != nil {
		return nil, err
	}
	mt := *t
	mt.InputSchema = p.Schema()
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
	mt.Meta[MetaMaxResultSizeChars] = b.LimitChars()
	return &tool{mcp: &mt, parser: p, budget: b}, nil
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
