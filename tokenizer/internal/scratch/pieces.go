package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	tiktoken "github.com/tiktoken-go/tokenizer"
)

var clRe = regexp2.MustCompile(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, regexp2.None)

func pieceClass(p string) string {
	r0, _ := utf8.DecodeRuneInString(p)
	allASCII := true
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			allASCII = false
		}
	}
	switch {
	case unicode.IsDigit(r0):
		return fmt.Sprintf("digits%d", len(p))
	case strings.TrimSpace(p) == "":
		if strings.ContainsAny(p, "\r\n") {
			return "ws-nl"
		}
		return fmt.Sprintf("ws%d", min(len(p), 3))
	}
	// word?
	body := p
	prefix := ""
	if r, size := utf8.DecodeRuneInString(p); !unicode.IsLetter(r) {
		rest := p[size:]
		if r2, _ := utf8.DecodeRuneInString(rest); rest != "" && unicode.IsLetter(r2) {
			switch r {
			case ' ':
				prefix = "sp"
			case '\t':
				prefix = "tab"
			default:
				prefix = "pun"
			}
			body = rest
		}
	}
	if r, _ := utf8.DecodeRuneInString(body); unicode.IsLetter(r) && !strings.HasPrefix(body, "'") {
		if !allASCII {
			return "word-unicode"
		}
		shape := "lower"
		up := 0
		for _, c := range body {
			if unicode.IsUpper(c) {
				up++
			}
		}
		switch {
		case up == len(body):
			shape = "CAPS"
		case up == 1 && unicode.IsUpper(rune(body[0])):
			shape = "Cap"
		case up > 0:
			shape = "mixed"
		}
		return fmt.Sprintf("word-%s-%s-%d", prefix, shape, min(len(body), 16))
	}
	if strings.HasPrefix(p, "'") {
		return "contraction"
	}
	// punct
	sp := ""
	q := p
	if strings.HasPrefix(q, " ") {
		sp = "sp+"
		q = q[1:]
	}
	nl := ""
	if t := strings.TrimRight(q, "\r\n"); t != q {
		nl = "+nl"
		q = t
	}
	if !allASCII {
		return "punct-unicode"
	}
	bs := ""
	if strings.Contains(q, "\\") {
		bs = "bs"
	}
	return fmt.Sprintf("punct%s-%s%d%s", bs, sp, min(len(q), 24), nl)
}

func pieces() {
	o, _ := tiktoken.Get(tiktoken.O200kBase)
	c, _ := tiktoken.Get(tiktoken.Cl100kBase)
	fn := "/tmp/samples/all.jsonl"
	if x := os.Getenv("PIECEFILE"); x != "" {
		fn = x
	}
	f, _ := os.Open(fn)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	type agg struct {
		est            int64
		n, tok, maxTok int
		hist           [8]int
		ex             []string
	}
	by := map[string]*agg{}
	kindBytes := map[string]int{}
	want := os.Getenv("PIECES")
	for sc.Scan() {
		var s smp
		json.Unmarshal(sc.Bytes(), &s)
		if !strings.HasPrefix(s.Kind, want) || kindBytes[s.Kind] > 600_000 {
			continue
		}
		kindBytes[s.Kind] += len(s.Text)
		m, _ := clRe.FindStringMatch(s.Text)
		var e estimate
		for m != nil {
			p := m.String()
			before := e.milli
			e.addString(p)
			delta := e.milli - before
			a, _ := o.Count(p)
			b, _ := c.Count(p)
			t := max(a, b)
			k := pieceClass(p)
			g := by[k]
			if g == nil {
				g = &agg{}
				by[k] = g
			}
			g.n++
			g.est += delta
			g.tok += t
			g.maxTok = max(g.maxTok, t)
			g.hist[min(t, 7)]++
			if len(g.ex) < 8 && t > 1 {
				g.ex = append(g.ex, p)
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
		if g.n < 30 {
			continue
		}
		fmt.Printf("%-26s n=%7d mean=%.3f est=%.3f diff=%8.0f max=%d hist=%v %.60q\n", k, g.n, float64(g.tok)/float64(g.n), float64(g.est)/1000/float64(g.n), float64(g.est)/1000-float64(g.tok), g.maxTok, g.hist[:5], g.ex)
	}
}
