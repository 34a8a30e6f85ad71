package bounded_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/boundedkit/bounded"
)

// A Budget is a ceiling on the whole encoded response. Its limits are the
// ceilings times the margin, the tokens derived from the characters unless
// MaxTokens is set.
func ExampleBudget() {
	for _, b := range []bounded.Budget{
		{},                                  // the default
		{MaxChars: 20_000},                  // a smaller client
		{MaxChars: 20_000, MaxTokens: 4000}, // tokens tighter than characters
		{MaxChars: 8000, Margin: 1},         // no margin
	} {
		fmt.Println(b.LimitChars(), b.LimitTokens())
	}
	// Output:
	// 45000 16071
	// 18000 6428
	// 18000 3600
	// 8000 2857
}

func ExampleBudget_LimitChars() {
	b := bounded.Budget{MaxChars: 12_000, Margin: 0.75}
	fmt.Println(b.LimitChars())
	fmt.Println(bounded.Budget{MaxChars: 100, Margin: 0.29}.LimitChars()) // not 28
	fmt.Println(bounded.Budget{MaxChars: -1}.LimitChars())                // invalid
	// Output:
	// 9000
	// 29
	// 0
}

func ExampleBudget_LimitTokens() {
	fmt.Println(bounded.Budget{MaxChars: 14_000}.LimitTokens())                   // 12,600 / 2.8
	fmt.Println(bounded.Budget{MaxChars: 14_000, CharsPerToken: 4}.LimitTokens()) // 12,600 / 4
	fmt.Println(bounded.Budget{MaxTokens: 10_000}.LimitTokens())                  // 10,000 × 0.9
	// Output:
	// 4500
	// 3150
	// 9000
}

// Claude Code refuses a tool result over 25,000 tokens and writes one over
// 50,000 characters to a file.
func ExampleClaudeCode() {
	b := bounded.ClaudeCode()
	fmt.Println(b.MaxChars, b.MaxTokens, b.LimitChars(), b.LimitTokens())
	// Output:
	// 50000 25000 45000 22500
}

// Budget100K estimates tokens at 4 characters each: for JSON that
// undercounts, and ClaudeCode is the safer budget for the same client.
func ExampleBudget100K() {
	b := bounded.Budget100K()
	fmt.Println(b.LimitChars(), b.LimitTokens())

	results := `[{"id":"note-017","title":"Standup","tags":["team","daily"],"score":0.82}]`
	fmt.Println(b.CountTokens(results), bounded.ClaudeCode().CountTokens(results))
	// Output:
	// 80000 20000
	// 19 26
}

// A flag such as --budget=claude-code names one of the presets.
func ExamplePresets() {
	for _, p := range bounded.Presets() {
		fmt.Printf("%-12s %6d chars %6d tokens\n", p.Name, p.Budget.LimitChars(), p.Budget.LimitTokens())
	}
	// Output:
	// default       45000 chars  16071 tokens
	// claude-code   45000 chars  22500 tokens
	// note-100k     80000 chars  20000 tokens
}

// A tool that clips a text to the tokens left counts them as its budget
// does: by the Estimator, unless the budget sets CharsPerToken.
func ExampleBudget_CountTokens() {
	note := "Meeting notes: ship the search API on Friday; 会議のメモ：金曜日に検索APIを公開する。"
	fmt.Println(bounded.Budget{}.CountTokens(note))
	fmt.Println(bounded.Budget{CharsPerToken: 4}.CountTokens(note))
	// Output:
	// 37
	// 17
}

func ExampleBudget_Validate() {
	fmt.Println(bounded.Budget{}.Validate())
	for _, b := range []bounded.Budget{
		{Margin: 1.5},
		{MaxTokens: -100},
		{CharsPerToken: math.NaN()},
		{MaxChars: 1, Margin: 0.5},
	} {
		err := b.Validate()
		fmt.Println(errors.Is(err, bounded.ErrInvalidBudget), err)
	}
	// Output:
	// <nil>
	// true bounded: invalid budget: Margin 1.5 is not in (0, 1]
	// true bounded: invalid budget: MaxTokens -100 is negative
	// true bounded: invalid budget: CharsPerToken NaN is not a positive number
	// true bounded: invalid budget: MaxChars 1 with Margin 0.5 leaves 0 characters
}

// The Estimator counts more tokens for text made of costlier pieces: JSON
// punctuation, long words, CJK characters.
func ExampleEstimator() {
	var e bounded.Estimator
	for _, s := range []string{
		"",
		"the quick brown fox jumps over the lazy dog",
		`{"id":42,"title":"Standup","done":false}`,
		"東京で会議があります",
	} {
		fmt.Printf("%d characters, %d tokens\n", len([]rune(s)), e.CountTokens(s))
	}
	// Output:
	// 0 characters, 0 tokens
	// 43 characters, 10 tokens
	// 40 characters, 15 tokens
	// 10 characters, 13 tokens
}

// A tool checks that a note fits the tokens it has left before returning
// it whole.
func ExampleEstimator_CountTokens() {
	note := "# Standup 2024-06-03\n- shipped the search API\n- next: pagination for the mobile client\n"
	left := 30 // tokens left in the response
	tokens := bounded.Estimator{}.CountTokens(note)
	fmt.Println(tokens, tokens <= left)
	// Output: 28 true
}

// A tool that returns one document writes its window in the same envelope;
// an empty result is [] and never null.
func ExampleEnvelope_MarshalJSON() {
	doc := "# Trip plan\nDay 1: Lyon\nDay 2: Genève\nDay 3: Zürich\n"
	text, info, _ := bounded.ApplyWindow(doc, bounded.Window{MaxLines: 2, Offset: 1})
	b, _ := json.Marshal(bounded.Envelope[string]{
		Results:         []string{text},
		ContentMetadata: &info,
		Hint:            "Lines 2-3 of 4: call read_note(path=\"trip.md\", offset=3) for the rest.",
	})
	fmt.Println(string(b))

	b, _ = json.Marshal(bounded.Envelope[string]{})
	fmt.Println(string(b))
	// Output:
	// {"results":["Day 1: Lyon\nDay 2: Genève\n"],"truncated":false,"hint":"Lines 2-3 of 4: call read_note(path=\"trip.md\", offset=3) for the rest.","contentMetadata":{"totalLines":4,"returnedLines":2,"offset":1,"isTruncated":true,"nextOffset":3}}
	// {"results":[],"truncated":false}
}
