package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OpenDir returns the files of the vault in the folder dir, and the
// folder's absolute path with symbolic links resolved. A folder that is
// missing, is not a folder or cannot be listed is an error naming dir,
// e.g. "vault ~/notes: permission denied".
func OpenDir(dir string) (fs.FS, string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err == nil {
		err = listable(abs)
	}
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", fmt.Errorf("vault %s: %w", dir, err)
	}
	return os.DirFS(abs), abs, nil
}

// listable checks that dir is a folder whose entries can be listed.
func listable(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !info.IsDir():
		return errors.New("not a directory")
	}
	if _, err := f.ReadDir(1); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// CacheFile returns the path of program's database for a vault, in the
// user cache directory (bounded/<program>/ under $XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS), creating its folder. The
// file is named after the vault, name, and keyed by key, its absolute
// path: <name>-<12 hex digits of the SHA-256 of key>.db, characters
// that are not allowed in file names replaced by "_".
func CacheFile(program, name, key string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the database: %w", err)
	}
	dir = filepath.Join(dir, "bounded", program)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	safe := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '_'
		}
		return r
	}, name)
	return filepath.Join(dir, safe+"-"+hex.EncodeToString(sum[:6])+".db"), nil
}
