// Package index splits a source tree into the chunks a code search port
// stores: runs of lines of one file, each with a few lines of context
// before and after.
//
//	chunks, skipped, err := index.Tree(os.DirFS("."), index.Options{})
//	err = store.PutChunks(ctx, chunks)
package index

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded/ports"
)

// Options set how a tree is chunked. Zero fields take the defaults.
type Options struct {
	// Lines is the number of lines of a chunk (default 40).
	Lines int
	// Context is the number of lines of context kept before and after a
	// chunk (default 5).
	Context int
	// MaxFileBytes skips larger files (default 1 MiB).
	MaxFileBytes int64
}

// Languages maps the file extensions indexed to their language names.
var Languages = map[string]string{
	".go": "go", ".md": "markdown", ".sql": "sql", ".sh": "shell", ".yaml": "yaml", ".yml": "yaml",
	".json": "json", ".mod": "go.mod", ".py": "python", ".ts": "typescript", ".js": "javascript",
	".rs": "rust", ".c": "c", ".h": "c", ".java": "java", ".rb": "ruby", ".txt": "text", ".toml": "toml",
}

// skipDirs are folders never indexed, besides those whose name starts with
// ".".
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "testdata": true}

// Tree chunks every file of fsys whose extension is in Languages, in path
// order. Files that are too large, not valid UTF-8 or hold NUL bytes are
// skipped and listed in skipped with the reason; err is for a tree that
// cannot be walked.
func Tree(fsys fs.FS, opt Options) (chunks []ports.Chunk, skipped []string, err error) {
	if opt.Lines <= 0 {
		opt.Lines = 40
	}
	if opt.Context < 0 || opt.Context == 0 {
		opt.Context = 5
	}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = 1 << 20
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || skipDirs[d.Name()]) {
				return fs.SkipDir
			}
			return nil
		}
		lang, ok := Languages[path.Ext(p)]
		if !ok || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		if info.Size() > opt.MaxFileBytes {
			skipped = append(skipped, fmt.Sprintf("%s: %d bytes, over %d", p, info.Size(), opt.MaxFileBytes))
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		switch {
		case err != nil:
			skipped = append(skipped, fmt.Sprintf("%s: %v", p, err))
		case !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0:
			skipped = append(skipped, p+": not UTF-8 text")
		default:
			chunks = append(chunks, File(p, lang, string(data), opt)...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	return chunks, skipped, nil
}

// File chunks one file's text: chunks of opt.Lines lines (the last may be
// shorter), IDs "<path>:<first line>", lines 1-based, each with up to
// opt.Context lines before and after. An empty file has no chunk.
func File(p, lang, text string, opt Options) []ports.Chunk {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []ports.Chunk
	for start := 0; start < len(lines); start += opt.Lines {
		end := min(start+opt.Lines, len(lines))
		out = append(out, ports.Chunk{
			ID: fmt.Sprintf("%s:%d", p, start+1), FilePath: p, Language: lang,
			StartLine: start + 1, EndLine: end,
			Content:       strings.Join(lines[start:end], ""),
			ContextBefore: strings.Join(lines[max(start-opt.Context, 0):start], ""),
			ContextAfter:  strings.Join(lines[end:min(end+opt.Context, len(lines))], ""),
		})
	}
	return out
}
