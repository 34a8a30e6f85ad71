package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

type smp struct {
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	Exact []int  `json:"exact"`
	hi    int
}

type param struct {
	name string
	p    *int64
	step int64
	lo   int64
}

func count(s string) int64 {
	var e estimate
	e.addString(s)
	return e.total()
}

func main() {
	if os.Getenv("PUNCT") != "" {
		punctStats()
		return
	}
	if os.Getenv("PIECES") != "" || os.Getenv("PIECESALL") != "" {
		pieces()
		return
	}
	if k := os.Getenv("LOW"); k != "" {
		lowest(k, 8)
		return
	}
	f, _ := os.Open("/tmp/samples/all.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	byKind := map[string][]smp{}
	var kinds []string
	for sc.Scan() {
		var s smp
		json.Unmarshal(sc.Bytes(), &s)
		if utf8.RuneCountInString(s.Text) < 200 {
			continue
		}
		s.hi = max(s.Exact[0], s.Exact[1])
		if _, ok := byKind[s.Kind]; !ok {
			kinds = append(kinds, s.Kind)
		}
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var use []string
	for _, k := range kinds {
		if strings.HasPrefix(k, "other") {
			continue
		}
		use = append(use, k)
		ss := byKind[k]
		r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
		tot := 0
		for i := range ss {
			tot += len(ss[i].Text)
			if tot > 1_500_000 {
				byKind[k] = ss[:i+1]
				break
			}
		}
	}
	ps := []param{
		{"costWord", &costWord, 100, 500}, {"costWordBare", &costWordBare, 100, 500}, {"costAbsorb", &costAbsorb, 100, 300},
		{"costCaseSplit", &costCaseSplit, 100, 300}, {"costUpper", &costUpper, 50, 0},
		{"costLongSpaced", &costLongSpaced, 50, 0}, {"costLongBare", &costLongBare, 50, 0}, {"costLongAbsorbed", &costLongAbsorbed, 50, 0}, {"costLongPart", &costLongPart, 50, 0}, {"costLongCap", &costLongCap, 50, 0},
		{"costPunct", &costPunct, 100, 500}, {"costPunct2", &costPunct2, 50, 0}, {"costPunct4", &costPunct4, 50, 0},
		{"costEscape", &costEscape, 100, 300}, {"costNewlines", &costNewlines, 100, 0}, {"costSpaces", &costSpaces, 100, 0},
	}
	ints := []struct {
		name string
		p    *int32
	}{{"longSpaced", &longSpaced}, {"longBare", &longBare}, {"longAbsorbed", &longAbsorbed}, {"longPart", &longPart}, {"longCap", &longCap}}
	margin := 0.98
	if m := os.Getenv("MARGIN"); m != "" {
		fmt.Sscan(m, &margin)
	}
	marginGo := 0.9
	if m := os.Getenv("MARGIN_GO"); m != "" {
		fmt.Sscan(m, &marginGo)
	}
	eval := func(verbose bool) float64 {
		obj := 0.0
		pen := 0.0
		for _, k := range use {
			var e, x float64
			minr := math.Inf(1)
			var rs []float64
			for _, s := range byKind[k] {
				est := float64(count(s.Text)) / 1000
				e += est
				x += float64(s.hi)
				rr := est / float64(s.hi)
				rs = append(rs, rr)
				minr = min(minr, rr)
				mg := margin
				if strings.HasPrefix(k, "Go source") {
					mg = marginGo
				}
				if strings.HasPrefix(k, "CJK") {
					mg = 0.9
				}
				if rr < mg && strings.HasPrefix(k, os.Getenv("CONSTRAIN")) {
					pen += (mg - rr) * 100
				}
			}
			sort.Float64s(rs)
			if strings.HasPrefix(k, os.Getenv("CONSTRAIN")) {
				w := 1.0
				if strings.HasPrefix(k, "JSON") {
					w = 2
				}
				obj += w * (e/x - 1)
			}
			if verbose {
				fmt.Printf("  %-40s agg %.3f min %.3f p1 %.3f p5 %.3f p50 %.3f\n", k, e/x, minr, rs[len(rs)/100], rs[len(rs)/20], rs[len(rs)/2])
			}
		}
		return obj/float64(len(use)) + pen
	}
	if sc := os.Getenv("SCALE"); sc != "" {
		var f float64
		fmt.Sscan(sc, &f)
		for _, p := range ps {
			*p.p = int64(math.Round(float64(*p.p) * f))
		}
	}
	if os.Getenv("NOOPT") != "" {
		eval(true)
		return
	}
	best := eval(true)
	fmt.Println("start", best)
	for round := 0; round < 6; round++ {
		improved := false
		for i := range ps {
			p := &ps[i]
			for _, d := range []int64{p.step, -p.step, 2 * p.step, -2 * p.step} {
				old := *p.p
				if old+d < p.lo {
					continue
				}
				*p.p = old + d
				if v := eval(false); v < best-1e-6 {
					best = v
					improved = true
					fmt.Printf("%s=%d -> %.4f\n", p.name, *p.p, v)
				} else {
					*p.p = old
				}
			}
		}
		for _, ip := range ints {
			for _, d := range []int32{1, -1} {
				old := *ip.p
				if old+d < 2 {
					continue
				}
				*ip.p = old + d
				if v := eval(false); v < best-1e-6 {
					best = v
					improved = true
					fmt.Printf("%s=%d -> %.4f\n", ip.name, *ip.p, v)
				} else {
					*ip.p = old
				}
			}
		}
		if !improved {
			for i := range ps {
				if ps[i].step > 10 {
					ps[i].step /= 2
				}
			}
		}
	}
	eval(true)
	for _, p := range ps {
		fmt.Printf("%s = %d\n", p.name, *p.p)
	}
	for _, ip := range ints {
		fmt.Printf("%s = %d\n", ip.name, *ip.p)
	}
}
