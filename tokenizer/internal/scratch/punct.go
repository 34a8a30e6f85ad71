package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	tiktoken "github.com/tiktoken-go/tokenizer"
)

func punctStats() {
	o, _ := tiktoken.Get(tiktoken.O200kBase)
	c, _ := tiktoken.Get(tiktoken.Cl100kBase)
	f, _ := os.Open("/tmp/samples/all.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	type agg struct{ n, tok int }
	by := map[string]*agg{}
	kindBytes := map[string]int{}
	for sc.Scan() {
		var s smp
		json.Unmarshal(sc.Bytes(), &s)
		if kindBytes[s.Kind] > 600_000 || strings.HasPrefix(s.Kind, "other") || strings.HasPrefix(s.Kind, "CJK") {
			continue
		}
		kindBytes[s.Kind] += len(s.Text)
		m, _ := clRe.FindStringMatch(s.Text)
		for m != nil {
			p := m.String()
			q := strings.TrimLeft(p, " ")
			q = strings.TrimRight(q, "\r\n")
			if q != "" && strings.Trim(q, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") == "" {
				a, _ := o.Count(p)
				b, _ := c.Count(p)
				nbs := strings.Count(q[1:], "\\")
				k := fmt.Sprintf("L%d bs%d", min(len(p), 9), min(nbs, 3))
				g := by[k]
				if g == nil {
					g = &agg{}
					by[k] = g
				}
				g.n++
				g.tok += max(a, b)
			}
			m, _ = clRe.FindNextMatch(m)
		}
	}
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := by[k]
		if g.n >= 20 {
			fmt.Printf("%-10s n=%7d mean=%.3f\n", k, g.n, float64(g.tok)/float64(g.n))
		}
	}
}
