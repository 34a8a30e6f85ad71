package memrepo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// t0 is the fixtures' epoch; at(h) is h hours after it.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func at(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }

// vault is the notes fixture. Expected answers in the tests are worked out
// by hand from it:
//
//	id           title          updated  tags     parents  internal links (position)
//	a            Alpha          5        db, go   -        b(0) ghost(1) b(3); external docs.example.com(2)
//	b            Beta           5        go       a        a(0) c(1) ghost(2)
//	c            Gamma          3        db       b        gone(1); external example.org(0)
//	d            Beta           4        -        a, c     -; external sub.docs.example.com(0)
//	e            50% off_sale   2        -        -        e(0)
//	projects/p1  P1             1        go       a        -
//	projects2/p  P2             1        -        nobody   -
//
// ghost and gone do not exist, nor does nobody.
func vault() []ports.Note {
	return []ports.Note{
		{
			ID: "a", Title: "Alpha", Content: "Alpha body\nsecond line\nthird line\n",
			Tags: []string{"go", "db", "go"},
			Links: []ports.Link{
				{Target: "b", Text: "B"},
				{Target: "ghost"},
				{Target: "https://Docs.Example.com/page", External: true, Text: "docs"},
				{Target: "b"},
			},
			CreatedAt: at(0), UpdatedAt: at(5),
		},
		{
			ID: "b", Title: "Beta", Content: "mentions alpha here",
			Tags:      []string{"go"},
			Links:     []ports.Link{{Target: "a"}, {Target: "c"}, {Target: "ghost"}},
			Parents:   []string{"a"},
			CreatedAt: at(0), UpdatedAt: at(5),
		},
		{
			ID: "c", Title: "Gamma", Content: "nothing",
			Tags:      []string{"db"},
			Links:     []ports.Link{{Target: "https://example.org/x", External: true}, {Target: "gone", Text: "gone"}},
			Parents:   []string{"b"},
			CreatedAt: at(0), UpdatedAt: at(3),
		},
		{
			ID: "d", Title: "Beta", Content: "ALPHA in caps",
			Links:     []ports.Link{{Target: "https://sub.docs.example.com/", External: true}},
			Parents:   []string{"c", "a"},
			CreatedAt: at(0), UpdatedAt: at(4),
		},
		{
			ID: "e", Title: "50% off_sale", Content: "it's 'quoted'",
			Links:     []ports.Link{{Target: "e"}},
			CreatedAt: at(0), UpdatedAt: at(2),
		},
		{ID: "projects/p1", Title: "P1", Content: "plan", Tags: []string{"go"}, Parents: []string{"a"}, CreatedAt: at(0), UpdatedAt: at(1)},
		{ID: "projects2/p", Title: "P2", Content: "other", Parents: []string{"nobody"}, CreatedAt: at(0), UpdatedAt: at(1)},
	}
}

func newVault(t *testing.T) *memrepo.Store {
	t.Helper()
	s := memrepo.New()
	for _, n := range vault() {
		if err := s.PutNote(context.Background(), n); err != nil {
			t.Fatalf("PutNote(%q): %v", n.ID, err)
		}
	}
	return s
}

// keysOf turns a page into the keys of its items, for comparison.
func keysOf[T any](key func(T) string) func(bounded.Paged[T], error) ([]string, bounded.PageInfo, error) {
	return func(pg bounded.Paged[T], err error) ([]string, bounded.PageInfo, error) {
		var keys []string
		for _, it := range pg.Items {
			keys = append(keys, key(it))
		}
		return keys, pg.Page, err
	}
}

var (
	refKeys  = keysOf(func(r ports.NoteRef) string { return r.ID })
	linkKeys = keysOf(func(l ports.LinkRef) string { return fmt.Sprintf("%s/%d", l.SourceID, l.Position) })
	descKeys = keysOf(func(d ports.Descendant) string { return fmt.Sprintf("%s@%d", d.ID, d.Depth) })
	relKeys  = keysOf(func(r ports.Related) string { return r.ID })
	nodeKeys = keysOf(func(m ports.NodeMatch) string { return m.Name })
	runKeys  = keysOf(func(r ports.RunView) string { return r.ID })
	codeKeys = keysOf(func(m ports.CodeMatch) string { return m.ID })
)

// lister is one paged read, reduced to item keys.
type lister func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error)

// listCase is a paged read with its expected keys (the whole result set
// fits one page of the default size).
type listCase struct {
	name string
	list lister
	want []string
}

// checkList runs c with the default page and checks keys and total.
func checkList(t *testing.T, s *memrepo.Store, cases []listCase) {
	t.Helper()
	for _, c := range cases {
		got, info, err := c.list(s, bounded.Page{})
		if err != nil {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got, ignoreCursors); diff != "" {
			t.Errorf("%s: got %q, want %q (-want +got):\n%s", c.name, got, c.want, diff)
		}
		if info.Total != len(c.want) || info.Returned != len(c.want) || info.HasMore {
			t.Errorf("%s: page info %+v, want total = returned = %d, no more", c.name, info, len(c.want))
		}
	}
}

// errCase is a call that must fail with an error matching want.
type errCase struct {
	name string
	call func(s *memrepo.Store) error
	want error
}

func checkErrors(t *testing.T, s *memrepo.Store, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		err := c.call(s)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got error %v, want one wrapping %v", c.name, err, c.want)
		}
	}
}

func ignore[T any](_ T, err error) error { return err }

var ctx = context.Background()

