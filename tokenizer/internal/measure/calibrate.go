package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// stats are the figures of one kind of content.
type stats struct {
	kind              string
	samples           int
	chars             int
	exact             []int // per counter
	est               int
	minRatio, p1, p50 float64 // estimate / the larger exact count, per sample
	worst             string
	under             int // samples underestimated
	ratios            []float64
}

func (s *stats) add(name, text string, ex []int) {
	e := bounded.Estimator{}.CountTokens(text)
	s.samples++
	s.chars += utf8.RuneCountInString(text)
	if s.exact == nil {
		s.exact = make([]int, len(ex))
	}
	hi := 0
	for i, n := range ex {
		s.exact[i] += n
		hi = max(hi, n)
	}
	s.est += e
	if hi == 0 {
		return
	}
	r := float64(e) / float64(hi)
	s.ratios = append(s.ratios, r)
	if s.minRatio == 0 || r < s.minRatio {
		s.minRatio, s.worst = r, name
	}
	if e < hi {
		s.under++
	}
}

func (s *stats) finish() {
	sort.Float64s(s.ratios)
	if len(s.ratios) > 0 {
		s.p1, s.p50 = s.ratios[len(s.ratios)/100], s.ratios[len(s.ratios)/2]
	}
}

// minChunk is the smallest sample measured: shorter texts are counted into
// the totals but their ratios, dominated by rounding, are not.
const minChunk = 200

func runCalibration(ctx context.Context, goroot string) error {
	vaultMD, err := vaultTexts()
	if err != nil {
		return err
	}
	goSrc, err := goTexts(filepath.Join(goroot, "src"))
	if err != nil {
		return err
	}
	_, file, _, _ := runtime.Caller(0)
	testdata := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	cjk, err := fileText("cjk", filepath.Join(testdata, "cjk.txt"))
	if err != nil {
		return err
	}
	multi, err := fileText("other scripts", filepath.Join(testdata, "scripts.txt"))
	if err != nil {
		return err
	}
	// English prose: the project's design notes, beside the module when
	// they are there.
	var prose []sample
	notes, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "*", "*.md"))
	top, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "*.md"))
	for _, f := range append(top, notes...) {
		s, err := fileText("prose", f)
		if err != nil {
			return err
		}
		prose = append(prose, s)
	}
	groups := map[string][]sample{}
	order := []string{}
	addGroup := func(kind string, ss []sample) {
		if _, ok := groups[kind]; !ok {
			order = append(order, kind)
		}
		for _, s := range ss {
			s.kind = kind
			groups[kind] = append(groups[kind], s)
		}
	}
	addGroup("markdown (demo vault, 2 KB chunks)", chunks(vaultMD, 2000))
	if len(prose) > 0 {
		addGroup("English prose (design notes, 2 KB chunks)", chunks(prose, 2000))
	}
	addGroup("Go source (GOROOT/src, 4 KB chunks)", chunks(goSrc, 4000))
	addGroup("CJK text (500 B chunks)", chunks([]sample{cjk}, 500))
	addGroup("other scripts (300 B chunks)", chunks([]sample{multi}, 300))

	// JSON: the tools' responses over the three worlds, in balanced and
	// private mode (structure and identifiers only), under a budget large
	// enough to hold most pages.
	worlds, err := allWorlds(ctx, goroot)
	if err != nil {
		return err
	}
	big := bounded.Budget{MaxChars: 200_000, Margin: 1, MaxTokens: 200_000}
	for _, w := range worlds {
		for _, mode := range []tools.Mode{tools.Balanced, tools.Private} {
			rs, err := w.run(ctx, big, mode, "detailed", "", 3)
			if err != nil {
				return err
			}
			kind := fmt.Sprintf("JSON responses: %s, %s", w.name, mode)
			var ss []sample
			seen := map[string]bool{}
			for _, r := range rs {
				if !seen[string(r.json)] {
					seen[string(r.json)] = true
					ss = append(ss, sample{name: r.tool + " " + r.args, text: string(r.json)})
				}
			}
			addGroup(kind, ss)
		}
	}

	fmt.Printf("| content | samples | characters | o200k tokens | chars/token | cl100k tokens | chars/token | estimate | chars/token | estimate / exact | median sample | 1st percentile | lowest sample |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var worst []string
	for _, kind := range order {
		ss := groups[kind]
		texts := make([]string, len(ss))
		for i, s := range ss {
			texts[i] = s.text
		}
		counts := exactAll(texts)
		if path := os.Getenv("MEASURE_SAMPLES"); path != "" {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(f)
			for i, s := range ss {
				if err := enc.Encode(map[string]any{"kind": kind, "text": s.text, "exact": counts[i]}); err != nil {
					return err
				}
			}
			f.Close()
		}
		st := &stats{kind: kind}
		for i, s := range ss {
			if utf8.RuneCountInString(s.text) < minChunk {
				st.add(s.name, s.text, counts[i])
				st.ratios = st.ratios[:len(st.ratios)-min(1, len(st.ratios))]
				continue
			}
			st.add(s.name, s.text, counts[i])
		}
		st.finish()
		hi := slices.Max(st.exact)
		fmt.Printf("| %s | %d | %d | %d | %.2f | %d | %.2f | %d | %.2f | %.3f | %.3f | %.3f | %.3f |\n",
			kind, st.samples, st.chars, st.exact[0], ratio(st.chars, st.exact[0]), st.exact[1], ratio(st.chars, st.exact[1]),
			st.est, ratio(st.chars, st.est), float64(st.est)/float64(hi), st.p50, st.p1, st.minRatio)
		worst = append(worst, fmt.Sprintf("%s: lowest %.3f at %s; %d of %d samples under", kind, st.minRatio, st.worst, st.under, len(st.ratios)))
	}
	fmt.Println()
	for _, w := range worst {
		fmt.Fprintln(os.Stderr, w)
	}
	return nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func allWorlds(ctx context.Context, goroot string) ([]*world, error) {
	v, err := vaultWorld(ctx)
	if err != nil {
		return nil, err
	}
	f, err := fixturesWorld(ctx)
	if err != nil {
		return nil, err
	}
	g, err := goWorld(ctx, filepath.Join(goroot, "src"))
	if err != nil {
		return nil, err
	}
	return []*world{v, f, g}, nil
}
