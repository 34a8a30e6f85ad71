package vault

import (
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// entry is a file of the vault.
type entry struct {
	path string // slash-separated, inside the vault
	kind string // see Kind
	size int64
	mod  time.Time
}

// walk calls fn for every file of the vault fsys, in [fs.WalkDir]'s order
// (each folder's entries by name), leaving out files and folders whose
// name starts with "."; a symbolic link counts as the file it points to,
// and is not followed to a folder. A file or folder that cannot be read is
// passed to bad and left out. The error is fn's, or the root's when it
// cannot be read, wrapped with "vault: ".
func walk(fsys fs.FS, fn func(entry) error, bad func(FileError)) error {
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			bad(FileError{p, err})
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		var info fs.FileInfo
		if d.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(fsys, p)
		} else {
			info, err = d.Info()
		}
		switch {
		case err != nil:
			bad(FileError{p, err})
			return nil
		case !info.Mode().IsRegular():
			return nil
		}
		return fn(entry{path: p, kind: Kind(p), size: info.Size(), mod: info.ModTime()})
	})
	if err != nil {
		return fmt.Errorf("vault: %w", err)
	}
	return nil
}