func TestListNotes(t *testing.T) {
	s := newVault(t)
	list := func(f ports.ListFilter) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.ListNotes(ctx, f, p))
		}
	}
	checkList(t, s, []listCase{
		{"all: updated desc, ties by id", list(ports.ListFilter{}), []string{"a", "b", "d", "c", "e", "projects/p1", "projects2/p"}},
		{"tag go", list(ports.ListFilter{Tag: "go"}), []string{"a", "b", "projects/p1"}},
		{"tag db", list(ports.ListFilter{Tag: "db"}), []string{"a", "c"}},
		{"tag is case-sensitive", list(ports.ListFilter{Tag: "GO"}), nil},
		{"folder projects excludes projects2", list(ports.ListFilter{Folder: "projects"}), []string{"projects/p1"}},
		{"folder projects2", list(ports.ListFilter{Folder: "projects2"}), []string{"projects2/p"}},
		{"folder and tag", list(ports.ListFilter{Folder: "projects", Tag: "db"}), nil},
	})
	checkErrors(t, s, []errCase{
		{"tag invalid UTF-8", func(s *memrepo.Store) error {
			return ignore(s.ListNotes(ctx, ports.ListFilter{Tag: "\xff"}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"folder blank", func(s *memrepo.Store) error {
			return ignore(s.ListNotes(ctx, ports.ListFilter{Folder: " "}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
	})
}

func TestNoteRefValues(t *testing.T) {
	s := newVault(t)
	pg, err := s.ListNotes(ctx, ports.ListFilter{Tag: "db"}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.NoteRef{
		{ID: "a", Title: "Alpha", Tags: []string{"db", "go"}, UpdatedAt: at(5)},
		{ID: "c", Title: "Gamma", Tags: []string{"db"}, UpdatedAt: at(3)},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("ListNotes(tag db) items (-want +got):\n%s", diff)
	}
	pg, err = s.ListNotes(ctx, ports.ListFilter{Folder: "projects2"}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 1 || pg.Items[0].Tags != nil {
		t.Errorf("note without tags: got %+v, want one item with nil Tags", pg.Items)
	}
}

func TestPaging(t *testing.T) {
	s := newVault(t)
	all := []string{"a", "b", "d", "c", "e", "projects/p1", "projects2/p"}
	cases := []struct {
		name     string
		page     bounded.Page
		want     []string
		wantInfo bounded.PageInfo
	}{
		{"default", bounded.Page{}, all,
			bounded.PageInfo{Total: 7, Limit: 50, Returned: 7}},
		{"first page", bounded.Page{Limit: 2}, all[0:2],
			bounded.PageInfo{Total: 7, Limit: 2, Returned: 2, HasMore: true, NextOffset: 2}},
		{"middle page", bounded.Page{Limit: 2, Offset: 2}, all[2:4],
			bounded.PageInfo{Total: 7, Limit: 2, Offset: 2, Returned: 2, HasMore: true, NextOffset: 4}},
		{"unaligned", bounded.Page{Limit: 3, Offset: 1}, all[1:4],
			bounded.PageInfo{Total: 7, Limit: 3, Offset: 1, Returned: 3, HasMore: true, NextOffset: 4}},
		{"last partial page", bounded.Page{Limit: 2, Offset: 6}, all[6:],
			bounded.PageInfo{Total: 7, Limit: 2, Offset: 6, Returned: 1}},
		{"exactly to the end", bounded.Page{Limit: 7}, all,
			bounded.PageInfo{Total: 7, Limit: 7, Returned: 7}},
		{"offset at the end", bounded.Page{Limit: 2, Offset: 7}, nil,
			bounded.PageInfo{Total: 7, Limit: 2, Offset: 7}},
		{"offset far past the end", bounded.Page{Limit: 2, Offset: 1 << 40}, nil,
			bounded.PageInfo{Total: 7, Limit: 2, Offset: 1 << 40}},
		{"clamped to max", bounded.Page{Limit: 1000}, all,
			bounded.PageInfo{Total: 7, Limit: 200, Returned: 7, Clamped: true, RequestedLimit: 1000}},
		{"largest offset", bounded.Page{Limit: 1, Offset: bounded.MaxOffset - 1}, nil,
			bounded.PageInfo{Total: 7, Limit: 1, Offset: bounded.MaxOffset - 1}},
	}
	for _, c := range cases {
		pg, err := s.ListNotes(ctx, ports.ListFilter{}, c.page)
		if err != nil {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		got, info, _ := refKeys(pg, nil)
		if diff := cmp.Diff(c.want, got, ignoreCursors); diff != "" {
			t.Errorf("%s: got %q, want %q (-want +got):\n%s", c.name, got, c.want, diff)
		}
		if diff := cmp.Diff(c.wantInfo, info, ignoreCursors); diff != "" {
			t.Errorf("%s: page info %+v, want %+v (-want +got):\n%s", c.name, info, c.wantInfo, diff)
		}
		if len(c.want) == 0 && pg.Items != nil {
			t.Errorf("%s: empty page has Items %#v, want nil", c.name, pg.Items)
		}
	}

	empty := memrepo.New()
	pg, err := empty.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bounded.Paged[ports.NoteRef]{Page: bounded.PageInfo{Limit: 50}}, pg, ignoreCursors); diff != "" {
		t.Errorf("empty store (-want +got):\n%s", diff)
	}
}

func TestPageErrors(t *testing.T) {
	s := newVault(t)
	// Every paged method checks its page first, so each is called here
	// with otherwise valid arguments and with a bad page.
	methods := map[string]func(s *memrepo.Store, p bounded.Page) error{
		"ListNotes":   func(s *memrepo.Store, p bounded.Page) error { return ignore(s.ListNotes(ctx, ports.ListFilter{}, p)) },
		"SearchNotes": func(s *memrepo.Store, p bounded.Page) error { return ignore(s.SearchNotes(ctx, "alpha", p)) },
		"SearchByLinks": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.SearchByLinks(ctx, ports.LinkQuery{BrokenLinks: true}, p))
		},
		"FindBrokenLinks": func(s *memrepo.Store, p bounded.Page) error { return ignore(s.FindBrokenLinks(ctx, p)) },
		"NoteLinks.Internal": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.NoteLinks(ctx, "a", ports.NoteLinksPages{Internal: p}))
		},
		"NoteLinks.External": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.NoteLinks(ctx, "a", ports.NoteLinksPages{External: p}))
		},
		"NoteLinks.Incoming": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.NoteLinks(ctx, "a", ports.NoteLinksPages{Incoming: p}))
		},
		"Backlinks":    func(s *memrepo.Store, p bounded.Page) error { return ignore(s.Backlinks(ctx, "a", p)) },
		"Children":     func(s *memrepo.Store, p bounded.Page) error { return ignore(s.Children(ctx, "a", p)) },
		"Parents":      func(s *memrepo.Store, p bounded.Page) error { return ignore(s.Parents(ctx, "b", p)) },
		"Descendants":  func(s *memrepo.Store, p bounded.Page) error { return ignore(s.Descendants(ctx, "a", 0, p)) },
		"RelatedNotes": func(s *memrepo.Store, p bounded.Page) error { return ignore(s.RelatedNotes(ctx, "a", p)) },
		"SearchNodes": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"x"}}, p))
		},
		"ResponseHistory": func(s *memrepo.Store, p bounded.Page) error { return ignore(s.ResponseHistory(ctx, "ep", p)) },
		"SearchCode": func(s *memrepo.Store, p bounded.Page) error {
			return ignore(s.SearchCode(ctx, ports.CodeQuery{Query: "x1"}, p))
		},
	}
	pages := []struct {
		name string
		page bounded.Page
		want error
	}{
		{"negative limit", bounded.Page{Limit: -1}, bounded.ErrInvalidPage},
		{"negative offset", bounded.Page{Offset: -1}, bounded.ErrInvalidPage},
		{"offset over max", bounded.Page{Offset: bounded.MaxOffset + 1}, bounded.ErrInvalidPage},
		{"offset plus limit over max", bounded.Page{Limit: 1, Offset: bounded.MaxOffset}, bounded.ErrInvalidPage},
		{"cursor", bounded.Page{Cursor: "abc"}, bounded.ErrInvalidCursor},
	}
	for name, call := range methods {
		if err := call(s, bounded.Page{}); err != nil {
			t.Errorf("%s: valid call: error %v", name, err)
		}
		for _, pc := range pages {
			if err := call(s, pc.page); !errors.Is(err, pc.want) {
				t.Errorf("%s, %s: got error %v, want one wrapping %v", name, pc.name, err, pc.want)
			}
		}
	}

	// The page is checked before the other arguments.
	checkErrors(t, s, []errCase{
		{"SearchNotes bad page and bad query", func(s *memrepo.Store) error {
			return ignore(s.SearchNotes(ctx, "", bounded.Page{Limit: -1}))
		}, bounded.ErrInvalidPage},
		{"Children bad page and missing note", func(s *memrepo.Store) error {
			return ignore(s.Children(ctx, "zzz", bounded.Page{Cursor: "x"}))
		}, bounded.ErrInvalidCursor},
	})
}

// TestWalk follows every paged method from the first page to the last by
// NextOffset, for several page sizes, and checks that the pages add up to
// one full read: every item exactly once, in order.
func TestWalk(t *testing.T) {
	s := newVault(t)
	loadKnowledge(t, s)
	loadHistory(t, s)
	loadCode(t, s)
	listers := map[string]lister{
		"ListNotes": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.ListNotes(ctx, ports.ListFilter{}, p))
		},
		"SearchNotes": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.SearchNotes(ctx, "a", p))
		},
		"SearchByLinks": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.SearchByLinks(ctx, ports.LinkQuery{BrokenLinks: true}, p))
		},
		"FindBrokenLinks": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return linkKeys(s.FindBrokenLinks(ctx, p))
		},
		"NoteLinks.Internal": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			nl, err := s.NoteLinks(ctx, "a", ports.NoteLinksPages{Internal: p})
			return linkKeys(nl.Internal, err)
		},
		"Backlinks": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Backlinks(ctx, "ghost", p))
		},
		"Children": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Children(ctx, "a", p))
		},
		"Descendants": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return descKeys(s.Descendants(ctx, "a", 0, p))
		},
		"RelatedNotes": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return relKeys(s.RelatedNotes(ctx, "a", p))
		},
		"SearchNodes": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return nodeKeys(s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"a"}}, p))
		},
		"ResponseHistory": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return runKeys(s.ResponseHistory(ctx, "ep1", p))
		},
		"SearchCode": func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return codeKeys(s.SearchCode(ctx, ports.CodeQuery{Query: "parseToken verify"}, p))
		},
	}
	for name, list := range listers {
		full, info, err := list(s, bounded.Page{Limit: 10})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(full) < 2 || info.Total != len(full) {
			t.Fatalf("%s: full read %q with total %d: want at least 2 items, all in one page", name, full, info.Total)
		}
		for _, size := range []int{1, 2, 3, 7} {
			var walked []string
			p := bounded.Page{Limit: size}
			for range 100 {
				keys, info, err := list(s, p)
				if err != nil {
					t.Fatalf("%s size %d offset %d: %v", name, size, p.Offset, err)
				}
				if info.Total != len(full) {
					t.Errorf("%s size %d offset %d: total %d, want %d", name, size, p.Offset, info.Total, len(full))
				}
				walked = append(walked, keys...)
				if !info.HasMore {
					break
				}
				p.Offset = info.NextOffset
			}
			if diff := cmp.Diff(full, walked, ignoreCursors); diff != "" {
				t.Errorf("%s size %d: walked %q, want %q (-want +got):\n%s", name, size, walked, full, diff)
			}
		}
	}
}

