package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"unicode/utf8"
)

func lowest(kindPrefix string, n int) {
	f, _ := os.Open("/tmp/samples/all.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	type row struct {
		r   float64
		s   smp
		est float64
	}
	var rows []row
	for sc.Scan() {
		var s smp
		json.Unmarshal(sc.Bytes(), &s)
		if utf8.RuneCountInString(s.Text) < 200 || len(s.Kind) < len(kindPrefix) || s.Kind[:len(kindPrefix)] != kindPrefix {
			continue
		}
		s.hi = max(s.Exact[0], s.Exact[1])
		est := float64(count(s.Text)) / 1000
		rows = append(rows, row{est / float64(s.hi), s, est})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].r < rows[j].r })
	for _, r := range rows[:min(n, len(rows))] {
		t := r.s.Text
		fmt.Printf("%.3f est %.0f o %d c %d len %d: %.300q\n", r.r, r.est, r.s.Exact[0], r.s.Exact[1], utf8.RuneCountInString(t), t)
	}
}
