// Command measure calibrates bounded's token [bounded.Estimator] against the
// exact o200k_base and cl100k_base tokenizers, and measures the budget
// presets, on real corpora: the demo vault of examples/notes, the Go source
// tree under `go env GOROOT`, the conformance suite's fixtures, the
// project's design notes (../shared, when it is there), CJK and other
// scripts (tokenizer/testdata), and the JSON responses of the tools over
// the vault, the fixtures and Go packages of GOROOT/src.
//
//	go run ./tokenizer/internal/measure -calibrate   # characters a token, and the Estimator's error, by kind of content
//	go run ./tokenizer/internal/measure -presets     # the responses of the tools under each preset, counted exactly
//	go run ./tokenizer/internal/measure -testdata tokenizer/testdata   # rewrite the JSON test samples
//
// It prints Markdown tables (the figures of BENCHMARKS.md) and, on standard
// error, the responses behind the extremes. Exact counts are cached in the
// user's cache directory: a second run takes seconds, a first one minutes.
// MEASURE_ONLY=text runs only the presets whose name contains text;
// MEASURE_OVER=dir writes the responses over their token limit there;
// MEASURE_SAMPLES=file appends each calibration sample and its exact counts
// to file, as JSON lines, to fit the Estimator's constants on.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
)

var stderr = os.Stderr

func main() {
	calibrate := flag.Bool("calibrate", false, "measure characters per token and the estimator's error per kind of content")
	presets := flag.Bool("presets", false, "measure the responses of the tools under each budget preset")
	testdata := flag.String("testdata", "", "write the JSON samples of the tokenizer package's tests into `dir`")
	goroot := flag.String("goroot", "", "the Go tree whose src is the code corpus (default: go env GOROOT)")
	flag.Parse()
	if *goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure: go env GOROOT:", err)
			os.Exit(1)
		}
		*goroot = strings.TrimSpace(string(out))
	}
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the cuts are measured, not logged
	ctx := context.Background()
	var err error
	if *calibrate {
		err = runCalibration(ctx, *goroot)
	}
	if err == nil && *testdata != "" {
		err = writeTestdata(ctx, *goroot, *testdata)
	}
	if err == nil && *presets {
		err = runPresets(ctx, *goroot)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}