func TestSearchNotes(t *testing.T) {
	s := newVault(t)
	search := func(q string) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.SearchNotes(ctx, q, p))
		}
	}
	checkList(t, s, []listCase{
		{"title match first, then content by updated desc", search("alpha"), []string{"a", "b", "d"}},
		{"case folded", search("ALP"), []string{"a", "b", "d"}},
		{"title ties by id", search("beta"), []string{"b", "d"}},
		{"percent is literal", search("%"), []string{"e"}},
		{"underscore is literal", search("f_s"), []string{"e"}},
		{"quote is literal", search("'quoted'"), []string{"e"}},
		{"spaces are kept", search(" in "), []string{"d"}},
		{"no match", search("zebra"), nil},
	})
	checkErrors(t, s, []errCase{
		{"empty query", func(s *memrepo.Store) error { return ignore(s.SearchNotes(ctx, "", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"blank query", func(s *memrepo.Store) error { return ignore(s.SearchNotes(ctx, " \t", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"NUL", func(s *memrepo.Store) error { return ignore(s.SearchNotes(ctx, "a\x00", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"invalid UTF-8", func(s *memrepo.Store) error { return ignore(s.SearchNotes(ctx, "\xc3", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"too long", func(s *memrepo.Store) error {
			return ignore(s.SearchNotes(ctx, strings.Repeat("a", ports.MaxQueryBytes+1), bounded.Page{}))
		}, ports.ErrInvalidQuery},
	})
}

func TestSearchByLinks(t *testing.T) {
	s := newVault(t)
	search := func(q ports.LinkQuery) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.SearchByLinks(ctx, q, p))
		}
	}
	checkList(t, s, []listCase{
		{"has links to b (twice in a: once)", search(ports.LinkQuery{HasLinksTo: []string{"b"}}), []string{"a"}},
		{"has links to a missing note", search(ports.LinkQuery{HasLinksTo: []string{"ghost", "gone"}}), []string{"a", "b", "c"}},
		{"has links to self", search(ports.LinkQuery{HasLinksTo: []string{"e"}}), []string{"e"}},
		{"has links to: external URL is not a target", search(ports.LinkQuery{HasLinksTo: []string{"https://example.org/x"}}), nil},
		{"linked from a: existing targets only", search(ports.LinkQuery{LinkedFrom: []string{"a"}}), []string{"b"}},
		{"linked from b or a missing note", search(ports.LinkQuery{LinkedFrom: []string{"b", "zzz"}}), []string{"a", "c"}},
		{"linked from self-linking note", search(ports.LinkQuery{LinkedFrom: []string{"e"}}), []string{"e"}},
		{"domain and subdomains", search(ports.LinkQuery{ExternalDomains: []string{"example.com"}}), []string{"a", "d"}},
		{"domain folded", search(ports.LinkQuery{ExternalDomains: []string{"EXAMPLE.ORG"}}), []string{"c"}},
		{"subdomain only", search(ports.LinkQuery{ExternalDomains: []string{"sub.docs.example.com"}}), []string{"d"}},
		{"suffix is not a subdomain", search(ports.LinkQuery{ExternalDomains: []string{"ample.com"}}), nil},
		{"broken links", search(ports.LinkQuery{BrokenLinks: true}), []string{"a", "b", "c"}},
		{"AND of criteria", search(ports.LinkQuery{BrokenLinks: true, ExternalDomains: []string{"example.com"}}), []string{"a"}},
		{"AND with no common note", search(ports.LinkQuery{HasLinksTo: []string{"a"}, LinkedFrom: []string{"b"}}), nil},
	})
	checkErrors(t, s, []errCase{
		{"no criterion", func(s *memrepo.Store) error { return ignore(s.SearchByLinks(ctx, ports.LinkQuery{}, bounded.Page{})) }, ports.ErrInvalidQuery},
		{"empty target", func(s *memrepo.Store) error {
			return ignore(s.SearchByLinks(ctx, ports.LinkQuery{HasLinksTo: []string{""}}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"too many", func(s *memrepo.Store) error {
			return ignore(s.SearchByLinks(ctx, ports.LinkQuery{LinkedFrom: make([]string, ports.MaxGetNotes+1)}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
	})
}

func TestFindBrokenLinks(t *testing.T) {
	s := newVault(t)
	pg, err := s.FindBrokenLinks(ctx, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.LinkRef{
		{SourceID: "a", Position: 1, Target: "ghost"},
		{SourceID: "b", Position: 2, Target: "ghost"},
		{SourceID: "c", Position: 1, Target: "gone", Text: "gone"},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("FindBrokenLinks (-want +got):\n%s", diff)
	}

	// Deleting b breaks a's two links to it.
	if err := s.DeleteNote(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	got, _, err := linkKeys(s.FindBrokenLinks(ctx, bounded.Page{}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/0", "a/1", "a/3", "c/1"}, got, ignoreCursors); diff != "" {
		t.Errorf("after deleting b (-want +got):\n%s", diff)
	}
}

func TestNoteLinks(t *testing.T) {
	s := newVault(t)
	got, err := s.NoteLinks(ctx, "a", ports.NoteLinksPages{})
	if err != nil {
		t.Fatal(err)
	}
	info := func(total, limit int) bounded.PageInfo {
		return bounded.PageInfo{Total: total, Limit: limit, Returned: min(total, limit)}
	}
	want := ports.NoteLinks{
		Internal: bounded.Paged[ports.LinkRef]{
			Items: []ports.LinkRef{
				{SourceID: "a", Position: 0, Target: "b", Text: "B", Exists: true},
				{SourceID: "a", Position: 1, Target: "ghost"},
				{SourceID: "a", Position: 3, Target: "b", Exists: true},
			},
			Page: info(3, 100),
		},
		External: bounded.Paged[ports.LinkRef]{
			Items: []ports.LinkRef{{SourceID: "a", Position: 2, Target: "https://Docs.Example.com/page", External: true, Text: "docs"}},
			Page:  info(1, 100),
		},
		Incoming: bounded.Paged[ports.LinkRef]{
			Items: []ports.LinkRef{{SourceID: "b", Position: 0, Target: "a", Exists: true}},
			Page:  info(1, 100),
		},
	}
	if diff := cmp.Diff(want, got, ignoreCursors); diff != "" {
		t.Errorf("NoteLinks(a) (-want +got):\n%s", diff)
	}

	// Each category pages on its own.
	got, err = s.NoteLinks(ctx, "a", ports.NoteLinksPages{Internal: bounded.Page{Limit: 1, Offset: 1}, External: bounded.Page{Offset: 5}})
	if err != nil {
		t.Fatal(err)
	}
	gotInt, intInfo, _ := linkKeys(got.Internal, nil)
	if diff := cmp.Diff([]string{"a/1"}, gotInt, ignoreCursors); diff != "" {
		t.Errorf("internal page (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(bounded.PageInfo{Total: 3, Limit: 1, Offset: 1, Returned: 1, HasMore: true, NextOffset: 2}, intInfo, ignoreCursors); diff != "" {
		t.Errorf("internal page info (-want +got):\n%s", diff)
	}
	if got.External.Items != nil || got.External.Page.Total != 1 || got.External.Page.Returned != 0 {
		t.Errorf("external past the end: got %+v, want no items and total 1", got.External)
	}
	if len(got.Incoming.Items) != 1 {
		t.Errorf("incoming: got %+v, want 1 item", got.Incoming)
	}

	// A self-link is both outgoing and incoming; a note without links has
	// empty pages.
	got, err = s.NoteLinks(ctx, "e", ports.NoteLinksPages{})
	if err != nil {
		t.Fatal(err)
	}
	self := []ports.LinkRef{{SourceID: "e", Position: 0, Target: "e", Exists: true}}
	if diff := cmp.Diff(self, got.Internal.Items, ignoreCursors); diff != "" {
		t.Errorf("e internal (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(self, got.Incoming.Items, ignoreCursors); diff != "" {
		t.Errorf("e incoming (-want +got):\n%s", diff)
	}
	got, err = s.NoteLinks(ctx, "projects/p1", ports.NoteLinksPages{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Internal.Items != nil || got.External.Items != nil || got.Incoming.Items != nil {
		t.Errorf("projects/p1: got %+v, want nil items everywhere", got)
	}

	checkErrors(t, s, []errCase{
		{"missing note", func(s *memrepo.Store) error { return ignore(s.NoteLinks(ctx, "ghost", ports.NoteLinksPages{})) }, ports.ErrNotFound},
		{"empty id", func(s *memrepo.Store) error { return ignore(s.NoteLinks(ctx, "", ports.NoteLinksPages{})) }, ports.ErrInvalidQuery},
	})
}

func TestBacklinksChildrenParents(t *testing.T) {
	s := newVault(t)
	backlinks := func(id string) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Backlinks(ctx, id, p))
		}
	}
	children, parents := childrenOf, parentsOf
	checkList(t, s, []listCase{
		{"backlinks of b (a links twice, once)", backlinks("b"), []string{"a"}},
		{"backlinks of a missing note", backlinks("ghost"), []string{"a", "b"}},
		{"backlinks of a self-linking note", backlinks("e"), []string{"e"}},
		{"backlinks of an unlinked id", backlinks("nothing"), nil},
		{"children by title then id", children("a"), []string{"b", "d", "projects/p1"}},
		{"children of c", children("c"), []string{"d"}},
		{"no children", children("e"), nil},
		{"parents by title then id", parents("d"), []string{"a", "c"}},
		{"parents of c", parents("c"), []string{"b"}},
		{"missing parents are left out, its folder is one", parents("projects2/p"), []string{"projects2"}},
		{"no parents", parents("a"), nil},
	})
	checkErrors(t, s, []errCase{
		{"backlinks blank id", func(s *memrepo.Store) error { return ignore(s.Backlinks(ctx, " ", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"children of a missing note", func(s *memrepo.Store) error { return ignore(s.Children(ctx, "nobody", bounded.Page{})) }, ports.ErrNotFound},
		{"children empty id", func(s *memrepo.Store) error { return ignore(s.Children(ctx, "", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"parents of a missing note", func(s *memrepo.Store) error { return ignore(s.Parents(ctx, "ghost", bounded.Page{})) }, ports.ErrNotFound},
		{"parents NUL id", func(s *memrepo.Store) error { return ignore(s.Parents(ctx, "a\x00", bounded.Page{})) }, ports.ErrInvalidQuery},
	})
}

func TestDescendants(t *testing.T) {
	s := newVault(t)
	// A separate three-note cycle x -> y -> z -> x (each the parent of the
	// next), plus w, a second child of x with the same title as y.
	for _, n := range []ports.Note{
		{ID: "x", Title: "X", Parents: []string{"z"}},
		{ID: "y", Title: "Y", Parents: []string{"x"}},
		{ID: "z", Title: "Z", Parents: []string{"y"}},
		{ID: "w", Title: "Y", Parents: []string{"x"}},
		{ID: "v", Title: "V", Parents: []string{"w", "z"}},
	} {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	desc := descendantsOf
	checkList(t, s, []listCase{
		// d is a child of a and a grandchild through b -> c: once, at depth 1.
		{"default depth 3", desc("a", 0), []string{"b@1", "d@1", "projects/p1@1", "c@2"}},
		{"depth 1", desc("a", 1), []string{"b@1", "d@1", "projects/p1@1"}},
		{"chain", desc("b", 0), []string{"c@1", "d@2"}},
		{"leaf", desc("d", 0), nil},
		// v is reached at depth 2 through w and at 3 through z: once, at 2.
		{"cycle never returns the start", desc("x", 20), []string{"w@1", "y@1", "v@2", "z@2"}},
		{"cycle, depth 1", desc("x", 1), []string{"w@1", "y@1"}},
		{"cycle from inside", desc("z", 0), []string{"v@1", "x@1", "w@2", "y@2"}},
	})
	pg, err := s.Descendants(ctx, "b", 0, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.Descendant{
		{NoteRef: ports.NoteRef{ID: "c", Title: "Gamma", Tags: []string{"db"}, UpdatedAt: at(3)}, Depth: 1},
		{NoteRef: ports.NoteRef{ID: "d", Title: "Beta", UpdatedAt: at(4)}, Depth: 2},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("Descendants(b) items (-want +got):\n%s", diff)
	}
	checkErrors(t, s, []errCase{
		{"negative depth", func(s *memrepo.Store) error { return ignore(s.Descendants(ctx, "a", -1, bounded.Page{})) }, ports.ErrInvalidQuery},
		{"depth over max", func(s *memrepo.Store) error {
			return ignore(s.Descendants(ctx, "a", ports.MaxDescendantDepth+1, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"missing note", func(s *memrepo.Store) error { return ignore(s.Descendants(ctx, "nobody", 0, bounded.Page{})) }, ports.ErrNotFound},
		{"empty id", func(s *memrepo.Store) error { return ignore(s.Descendants(ctx, "", 0, bounded.Page{})) }, ports.ErrInvalidQuery},
	})
}

func TestRelatedNotes(t *testing.T) {
	s := newVault(t)
	ref := func(id string) ports.NoteRef {
		for _, n := range vault() {
			if n.ID == id {
				nn, _ := n.Normalize()
				return ports.NoteRef{ID: nn.ID, Title: nn.Title, Tags: nn.Tags, UpdatedAt: nn.UpdatedAt}
			}
		}
		t.Fatalf("no note %q", id)
		return ports.NoteRef{}
	}
	cases := []struct {
		id   string
		want []ports.Related
	}{
		// a: tags db, go; internal targets b, ghost.
		{"a", []ports.Related{
			// go; ghost; a -> b and b -> a.
			{NoteRef: ref("b"), Score: 4, SharedTags: 1, SharedLinks: 1, LinksTo: true, LinkedFrom: true},
			// db.
			{NoteRef: ref("c"), Score: 1, SharedTags: 1},
			// go.
			{NoteRef: ref("projects/p1"), Score: 1, SharedTags: 1},
		}},
		// c: tag db; internal target gone.
		{"c", []ports.Related{
			{NoteRef: ref("b"), Score: 2, LinkedFrom: true},
			{NoteRef: ref("a"), Score: 1, SharedTags: 1},
		}},
		// e links only to itself: never its own relative.
		{"e", nil},
	}
	for _, c := range cases {
		pg, err := s.RelatedNotes(ctx, c.id, bounded.Page{})
		if err != nil {
			t.Errorf("RelatedNotes(%q): %v", c.id, err)
			continue
		}
		if diff := cmp.Diff(c.want, pg.Items, ignoreCursors); diff != "" {
			t.Errorf("RelatedNotes(%q) (-want +got):\n%s", c.id, diff)
		}
		if pg.Page.Total != len(c.want) {
			t.Errorf("RelatedNotes(%q): total %d, want %d", c.id, pg.Page.Total, len(c.want))
		}
	}

	// Shared links count distinct targets, missing or not.
	s2 := memrepo.New()
	for _, n := range []ports.Note{
		{ID: "p", Links: []ports.Link{{Target: "t1"}, {Target: "t1"}, {Target: "t2"}, {Target: "https://x.org", External: true}}},
		{ID: "q", Links: []ports.Link{{Target: "t1"}, {Target: "t2"}, {Target: "t2"}, {Target: "https://x.org", External: true}}},
		{ID: "t1"},
	} {
		if err := s2.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := s2.RelatedNotes(ctx, "p", bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.Related{
		{NoteRef: ports.NoteRef{ID: "q"}, Score: 2, SharedLinks: 2},
		{NoteRef: ports.NoteRef{ID: "t1"}, Score: 2, LinksTo: true},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("RelatedNotes(p) (-want +got):\n%s", diff)
	}
	checkErrors(t, s, []errCase{
		{"missing note", func(s *memrepo.Store) error { return ignore(s.RelatedNotes(ctx, "ghost", bounded.Page{})) }, ports.ErrNotFound},
		{"empty id", func(s *memrepo.Store) error { return ignore(s.RelatedNotes(ctx, "", bounded.Page{})) }, ports.ErrInvalidQuery},
	})
}

func TestGetNote(t *testing.T) {
	s := newVault(t)
	aRef := ports.NoteRef{ID: "a", Title: "Alpha", Tags: []string{"db", "go"}, UpdatedAt: at(5)}
	cases := []struct {
		name string
		id   string
		w    bounded.Window
		want ports.NoteContent
	}{
		{"whole note", "a", bounded.Window{}, ports.NoteContent{
			NoteRef: aRef, CreatedAt: at(0), Content: "Alpha body\nsecond line\nthird line\n",
			Window: bounded.WindowInfo{TotalLines: 3, ReturnedLines: 3},
		}},
		{"one line window", "a", bounded.Window{MaxLines: 1, Offset: 1}, ports.NoteContent{
			NoteRef: aRef, CreatedAt: at(0), Content: "second line\n",
			Window: bounded.WindowInfo{TotalLines: 3, ReturnedLines: 1, Offset: 1, Truncated: true, NextOffset: 2},
		}},
		{"window past the end", "a", bounded.Window{Offset: 9}, ports.NoteContent{
			NoteRef: aRef, CreatedAt: at(0),
			Window: bounded.WindowInfo{TotalLines: 3, Offset: 9, Truncated: true},
		}},
		{"clamped window", "d", bounded.Window{MaxLines: 5000}, ports.NoteContent{
			NoteRef: ports.NoteRef{ID: "d", Title: "Beta", UpdatedAt: at(4)}, CreatedAt: at(0), Content: "ALPHA in caps",
			Window: bounded.WindowInfo{TotalLines: 1, ReturnedLines: 1, Clamped: true},
		}},
	}
	for _, c := range cases {
		got, err := s.GetNote(ctx, c.id, c.w)
		if err != nil {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got, ignoreCursors); diff != "" {
			t.Errorf("%s: GetNote(%q, %+v) (-want +got):\n%s", c.name, c.id, c.w, diff)
		}
	}
	checkErrors(t, s, []errCase{
		{"missing", func(s *memrepo.Store) error { return ignore(s.GetNote(ctx, "zzz", bounded.Window{})) }, ports.ErrNotFound},
		{"blank id", func(s *memrepo.Store) error { return ignore(s.GetNote(ctx, " ", bounded.Window{})) }, ports.ErrInvalidQuery},
		{"negative lines", func(s *memrepo.Store) error { return ignore(s.GetNote(ctx, "a", bounded.Window{MaxLines: -1})) }, bounded.ErrInvalidWindow},
		{"bad window before existence", func(s *memrepo.Store) error {
			return ignore(s.GetNote(ctx, "zzz", bounded.Window{Offset: -1}))
		}, bounded.ErrInvalidWindow},
	})
	if _, err := s.GetNote(ctx, "zzz", bounded.Window{}); err == nil || !strings.Contains(err.Error(), `"zzz"`) {
		t.Errorf("missing note error %v does not name the id", err)
	}
}

func TestGetNotes(t *testing.T) {
	s := newVault(t)
	w := bounded.Window{MaxLines: 1}
	got, err := s.GetNotes(ctx, []string{"b", "zzz", "a", "b", "zzz", "ghost"}, w)
	if err != nil {
		t.Fatal(err)
	}
	want := ports.GetNotesResult{
		Notes: []ports.NoteContent{
			{
				NoteRef: ports.NoteRef{ID: "b", Title: "Beta", Tags: []string{"go"}, UpdatedAt: at(5)}, CreatedAt: at(0),
				Content: "mentions alpha here", Window: bounded.WindowInfo{TotalLines: 1, ReturnedLines: 1},
			},
			{
				NoteRef: ports.NoteRef{ID: "a", Title: "Alpha", Tags: []string{"db", "go"}, UpdatedAt: at(5)}, CreatedAt: at(0),
				Content: "Alpha body\n", Window: bounded.WindowInfo{TotalLines: 3, ReturnedLines: 1, Truncated: true, NextOffset: 1},
			},
		},
		Missing: []string{"zzz", "ghost"},
	}
	if diff := cmp.Diff(want, got, ignoreCursors); diff != "" {
		t.Errorf("GetNotes (-want +got):\n%s", diff)
	}

	got, err = s.GetNotes(ctx, []string{"zzz"}, bounded.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ports.GetNotesResult{Missing: []string{"zzz"}}, got, ignoreCursors); diff != "" {
		t.Errorf("GetNotes(all missing) (-want +got):\n%s", diff)
	}
	got, err = s.GetNotes(ctx, []string{"e"}, bounded.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Missing != nil || len(got.Notes) != 1 {
		t.Errorf("GetNotes(e): got %+v, want one note and nil Missing", got)
	}

	hundred := make([]string, ports.MaxGetNotes)
	for i := range hundred {
		hundred[i] = "a"
	}
	if _, err := s.GetNotes(ctx, hundred, bounded.Window{}); err != nil {
		t.Errorf("GetNotes(%d ids): %v", len(hundred), err)
	}
	checkErrors(t, s, []errCase{
		{"no ids", func(s *memrepo.Store) error { return ignore(s.GetNotes(ctx, nil, bounded.Window{})) }, ports.ErrInvalidQuery},
		{"too many ids", func(s *memrepo.Store) error {
			return ignore(s.GetNotes(ctx, append(hundred, "a"), bounded.Window{}))
		}, ports.ErrInvalidQuery},
		{"empty id", func(s *memrepo.Store) error { return ignore(s.GetNotes(ctx, []string{"a", ""}, bounded.Window{})) }, ports.ErrInvalidQuery},
		{"bad window", func(s *memrepo.Store) error {
			return ignore(s.GetNotes(ctx, []string{"zzz"}, bounded.Window{Offset: -1}))
		}, bounded.ErrInvalidWindow},
	})
}

func TestPutAndDeleteNote(t *testing.T) {
	s := newVault(t)
	// Replacing keeps one copy, with the new links and parents.
	if err := s.PutNote(ctx, ports.Note{ID: "b", Title: "Beta 2", UpdatedAt: at(9)}); err != nil {
		t.Fatal(err)
	}
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Page.Total != 7 || pg.Items[0].ID != "b" || pg.Items[0].Title != "Beta 2" {
		t.Errorf("after replacing b: got %+v, want b first of 7, titled Beta 2", pg)
	}
	checkList(t, s, []listCase{
		{"b's old links are gone", func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Backlinks(ctx, "c", p))
		}, nil},
		{"b's old parent edge is gone", func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Children(ctx, "a", p))
		}, []string{"d", "projects/p1"}},
	})

	// Times are stored normalized: UTC, microseconds.
	local := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	if err := s.PutNote(ctx, ports.Note{ID: "t", CreatedAt: local, UpdatedAt: local}); err != nil {
		t.Fatal(err)
	}
	nc, err := s.GetNote(ctx, "t", bounded.Window{})
	if err != nil {
		t.Fatal(err)
	}
	wantTime := time.Date(2024, 3, 1, 11, 0, 0, 123456000, time.UTC)
	if nc.UpdatedAt != wantTime || nc.CreatedAt != wantTime {
		t.Errorf("times: got %v and %v, want %v", nc.CreatedAt, nc.UpdatedAt, wantTime)
	}

	// Deleting: links to the note become broken, children keep naming it.
	if err := s.DeleteNote(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	checkErrors(t, s, []errCase{
		{"get deleted", func(s *memrepo.Store) error { return ignore(s.GetNote(ctx, "a", bounded.Window{})) }, ports.ErrNotFound},
		{"delete twice", func(s *memrepo.Store) error { return s.DeleteNote(ctx, "a") }, ports.ErrNotFound},
		{"delete empty id", func(s *memrepo.Store) error { return s.DeleteNote(ctx, "") }, ports.ErrInvalidQuery},
	})
	checkList(t, s, []listCase{
		{"d still names a", func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return refKeys(s.Parents(ctx, "d", p))
		}, []string{"c"}},
	})
}

func TestInvalidItems(t *testing.T) {
	s := newVault(t)
	checkErrors(t, s, []errCase{
		{"note empty id", func(s *memrepo.Store) error { return s.PutNote(ctx, ports.Note{}) }, ports.ErrInvalidItem},
		{"note NUL content", func(s *memrepo.Store) error { return s.PutNote(ctx, ports.Note{ID: "n", Content: "a\x00"}) }, ports.ErrInvalidItem},
		{"note bad title", func(s *memrepo.Store) error { return s.PutNote(ctx, ports.Note{ID: "n", Title: "\xff"}) }, ports.ErrInvalidItem},
		{"note own parent", func(s *memrepo.Store) error { return s.PutNote(ctx, ports.Note{ID: "n", Parents: []string{"n"}}) }, ports.ErrInvalidItem},
		{"note empty link", func(s *memrepo.Store) error {
			return s.PutNote(ctx, ports.Note{ID: "n", Links: []ports.Link{{Target: ""}}})
		}, ports.ErrInvalidItem},
		{"note empty tag", func(s *memrepo.Store) error { return s.PutNote(ctx, ports.Note{ID: "n", Tags: []string{""}}) }, ports.ErrInvalidItem},
		{"entity empty name", func(s *memrepo.Store) error { return s.PutEntity(ctx, ports.Entity{}) }, ports.ErrInvalidItem},
		{"entity bad observation", func(s *memrepo.Store) error {
			return s.PutEntity(ctx, ports.Entity{Name: "n", Observations: []string{"\x00"}})
		}, ports.ErrInvalidItem},
		{"run empty endpoint", func(s *memrepo.Store) error { return s.RecordRun(ctx, ports.Run{ID: "r"}) }, ports.ErrInvalidItem},
		{"chunk bad lines", func(s *memrepo.Store) error {
			return s.PutChunks(ctx, []ports.Chunk{{ID: "k", FilePath: "f", StartLine: 0, EndLine: 1}})
		}, ports.ErrInvalidItem},
	})
	// Nothing was written.
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Page.Total != 7 {
		t.Errorf("after invalid puts: %d notes, want 7", pg.Page.Total)
	}
	if _, err := s.GetNote(ctx, "n", bounded.Window{}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("invalid note n was stored: GetNote error %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	s := newVault(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	calls := map[string]func() error{
		"PutNote":   func() error { return s.PutNote(cctx, ports.Note{ID: "new"}) },
		"GetNote":   func() error { return ignore(s.GetNote(cctx, "a", bounded.Window{})) },
		"ListNotes": func() error { return ignore(s.ListNotes(cctx, ports.ListFilter{}, bounded.Page{})) },
		"SearchCode": func() error {
			return ignore(s.SearchCode(cctx, ports.CodeQuery{Query: "abc"}, bounded.Page{}))
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled context: got %v, want context.Canceled", name, err)
		}
	}
	if _, err := s.GetNote(ctx, "new", bounded.Window{}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("PutNote with a canceled context wrote the note: %v", err)
	}
}

func TestValuesNotAliased(t *testing.T) {
	s := memrepo.New()
	n := ports.Note{
		ID: "n", Tags: []string{"t1", "t2"}, Parents: []string{"p"},
		Links: []ports.Link{{Target: "p"}},
	}
	if err := s.PutNote(ctx, n); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNote(ctx, ports.Note{ID: "p", Title: "P"}); err != nil {
		t.Fatal(err)
	}
	// The caller changes its slices after the write.
	n.Tags[0] = "changed"
	n.Parents[0] = "changed"
	n.Links[0].Target = "changed"

	// A reader changes the slices it got.
	nc, err := s.GetNote(ctx, "n", bounded.Window{})
	if err != nil {
		t.Fatal(err)
	}
	nc.Tags[1] = "changed"
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Items[0].Tags[0] = "changed" // n, before p by id

	nc, err = s.GetNote(ctx, "n", bounded.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"t1", "t2"}, nc.Tags, ignoreCursors); diff != "" {
		t.Errorf("tags changed through an alias (-want +got):\n%s", diff)
	}
	children, _, err := refKeys(s.Children(ctx, "p", bounded.Page{}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n"}, children, ignoreCursors); diff != "" {
		t.Errorf("parents changed through an alias (-want +got):\n%s", diff)
	}
	backlinks, _, err := refKeys(s.Backlinks(ctx, "p", bounded.Page{}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n"}, backlinks, ignoreCursors); diff != "" {
		t.Errorf("links changed through an alias (-want +got):\n%s", diff)
	}

	e := ports.Entity{Name: "E", Observations: []string{"o1"}, Tags: []string{"t"}}
	if err := s.PutEntity(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.Observations[0] = "changed"
	e.Tags[0] = "changed"
	q := ports.NodeQuery{Queries: []string{"e"}}
	m, err := s.SearchNodes(ctx, q, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	m.Items[0].Observations[0] = "changed again"
	m.Items[0].Tags[0] = "changed again"
	m, err = s.SearchNodes(ctx, q, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := ports.Entity{Name: "E", Observations: []string{"o1"}, Tags: []string{"t"}}
	if diff := cmp.Diff(want, m.Items[0].Entity, ignoreCursors); diff != "" {
		t.Errorf("entity changed through an alias (-want +got):\n%s", diff)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := newVault(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				n := ports.Note{
					ID: fmt.Sprintf("w%d/n%d", w, i), Title: "alpha", Tags: []string{"go"},
					Parents: []string{"a"}, Links: []ports.Link{{Target: "b"}}, UpdatedAt: at(i),
				}
				if err := s.PutNote(ctx, n); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if _, err := s.ListNotes(ctx, ports.ListFilter{Tag: "go"}, bounded.Page{Limit: 5}); err != nil {
					t.Error(err)
				}
				if _, err := s.SearchNotes(ctx, "alpha", bounded.Page{}); err != nil {
					t.Error(err)
				}
				if _, err := s.GetNote(ctx, "a", bounded.Window{}); err != nil {
					t.Error(err)
				}
				if _, err := s.Descendants(ctx, "a", 0, bounded.Page{}); err != nil {
					t.Error(err)
				}
				if _, err := s.RelatedNotes(ctx, "a", bounded.Page{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	pg, err := s.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 7 + 4*50; pg.Page.Total != want {
		t.Errorf("after concurrent puts: total %d, want %d", pg.Page.Total, want)
	}
}

func TestZeroStore(t *testing.T) {
	var s memrepo.Store
	if _, err := s.GetNote(ctx, "a", bounded.Window{}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("GetNote on a zero store: %v, want ErrNotFound", err)
	}
	if err := s.PutNote(ctx, ports.Note{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutEntity(ctx, ports.Entity{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRun(ctx, ports.Run{ID: "a", EndpointID: "e"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutChunks(ctx, []ports.Chunk{{ID: "a", FilePath: "f", StartLine: 1, EndLine: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetNote(ctx, "a", bounded.Window{}); err != nil {
		t.Errorf("GetNote after PutNote on a zero store: %v", err)
	}
}

// loadKnowledge loads the knowledge fixture:
//
//	name                    type        updated  tags       observations
//	Alice                   person      2        eng, team  works on auth; likes Go
//	Alicia                  person      1        -          -
//	Bob                     person      2        team       writes docs
//	Authentication Service  service     3        eng        -
//	Carol                   Auth-Admin  1        -          -
func loadKnowledge(t *testing.T, s *memrepo.Store) {
	t.Helper()
	for _, e := range []ports.Entity{
		{Name: "Alice", Type: "person", Observations: []string{"works on auth", "likes Go"}, Tags: []string{"team", "eng"}, UpdatedAt: at(2)},
		{Name: "Alicia", Type: "person", UpdatedAt: at(1)},
		{Name: "Bob", Type: "person", Observations: []string{"writes docs"}, Tags: []string{"team"}, UpdatedAt: at(2)},
		{Name: "Authentication Service", Type: "service", Tags: []string{"eng"}, UpdatedAt: at(3)},
		{Name: "Carol", Type: "Auth-Admin", UpdatedAt: at(1)},
	} {
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatalf("PutEntity(%q): %v", e.Name, err)
		}
	}
}

func TestSearchNodes(t *testing.T) {
	s := memrepo.New()
	loadKnowledge(t, s)
	search := func(q ports.NodeQuery) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return nodeKeys(s.SearchNodes(ctx, q, p))
		}
	}
	exact := func(tags []string, qs ...string) lister { return search(ports.NodeQuery{Queries: qs, Tags: tags}) }
	fuzzy := func(threshold float64, qs ...string) lister {
		return search(ports.NodeQuery{Queries: qs, Mode: ports.Fuzzy, Threshold: threshold})
	}
	// Trigrams: alice has 6, alicia 7, sharing 4 ("  a", " al", "ali",
	// "lic"): similarity 4/9. "Authentication Service" shares 3 of 26
	// ("  a", "ice", "ce "), under the default 0.3; the others fewer.
	alicia := float64(float32(4) / float32(9))
	checkList(t, s, []listCase{
		{"exact: name, observation or type; updated desc", exact(nil, "auth"), []string{"Authentication Service", "Alice", "Carol"}},
		{"exact: ties by name", exact(nil, "PERSON"), []string{"Alice", "Bob", "Alicia"}},
		{"exact: several queries, each entity once", exact(nil, "docs", "likes", "LIKES", "person"), []string{"Alice", "Bob", "Alicia"}},
		{"exact: tag filter", exact([]string{"eng"}, "auth"), []string{"Authentication Service", "Alice"}},
		{"exact: every tag", exact([]string{"team", "eng"}, "a"), []string{"Alice"}},
		{"exact: unknown tag", exact([]string{"nope"}, "a"), nil},
		{"exact: no match", exact(nil, "zebra"), nil},
		{"fuzzy: default threshold", fuzzy(0, "alice"), []string{"Alice", "Alicia"}},
		{"fuzzy: ties by name", fuzzy(0, "bob", "alice"), []string{"Alice", "Bob", "Alicia"}},
		{"fuzzy: threshold 0.5", fuzzy(0.5, "alice"), []string{"Alice"}},
		{"fuzzy: threshold equal to the score", fuzzy(alicia, "alice"), []string{"Alice", "Alicia"}},
		{"fuzzy: threshold just above the score", fuzzy(alicia+1e-9, "alice"), []string{"Alice"}},
		{"fuzzy: no trigrams", fuzzy(0, "!!"), nil},
	})

	pg, err := s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alice", "alicia"}, Mode: ports.Fuzzy}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.NodeMatch{
		{Entity: ports.Entity{Name: "Alice", Type: "person", Observations: []string{"works on auth", "likes Go"}, Tags: []string{"eng", "team"}, UpdatedAt: at(2)}, Score: 1},
		{Entity: ports.Entity{Name: "Alicia", Type: "person", UpdatedAt: at(1)}, Score: 1},
	}
	if diff := cmp.Diff(want, pg.Items, ignoreCursors); diff != "" {
		t.Errorf("fuzzy best score over queries (-want +got):\n%s", diff)
	}
	pg, err = s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alice"}, Mode: ports.Fuzzy}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 2 || pg.Items[0].Score != 1 || pg.Items[1].Score != alicia {
		t.Errorf("fuzzy scores: got %+v, want Alice 1 and Alicia %v", pg.Items, alicia)
	}
	pg, err = s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"bob"}}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 1 || pg.Items[0].Score != 1 {
		t.Errorf("exact score: got %+v, want Bob with score 1", pg.Items)
	}

	// Putting an entity again replaces it.
	if err := s.PutEntity(ctx, ports.Entity{Name: "Bob", Type: "robot", UpdatedAt: at(0)}); err != nil {
		t.Fatal(err)
	}
	checkList(t, s, []listCase{
		{"after replacing Bob", exact(nil, "PERSON"), []string{"Alice", "Alicia"}},
		{"Bob replaced", exact(nil, "robot"), []string{"Bob"}},
	})

	checkErrors(t, s, []errCase{
		{"no queries", func(s *memrepo.Store) error { return ignore(s.SearchNodes(ctx, ports.NodeQuery{}, bounded.Page{})) }, ports.ErrInvalidQuery},
		{"too many queries", func(s *memrepo.Store) error {
			qs := make([]string, ports.MaxQueries+1)
			for i := range qs {
				qs[i] = "q"
			}
			return ignore(s.SearchNodes(ctx, ports.NodeQuery{Queries: qs}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"blank query", func(s *memrepo.Store) error {
			return ignore(s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"a", " "}}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"threshold over 1", func(s *memrepo.Store) error {
			return ignore(s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"a"}, Mode: ports.Fuzzy, Threshold: 1.5}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"unknown mode", func(s *memrepo.Store) error {
			return ignore(s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"a"}, Mode: 7}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
	})
}

// loadHistory records the history fixture: endpoint ep1 has r1 (started at
// 1), r2 and r3 (both at 3), r4 (at 2); ep2 has r5. r2's body is 1,500
// runes long.
func loadHistory(t *testing.T, s *memrepo.Store) {
	t.Helper()
	for _, r := range []ports.Run{
		{ID: "r1", EndpointID: "ep1", StartedAt: at(1), FinishedAt: at(1), Status: "ok", StatusCode: 200, Body: "{}"},
		{ID: "r2", EndpointID: "ep1", StartedAt: at(3), FinishedAt: at(4), Status: "ok", StatusCode: 200, Body: strings.Repeat("é", 1500)},
		{ID: "r3", EndpointID: "ep1", StartedAt: at(3), Status: "error", StatusCode: 500},
		{ID: "r4", EndpointID: "ep1", StartedAt: at(2)},
		{ID: "r5", EndpointID: "ep2", StartedAt: at(9)},
	} {
		if err := s.RecordRun(ctx, r); err != nil {
			t.Fatalf("RecordRun(%q): %v", r.ID, err)
		}
	}
}

func TestResponseHistory(t *testing.T) {
	s := memrepo.New()
	loadHistory(t, s)
	hist := func(ep string) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return runKeys(s.ResponseHistory(ctx, ep, bounded.Page{Limit: 10, Offset: p.Offset}))
		}
	}
	checkList(t, s, []listCase{
		{"newest first, ties by id desc", hist("ep1"), []string{"r3", "r2", "r4", "r1"}},
		{"other endpoint", hist("ep2"), []string{"r5"}},
		{"unknown endpoint", hist("nope"), nil},
	})

	pg, err := s.ResponseHistory(ctx, "ep1", bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("é", 1500)
	clipped, _ := bounded.Clip(body, ports.HistoryBodyChars)
	want := bounded.Paged[ports.RunView]{
		Items: []ports.RunView{
			{ID: "r3", EndpointID: "ep1", StartedAt: at(3), Status: "error", StatusCode: 500},
			{
				ID: "r2", EndpointID: "ep1", StartedAt: at(3), FinishedAt: at(4), Status: "ok", StatusCode: 200,
				Body: clipped, BodyChars: 1500, BodyTruncated: true,
			},
		},
		Page: bounded.PageInfo{Total: 4, Limit: 2, Returned: 2, HasMore: true, NextOffset: 2},
	}
	if diff := cmp.Diff(want, pg, ignoreCursors); diff != "" {
		t.Errorf("ResponseHistory(ep1) default page (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(pg.Items[1].Body, "chars]") {
		t.Errorf("clipped body %q has no visible marker", pg.Items[1].Body[len(pg.Items[1].Body)-30:])
	}

	pg, err = s.ResponseHistory(ctx, "ep1", bounded.Page{Limit: 50, Offset: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, info, _ := runKeys(pg, nil)
	if diff := cmp.Diff([]string{"r1"}, got, ignoreCursors); diff != "" {
		t.Errorf("clamped page (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(bounded.PageInfo{Total: 4, Limit: 10, Offset: 3, Returned: 1, Clamped: true, RequestedLimit: 50}, info, ignoreCursors); diff != "" {
		t.Errorf("clamped page info (-want +got):\n%s", diff)
	}
	if pg.Items[0].Body != "{}" || pg.Items[0].BodyChars != 2 || pg.Items[0].BodyTruncated {
		t.Errorf("short body: got %+v, want it whole", pg.Items[0])
	}

	// Recording a run twice leaves one copy.
	if err := s.RecordRun(ctx, ports.Run{ID: "r1", EndpointID: "ep1", StartedAt: at(10)}); err != nil {
		t.Fatal(err)
	}
	got, _, err = runKeys(s.ResponseHistory(ctx, "ep1", bounded.Page{Limit: 10}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"r1", "r3", "r2", "r4"}, got, ignoreCursors); diff != "" {
		t.Errorf("after re-recording r1 (-want +got):\n%s", diff)
	}

	checkErrors(t, s, []errCase{
		{"empty endpoint", func(s *memrepo.Store) error { return ignore(s.ResponseHistory(ctx, "", bounded.Page{})) }, ports.ErrInvalidQuery},
		{"invalid UTF-8 endpoint", func(s *memrepo.Store) error { return ignore(s.ResponseHistory(ctx, "\xff", bounded.Page{})) }, ports.ErrInvalidQuery},
	})
}

// loadCode loads the code fixture. For the query "parseToken verify"
// (terms parsetoken, verify) k1 scores 1 and every other chunk 0.5.
func loadCode(t *testing.T, s *memrepo.Store) {
	t.Helper()
	err := s.PutChunks(ctx, []ports.Chunk{
		{ID: "k1", FilePath: "pkg/auth/login.go", Language: "go", StartLine: 10, EndLine: 12, Content: "func parseToken(tok string) error { return verify(tok) }"},
		{ID: "k2", FilePath: "pkg/auth/login.go", Language: "go", StartLine: 1, EndLine: 5, Content: "package auth // parseToken helpers"},
		{ID: "k3", FilePath: "pkg/db/query.go", Language: "go", StartLine: 1, EndLine: 1, Content: "func verify(tok string) bool"},
		{ID: "k4", FilePath: "web/app.ts", Language: "ts", StartLine: 3, EndLine: 3, Content: "parseToken(x)"},
		{ID: "k0", FilePath: "web/app.ts", Language: "ts", StartLine: 3, EndLine: 4, Content: "PARSETOKEN again", ContextBefore: "// before"},
		{ID: "k5", FilePath: "README.md", StartLine: 1, EndLine: 1, Content: "nothing here"},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSearchCode(t *testing.T) {
	s := memrepo.New()
	loadCode(t, s)
	search := func(q ports.CodeQuery) lister {
		return func(s *memrepo.Store, p bounded.Page) ([]string, bounded.PageInfo, error) {
			return codeKeys(s.SearchCode(ctx, q, p))
		}
	}
	checkList(t, s, []listCase{
		{"score, path, start line, id", search(ports.CodeQuery{Query: "parseToken verify"}), []string{"k1", "k2", "k3", "k0", "k4"}},
		{"path prefix", search(ports.CodeQuery{Query: "parseToken verify", PathPrefix: "pkg/"}), []string{"k1", "k2", "k3"}},
		{"path prefix is literal", search(ports.CodeQuery{Query: "parseToken", PathPrefix: "pkg/%"}), nil},
		{"language", search(ports.CodeQuery{Query: "parseToken verify", Language: "ts"}), []string{"k0", "k4"}},
		{"language is exact", search(ports.CodeQuery{Query: "parseToken", Language: "TS"}), nil},
		{"one-rune terms are ignored", search(ports.CodeQuery{Query: "x tok"}), []string{"k1", "k3"}},
		{"no match", search(ports.CodeQuery{Query: "zebra"}), nil},
	})

	pg, err := s.SearchCode(ctx, ports.CodeQuery{Query: "PARSETOKEN", Language: "ts"}, bounded.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := bounded.Paged[ports.CodeMatch]{
		Items: []ports.CodeMatch{{
			Chunk: ports.Chunk{ID: "k0", FilePath: "web/app.ts", Language: "ts", StartLine: 3, EndLine: 4, Content: "PARSETOKEN again", ContextBefore: "// before"},
			Score: 1,
		}},
		Page: bounded.PageInfo{Total: 2, Limit: 1, Returned: 1, HasMore: true, NextOffset: 1},
	}
	if diff := cmp.Diff(want, pg, ignoreCursors); diff != "" {
		t.Errorf("SearchCode page (-want +got):\n%s", diff)
	}
	pg, err = s.SearchCode(ctx, ports.CodeQuery{Query: "parseToken verify"}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pg.Items {
		if want := map[bool]float64{true: 1, false: 0.5}[m.ID == "k1"]; m.Score != want {
			t.Errorf("score of %s: got %v, want %v", m.ID, m.Score, want)
		}
	}

	// One invalid chunk: nothing written, not even the valid ones.
	err = s.PutChunks(ctx, []ports.Chunk{
		{ID: "k9", FilePath: "new.go", StartLine: 1, EndLine: 1, Content: "zebra"},
		{ID: "k10", FilePath: "", StartLine: 1, EndLine: 1},
	})
	if !errors.Is(err, ports.ErrInvalidItem) {
		t.Errorf("PutChunks with an invalid chunk: got %v, want ErrInvalidItem", err)
	}
	checkList(t, s, []listCase{
		{"nothing written", search(ports.CodeQuery{Query: "zebra"}), nil},
	})
	// Replacing by id, the later of two duplicates winning.
	err = s.PutChunks(ctx, []ports.Chunk{
		{ID: "k5", FilePath: "README.md", StartLine: 1, EndLine: 1, Content: "zebra one"},
		{ID: "k5", FilePath: "README.md", StartLine: 1, EndLine: 1, Content: "zebra two"},
	})
	if err != nil {
		t.Fatal(err)
	}
	pg, err = s.SearchCode(ctx, ports.CodeQuery{Query: "zebra"}, bounded.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 1 || pg.Items[0].Content != "zebra two" {
		t.Errorf("after replacing k5: got %+v, want one chunk with content \"zebra two\"", pg.Items)
	}

	checkErrors(t, s, []errCase{
		{"empty query", func(s *memrepo.Store) error { return ignore(s.SearchCode(ctx, ports.CodeQuery{}, bounded.Page{})) }, ports.ErrInvalidQuery},
		{"no terms", func(s *memrepo.Store) error {
			return ignore(s.SearchCode(ctx, ports.CodeQuery{Query: "a ! b"}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
		{"blank prefix", func(s *memrepo.Store) error {
			return ignore(s.SearchCode(ctx, ports.CodeQuery{Query: "abc", PathPrefix: " "}, bounded.Page{}))
		}, ports.ErrInvalidQuery},
	})
}
