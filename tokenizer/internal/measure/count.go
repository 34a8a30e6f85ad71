package main

import (
	"crypto/sha256"
	"encoding/gob"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/boundedkit/bounded/tokenizer"
)

// counters are the exact tokenizers, o200k_base first.
var counters = func() []*tokenizer.Counter {
	var out []*tokenizer.Counter
	for _, e := range tokenizer.Encodings {
		c, err := tokenizer.New(e)
		if err != nil {
			panic(err)
		}
		out = append(out, c)
	}
	return out
}()

// exactCache keeps exact counts across runs, by encoding and text hash, in
// the user's cache directory: counting is what takes time.
type exactCache struct {
	mu    sync.Mutex
	m     map[[33]byte]int
	dirty bool
}

var cache = loadCache()

func cacheFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "bounded-measure-counts.gob")
}

func loadCache() *exactCache {
	c := &exactCache{m: make(map[[33]byte]int)}
	if f, err := os.Open(cacheFile()); err == nil {
		defer f.Close()
		_ = gob.NewDecoder(f).Decode(&c.m)
	}
	return c
}

func (c *exactCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	if f, err := os.Create(cacheFile()); err == nil {
		_ = gob.NewEncoder(f).Encode(c.m)
		f.Close()
	}
	c.dirty = false
}

// exact returns the counts of text with every counter.
func exact(text string) []int {
	h := sha256.Sum256([]byte(text))
	var key [33]byte
	copy(key[1:], h[:])
	out := make([]int, len(counters))
	for i, c := range counters {
		key[0] = byte(i)
		cache.mu.Lock()
		n, ok := cache.m[key]
		cache.mu.Unlock()
		if !ok {
			n = c.CountTokens(text)
			cache.mu.Lock()
			cache.m[key] = n
			cache.dirty = true
			cache.mu.Unlock()
		}
		out[i] = n
	}
	return out
}

// exactAll counts every text, in parallel.
func exactAll(texts []string) [][]int {
	out := make([][]int, len(texts))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i] = exact(texts[i])
			}
		})
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	cache.save()
	return out
}
