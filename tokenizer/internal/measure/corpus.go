package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
)

// sample is one text of a corpus.
type sample struct {
	kind string // the kind of content: markdown, go, cjk, json, ...
	name string
	text string
}

// vaultTexts returns the Markdown notes of the demo vault.
func vaultTexts() ([]sample, error) {
	var out []sample
	err := fs.WalkDir(demovault.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".md" {
			return err
		}
		b, err := fs.ReadFile(demovault.FS(), p)
		if err != nil {
			return err
		}
		out = append(out, sample{kind: "markdown", name: "demo-vault/" + p, text: string(b)})
		return nil
	})
	return out, err
}

// goDirs are the packages of GOROOT/src whose sources make the Go corpus:
// a spread of library, compiler and runtime code, about 20 MB.
var goDirs = []string{
	"bufio", "bytes", "context", "encoding", "errors", "fmt", "go", "io", "log",
	"net/http", "net/url", "os", "path", "regexp", "slices", "sort", "strconv",
	"strings", "sync", "text", "time", "unicode", "cmd/go/internal/modload",
	"runtime/mgc.go", "runtime/proc.go", "cmd/compile/internal/ssa/rewrite.go",
}

// goTexts returns the .go files under goDirs of root (GOROOT/src), testdata
// excluded, in path order.
func goTexts(root string) ([]sample, error) {
	var out []sample
	for _, dir := range goDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "vendor" {
					return filepath.SkipDir
				}
				return nil
			}
			if filepath.Ext(p) != ".go" {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out = append(out, sample{kind: "go", name: filepath.ToSlash(rel), text: string(b)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b sample) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// fileText returns one file as a sample.
func fileText(kind, file string) (sample, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return sample{}, err
	}
	if !bytes.Contains(b, []byte("\n")) {
		return sample{}, fmt.Errorf("%s: not a text file", file)
	}
	return sample{kind: kind, name: filepath.Base(file), text: string(b)}, nil
}

// chunks splits the texts into pieces of about size bytes, at line ends,
// as a tool returns a window of a document.
func chunks(in []sample, size int) []sample {
	var out []sample
	for _, s := range in {
		text, part := s.text, 0
		for text != "" {
			end := len(text)
			if end > size {
				end = size
				if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
					end += i + 1
				} else {
					end = len(text)
				}
			}
			out = append(out, sample{kind: s.kind, name: fmt.Sprintf("%s#%d", s.name, part), text: text[:end]})
			text, part = text[end:], part+1
		}
	}
	return out
}
