package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// presetCase is one budget measured: a preset, maybe with an exact
// tokenizer, maybe lowered by a per-call budgetTokens argument.
type presetCase struct {
	name  string
	b     bounded.Budget
	extra string // merged into every call's arguments
}

func presetCases() []presetCase {
	claude := bounded.ClaudeCode()
	claudeO, claudeC := claude, claude
	claudeO.Tokenizer, claudeC.Tokenizer = counters[0], counters[1]
	return []presetCase{
		{"default (Budget{})", bounded.Budget{}, ""},
		{"ClaudeCode()", claude, ""},
		{"ClaudeCode() + o200k Tokenizer", claudeO, ""},
		{"ClaudeCode() + cl100k Tokenizer", claudeC, ""},
		{"ClaudeCode(), budgetTokens 8000", claude, `"budgetTokens":8000`},
		{"ClaudeCode() + o200k, budgetTokens 8000", claudeO, `"budgetTokens":8000`},
		{"Budget100K() (4 chars a token)", bounded.Budget100K(), ""},
	}
}

// presetStats are the figures of one preset over every response.
type presetStats struct {
	responses, cut           int
	maxChars                 int
	maxO200k, maxCL100k      int
	overO200k, overCL100k    int // responses over LimitTokens, by encoding
	used                     []float64
	usedBy                   map[string][]float64 // by world
	limitChars, limitTokens  int
	worstTool, worstArgs     string
	lowestUsed, lowestReason string
	elapsed                  time.Duration
}

// runPresets runs every call of the three worlds under each preset, in
// balanced and full mode, following next for up to 4 pages, and counts
// every response with both exact encodings.
func runPresets(ctx context.Context, goroot string) error {
	worlds, err := allWorlds(ctx, goroot)
	if err != nil {
		return err
	}
	fmt.Println("| budget | limits (chars / tokens) | responses | cut | largest (chars) | largest o200k | largest cl100k | over the token limit (o200k / cl100k) | budget used when cut: lowest | median | cut responses using ≥ 90% |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, pc := range presetCases() {
		if only := os.Getenv("MEASURE_ONLY"); only != "" && !strings.Contains(pc.name, only) {
			continue
		}
		st := &presetStats{usedBy: map[string][]float64{}}
		start := time.Now()
		var all []response
		for _, w := range worlds {
			for _, mode := range []tools.Mode{tools.Balanced, tools.Full} {
				rs, err := w.run(ctx, pc.b, mode, "detailed", pc.extra, 4)
				if err != nil {
					return fmt.Errorf("%s: %w", pc.name, err)
				}
				all = append(all, rs...)
			}
		}
		st.elapsed = time.Since(start)
		texts := make([]string, len(all))
		for i, r := range all {
			texts[i] = string(r.json)
		}
		counts := exactAll(texts)
		for i, r := range all {
			o, c := counts[i][0], counts[i][1]
			st.responses++
			st.limitChars, st.limitTokens = r.tr.LimitChars, r.tr.LimitTokens
			st.maxChars = max(st.maxChars, r.chars)
			if o > st.maxO200k {
				st.maxO200k, st.worstTool, st.worstArgs = o, r.tool, r.args
			}
			st.maxCL100k = max(st.maxCL100k, c)
			if o > r.tr.LimitTokens {
				st.overO200k++
				if dir := os.Getenv("MEASURE_OVER"); dir != "" {
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("over-%d-%d.json", st.responses, o)), r.json, 0o644)
				}
			}
			if c > r.tr.LimitTokens {
				st.overCL100k++
			}
			if r.tr.Reason == "" {
				continue
			}
			st.cut++
			// The share of the binding limit the response uses, its tokens
			// counted exactly (the larger count).
			used := max(float64(r.chars)/float64(r.tr.LimitChars), float64(max(o, c))/float64(r.tr.LimitTokens))
			st.used = append(st.used, used)
			st.usedBy[r.world] = append(st.usedBy[r.world], used)
			if st.lowestUsed == "" || used < slices.Min(st.used[:len(st.used)-1]) {
				st.lowestUsed = fmt.Sprintf("%.1f%% %s(%s)", 100*used, r.tool, r.args)
				st.lowestReason = r.tr.Reason
			}
		}
		slices.Sort(st.used)
		lowest, median, ninety := 0.0, 0.0, 0
		if len(st.used) > 0 {
			lowest, median = st.used[0], st.used[len(st.used)/2]
			for _, u := range st.used {
				if u >= 0.9 {
					ninety++
				}
			}
		}
		fmt.Printf("| %s | %d / %d | %d | %d | %d | %d | %d | %d / %d | %.1f%% | %.1f%% | %.1f%% |\n",
			pc.name, st.limitChars, st.limitTokens, st.responses, st.cut, st.maxChars, st.maxO200k, st.maxCL100k,
			st.overO200k, st.overCL100k, 100*lowest, 100*median, 100*float64(ninety)/float64(max(1, st.cut)))
		var by []string
		for _, w := range worlds {
			u := st.usedBy[w.name]
			slices.Sort(u)
			if len(u) > 0 {
				by = append(by, fmt.Sprintf("%s: %d cut, median %.1f%%, lowest %.1f%%", w.name, len(u), 100*u[len(u)/2], 100*u[0]))
			}
		}
		fmt.Fprintf(stderr, "%s: %s; largest o200k %s(%s); lowest use %s (%s); by world: %s\n", pc.name, st.elapsed.Round(time.Millisecond), st.worstTool, st.worstArgs, st.lowestUsed, st.lowestReason, strings.Join(by, "; "))
	}
	return nil
}
