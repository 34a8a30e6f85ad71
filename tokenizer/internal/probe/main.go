package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/boundedkit/bounded/tokenizer"
)

func main() {
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	o, _ := tokenizer.New(tokenizer.O200K)
	t1 := time.Now()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	c, _ := tokenizer.New(tokenizer.CL100K)
	t2 := time.Now()
	runtime.GC()
	runtime.ReadMemStats(&m2)
	fmt.Println("o200k", t1.Sub(t0), (m1.HeapAlloc-m0.HeapAlloc)>>20, "MB; cl100k", t2.Sub(t1), (m2.HeapAlloc-m1.HeapAlloc)>>20, "MB", o.CountTokens("x"), c.CountTokens("x"))
}
