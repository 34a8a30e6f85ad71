package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// AddNotice makes the results of s's tools begin their hint with
// notice(tool) whenever it returns a sentence: a server whose data is
// still loading says so in every answer, where an agent reads what to do
// next, e.g. "Import in progress: 1,200 of 6,280 notes written; results
// may be incomplete." notice is asked before the call runs, so that a
// result read while the data was loading always says so.
//
// The notice goes to the call's context (bounded.WithNotice): a tool that
// fits its response with it (AddTool, AddPagedTool, the tool set of
// package tools, bounded.Respond and FitContext) writes the notice within
// its budget, the call run once. To another tool's envelope the notice is
// added, within its limits (truncation.limitChars and limitTokens, whose
// estimates count the notice): a response with no room for it is fitted
// again with its budget and budgetTokens lowered by the notice's size, and
// says in next the budget it was fitted to; only a call whose budget is
// within the notice's size of toolargs.MinBudget (or
// toolargs.MinBudgetTokens) can then get a response over its limit, by
// less than the notice. b is the tools' budget: it counts the tokens. An
// error result gets the notice on a line of its own; a result that is not
// an envelope, as a second text part.
func AddNotice(s *mcp.Server, b bounded.Budget, notice func(tool string) string) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil {
				return next(ctx, method, req)
			}
			say := notice(call.Params.Name)
			if say == "" {
				return next(ctx, method, req)
			}
			return withNotice(ctx, next, method, call, b, say)
		}
	})
}

// withNotice answers call with the notice say: in the context, where a
// tool's fit (bounded.FitContext, bounded.Respond) writes it within the
// budget; or, for a response without it, added to the response, calling
// next again with a lower budget (twice at most) while the response has
// no room for it.
func withNotice(ctx context.Context, next mcp.MethodHandler, method string, call *mcp.CallToolRequest, b bounded.Budget, say string) (mcp.Result, error) {
	ctx = bounded.WithNotice(ctx, say)
	var limits *bounded.Truncation // the first response's limits
	for try := 0; ; try++ {
		res, err := next(ctx, method, call)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || r == nil || len(r.Content) == 0 {
			return res, err
		}
		text, ok := r.Content[0].(*mcp.TextContent)
		switch {
		case !ok:
			r.Content = append(r.Content, &mcp.TextContent{Text: say})
			return r, nil
		case r.IsError:
			text.Text += "\n" + say
			return r, nil
		}
		env, tr, ok := splitEnvelope([]byte(text.Text))
		if !ok {
			r.Content = append(r.Content, &mcp.TextContent{Text: say})
			return r, nil
		}
		if strings.HasPrefix(env.hint(), say) {
			return r, nil // fitted with it
		}
		if limits == nil {
			limits = &bounded.Truncation{LimitChars: tr.LimitChars, LimitTokens: tr.LimitTokens}
		}
		out, chars, tokens := env.withHint(say, tr, limits, b)
		// What the notice costs, when over the limit, and a margin for
		// the estimates, which do not add up exactly; more on each try.
		var costChars, costTokens int
		if chars > limits.LimitChars {
			costChars = chars - utf8.RuneCountInString(text.Text) + 4<<try
		}
		if limits.LimitTokens > 0 && tokens > limits.LimitTokens {
			costTokens = tokens - tr.EstimatedTokens + 4<<try
		}
		if costChars+costTokens > 0 && try < 2 {
			if lower, ok := lowerBudget(call, limits, costChars, costTokens); ok {
				call = lower
				continue
			}
		}
		text.Text = string(out)
		r.StructuredContent = json.RawMessage(out)
		return r, nil
	}
}

// member is one key of an envelope, and its value as it came.
type member struct {
	key   string
	value json.RawMessage
}

// envelope is an envelope's keys, in their order.
type envelope []member

// hint is the envelope's hint, or "".
func (env envelope) hint() string {
	var h string
	for _, m := range env {
		if m.key == "hint" {
			json.Unmarshal(m.value, &h)
		}
	}
	return h
}

// splitEnvelope splits a JSON object into its keys, and decodes its
// truncation; ok is false when data is not an object with a truncation.
func splitEnvelope(data []byte) (env envelope, tr bounded.Truncation, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, tr, false
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, tr, false
		}
		if key == "truncation" {
			found = json.Unmarshal(v, &tr) == nil
		}
		env = append(env, member{key, v})
	}
	return env, tr, found
}

// withHint returns env with say before its hint (or as its hint, after
// truncation, when it has none) and its truncation tr counting the
// result, within limits; and the result's characters and tokens.
func (env envelope) withHint(say string, tr bounded.Truncation, limits *bounded.Truncation, b bounded.Budget) (out []byte, chars, tokens int) {
	env = slices.Clone(env)
	hint, at := say, slices.IndexFunc(env, func(m member) bool { return m.key == "hint" })
	if at >= 0 {
		var h string
		if json.Unmarshal(env[at].value, &h) == nil && h != "" {
			hint = say + " " + h
		}
	} else {
		at = slices.IndexFunc(env, func(m member) bool { return m.key == "truncation" }) + 1
		env = slices.Insert(env, at, member{key: "hint"})
	}
	env[at].value = encode(hint)
	tr.LimitChars, tr.LimitTokens = limits.LimitChars, limits.LimitTokens
	// The estimates are written into what they count: write until they
	// hold (a digit more can change them once).
	for range 4 {
		for i := range env {
			if env[i].key == "truncation" {
				env[i].value = encode(tr)
			}
		}
		out = env.encode()
		chars, tokens = utf8.RuneCount(out), b.CountTokens(string(out))
		if chars == tr.EstimatedChars && tokens == tr.EstimatedTokens {
			break
		}
		tr.EstimatedChars, tr.EstimatedTokens = chars, tokens
	}
	return out, chars, tokens
}

// encode encodes v as bounded does: compact, without HTML escaping.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // cannot happen: strings and a Truncation
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func (env envelope) encode() []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range env {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(encode(m.key))
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// lowerBudget returns call with budget set to limits.LimitChars less
// chars when chars > 0, and budgetTokens to limits.LimitTokens less
// tokens when tokens > 0, neither below its minimum; ok is false when
// neither goes lower or the arguments do not decode.
func lowerBudget(call *mcp.CallToolRequest, limits *bounded.Truncation, chars, tokens int) (*mcp.CallToolRequest, bool) {
	var args bounded.Args
	if raw := call.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, false
		}
	}
	lowered := false
	for _, a := range []struct {
		name               string
		limit, cost, least int
	}{{"budget", limits.LimitChars, chars, toolargs.MinBudget}, {"budgetTokens", limits.LimitTokens, tokens, toolargs.MinBudgetTokens}} {
		want := max(a.limit-a.cost, a.least)
		if a.cost <= 0 || want >= a.limit {
			continue
		}
		i := slices.IndexFunc(args, func(arg bounded.Arg) bool { return arg.Name == a.name })
		if i < 0 {
			args = append(args, bounded.Arg{Name: a.name, Value: want})
		} else {
			args[i].Value = want
		}
		lowered = true
	}
	if !lowered {
		return nil, false
	}
	b, err := args.MarshalJSON()
	if err != nil {
		return nil, false
	}
	params := *call.Params
	params.Arguments = json.RawMessage(b)
	next := *call
	next.Params = &params
	return &next, true
}
