package ports_test

import (
	"slices"
	"testing"

	"github.com/boundedkit/bounded/ports"
)

func TestFolders(t *testing.T) {
	for _, c := range []struct {
		id, name string
		folders  []string
	}{
		{"Home", "Home", nil},
		{"en/Plugins/Canvas", "Canvas", []string{"en/Plugins", "en"}},
		{"/x", "x", nil},
		{" /x/y", "y", []string{" /x"}},
		{"a//b", "b", []string{"a/", "a"}},
		{"a/", "", []string{"a"}},
	} {
		if got := ports.FoldersOf(c.id); !slices.Equal(got, c.folders) {
			t.Errorf("FoldersOf(%q) = %q, want %q", c.id, got, c.folders)
		}
		if got := ports.NodeName(c.id); got != c.name {
			t.Errorf("NodeName(%q) = %q, want %q", c.id, got, c.name)
		}
	}
}

func TestNameRank(t *testing.T) {
	for _, c := range []struct {
		name, id string
		folder   bool
		want     ports.NameRank
		ok       bool
	}{
		{"en/Plugins/Canvas", "en/Plugins/Canvas", false, ports.NameRank{Tier: 0, Depth: 2}, true},
		{"EN/plugins/canvas.MD", "en/Plugins/Canvas", false, ports.NameRank{Tier: 1, Depth: 2}, true},
		{"plugins/canvas", "en/Plugins/Canvas", false, ports.NameRank{Tier: 2, Depth: 2}, true},
		{"Canvas", "en/Plugins/Canvas", false, ports.NameRank{Tier: 2, Depth: 2}, true},
		{"canvas", "Canvas", false, ports.NameRank{Tier: 2}, true},
		{"Plugins", "en/Plugins", true, ports.NameRank{Tier: 2, Class: 1, Depth: 1}, true},
		{"s/canvas", "en/Plugins/Canvas", false, ports.NameRank{}, false},
		{"anvas", "en/Plugins/Canvas", false, ports.NameRank{}, false},
		{"notes.md", "notes.md", false, ports.NameRank{}, true},
		{"notes", "notes.md", false, ports.NameRank{}, false},
		{"İstanbul", "x/istanbul", false, ports.NameRank{Tier: 2, Depth: 1}, true},
		{"x/ȺB", "X/ⱥb", false, ports.NameRank{Tier: 1, Depth: 1}, true},
		{"/", "a", false, ports.NameRank{}, false},
	} {
		got, ok := ports.ParseName(c.name).Rank(c.id, c.folder)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParseName(%q).Rank(%q, %v) = %+v, %v; want %+v, %v", c.name, c.id, c.folder, got, ok, c.want, c.ok)
		}
	}
}
