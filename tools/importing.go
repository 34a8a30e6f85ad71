package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
)

// importingField ends the pagination of a response read while its data
// is being written.
const importingField = `,"importing":true`

// fitImporting is fitFields for a call made while its data is being
// written ([Config.Importing]): an exact total of items found becomes a
// lower bound, and the pagination ends with importingField. The page is fitted to the
// call's budget less the field's size, then the field is written: the
// truncation's estimates count it, its limits are the call's.
func fitImporting[T any](r *request, in bounded.FitInput[T]) (bounded.Fitted, error) {
	if r.counted && in.Page.Page.TotalKind == bounded.TotalExact && in.Page.Page.Total > 0 {
		in.Page.Page.TotalKind = bounded.TotalAtLeast
	}
	chars, tokens := utf8.RuneCountInString(importingField), r.budget.CountTokens(importingField)
	for try := 0; ; try++ {
		c := *r
		c.importing = false
		c.budget = lowerBy(r.budget, chars<<try, tokens<<try)
		out, err := fitFields(&c, in)
		if err != nil {
			return out, err
		}
		env, tr, ok := withImporting(out.JSON, r.budget)
		if !ok {
			return out, fmt.Errorf("tools: %w: the envelope has no pagination and truncation to mark", bounded.ErrInvalidResult)
		}
		if tr.EstimatedChars <= tr.LimitChars && (tr.LimitTokens == 0 || tr.EstimatedTokens <= tr.LimitTokens) || try == 2 {
			out.JSON, out.Truncation = env, tr
			return out, nil
		}
	}
}

// lowerBy returns b with its limits lowered by chars characters and
// tokens tokens, held exactly (Margin 1). A token limit derived from the
// characters stays derived, and so drops with them.
func lowerBy(b bounded.Budget, chars, tokens int) bounded.Budget {
	if b.MaxTokens > 0 {
		b.MaxTokens = max(b.LimitTokens()-tokens, 1)
	}
	b.MaxChars, b.Margin = max(b.LimitChars()-chars, 1), 1
	return b
}

// withImporting returns env, an envelope Fit wrote, with importingField
// ending its pagination and its truncation counting it against b's
// limits; and that truncation. ok is false when env has no pagination
// before its truncation.
func withImporting(env []byte, b bounded.Budget) (out []byte, tr bounded.Truncation, ok bool) {
	// The ends of the values of the envelope's keys, by key.
	ends := make(map[string]int)
	dec := json.NewDecoder(bytes.NewReader(env))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, tr, false
	}
	var trunc json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, tr, false
		}
		ends[key] = int(dec.InputOffset())
		if key == "truncation" {
			trunc = v
		}
	}
	page, hasPage := ends["pagination"]
	end, hasTrunc := ends["truncation"]
	if !hasPage || !hasTrunc || page > end || json.Unmarshal(trunc, &tr) != nil {
		return nil, tr, false
	}
	start := end - len(trunc)
	tr.LimitChars, tr.LimitTokens = b.LimitChars(), b.LimitTokens()
	// The estimates are written into what they count: write until they
	// hold (a digit more can change them once).
	for range 4 {
		out = slices.Concat(env[:page-1], []byte(importingField), env[page-1:start], mustJSON(tr), env[end:])
		chars, tokens := utf8.RuneCount(out), b.CountTokens(string(out))
		if chars == tr.EstimatedChars && tokens == tr.EstimatedTokens {
			break
		}
		tr.EstimatedChars, tr.EstimatedTokens = chars, tokens
	}
	return out, tr, true
}
