package vault_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/examples/notes/vault"
)

func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "Home.md")
	if err := os.WriteFile(note, []byte("# Home\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, abs, err := vault.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(fsys, "Home.md"); err != nil || !filepath.IsAbs(abs) {
		t.Errorf("OpenDir(%s): %s, Home.md: %v; want an absolute path and the vault's files", dir, abs, err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "no such file or directory"},
		{note, "not a directory"},
	} {
		if _, _, err := vault.OpenDir(tc.path); err == nil || !strings.Contains(err.Error(), "vault "+tc.path+": "+tc.want) {
			t.Errorf("OpenDir(%s): %v; want an error naming the path: %s", tc.path, err, tc.want)
		}
	}
}

func TestCacheFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	a, err := vault.CacheFile("test", `my: vault`, "/home/a/my: vault")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := vault.CacheFile("test", `my: vault`, "/home/b/my: vault")
	if a == b || filepath.Base(filepath.Dir(a)) != "test" || !strings.HasPrefix(filepath.Base(a), "my_ vault-") || filepath.Ext(a) != ".db" {
		t.Errorf("CacheFile: %s and %s; want two files named after the vault, in bounded/test", a, b)
	}
	if info, err := os.Stat(filepath.Dir(a)); err != nil || !info.IsDir() {
		t.Errorf("the folder of %s: %v", a, err)
	}
}
