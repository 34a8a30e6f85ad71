package vault_test

import (
	"context"
	"fmt"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
)

// linkFiles are the files the links of linkCases point at: notes named
// alike at the root, under en/ and under ko/, attachments, a folder's
// index note.
var linkFiles = map[string]string{
	"Some Note.md":             "# root\n",
	"en/Some Note.md":          "# en\n## Heading\nA paragraph ^abc123\n",
	"en/guides/Deep Dive.md":   "# deep\n",
	"ko/Some Note.md":          "# ko\n",
	"ko/topics/Only Ko.md":     "# only ko\n",
	"fr/x/Some Note.md":        "# fr\n",
	"projects/index.md":        "# Projects\n",
	"projects/Plan.md":         "# Plan\n",
	"My Note.md":               "# spaces\n",
	"en/diagram.svg":           "<svg/>",
	"ko/diagram.svg":           "<svg/>",
	"assets/shot.png":          "\x89PNG",
	"en/media/clip.mp4":        "mp4",
	"reports/2026 Q1.pdf":      "%PDF",
	"reports/notes about.docx": "docx",
}

// linkCases are one link each, written in the note at from; want is what
// is stored for it: nothing for a link to an existing attachment.
var linkCases = []struct {
	name, from, link string
	want             []ports.Link
}{
	{"same folder first", "en/a.md", "[[Some Note]]", []ports.Link{{Target: "en/Some Note"}}},
	{"same folder first, other language", "ko/a.md", "[[Some Note]]", []ports.Link{{Target: "ko/Some Note"}}},
	{"nearest: one step up", "en/guides/a.md", "[[Some Note]]", []ports.Link{{Target: "en/Some Note"}}},
	{"nearest from below", "ko/topics/deep/a.md", "[[Some Note]]", []ports.Link{{Target: "ko/Some Note"}}},
	{"nearest: a tie goes to the deeper shared folder", "fr/a.md", "[[Some Note]]", []ports.Link{{Target: "fr/x/Some Note"}}},
	{"root from the root", "a.md", "[[Some Note]]", []ports.Link{{Target: "Some Note"}}},
	{"nearest from a folder without one", "de/a.md", "[[Some Note]]", []ports.Link{{Target: "Some Note"}}},
	{"case-insensitive", "en/a.md", "[[some NOTE]]", []ports.Link{{Target: "en/Some Note"}}},
	{"heading", "en/a.md", "[[Some Note#Heading]]", []ports.Link{{Target: "en/Some Note", Text: "Some Note#Heading"}}},
	{"block", "en/a.md", "[[Some Note#^abc123]]", []ports.Link{{Target: "en/Some Note", Text: "Some Note#^abc123"}}},
	{"alias", "en/a.md", "[[Some Note|the note]]", []ports.Link{{Target: "en/Some Note", Text: "the note"}}},
	{"heading and alias", "en/a.md", "[[Some Note#Heading|there]]", []ports.Link{{Target: "en/Some Note", Text: "there"}}},
	{"alias in a table", "en/a.md", `| [[Some Note\|cell]] |`, []ports.Link{{Target: "en/Some Note", Text: "cell"}}},
	{".md written out", "en/a.md", "[[Some Note.md]]", []ports.Link{{Target: "en/Some Note"}}},
	{"vault path beats nearest", "en/a.md", "[[ko/Some Note]]", []ports.Link{{Target: "ko/Some Note"}}},
	{"path suffix", "en/a.md", "[[topics/Only Ko]]", []ports.Link{{Target: "ko/topics/Only Ko"}}},
	{"relative path", "ko/topics/a.md", "[[../Some Note]]", []ports.Link{{Target: "ko/Some Note"}}},
	{"relative path to nothing", "ko/topics/a.md", "[[./Some Note]]", []ports.Link{{Target: "ko/topics/Some Note"}}},
	{"folder index note", "en/a.md", "[[projects]]", []ports.Link{{Target: "projects"}}},
	{"folder index note by path", "en/a.md", "[[projects/index]]", []ports.Link{{Target: "projects"}}},
	{"note embed", "en/a.md", "![[Some Note]]", []ports.Link{{Target: "en/Some Note"}}},
	{"missing note", "en/a.md", "[[Nowhere]]", []ports.Link{{Target: "Nowhere"}}},
	{"markdown, relative", "en/a.md", "[it](Some%20Note.md)", []ports.Link{{Target: "en/Some Note", Text: "it"}}},
	{"markdown, up and across", "en/a.md", "[it](../ko/Some%20Note.md#Heading)", []ports.Link{{Target: "ko/Some Note", Text: "it"}}},
	{"markdown, angle brackets", "en/a.md", "[it](<Some Note.md>)", []ports.Link{{Target: "en/Some Note", Text: "it"}}},
	{"markdown, by name", "en/guides/a.md", "[it](Some%20Note.md)", []ports.Link{{Target: "en/Some Note", Text: "it"}}},
	{"markdown, URL-encoded", "a.md", "[it](My%20Note.md)", []ports.Link{{Target: "My Note", Text: "it"}}},
	{"markdown, no extension", "a.md", "[it](My%20Note)", []ports.Link{{Target: "My Note", Text: "it"}}},
	{"markdown, missing", "en/a.md", "[it](gone/Away.md)", []ports.Link{{Target: "en/gone/Away", Text: "it"}}},
	{"markdown, external", "en/a.md", "[Go](https://go.dev/doc/)", []ports.Link{{Target: "https://go.dev/doc/", External: true, Text: "Go"}}},
	{"markdown, anchor only", "en/a.md", "[up](#top)", nil},
	{"markdown, other scheme", "en/a.md", "[mail](mailto:a@example.com)", nil},
	{"image embed, nearest", "en/a.md", "![[diagram.svg]]", nil},
	{"image embed with a size", "en/a.md", "![[shot.png|300]]", nil},
	{"video embed", "ko/a.md", "![[clip.mp4]]", nil},
	{"attachment link", "a.md", "[[2026 Q1.pdf]]", nil},
	{"attachment by path", "a.md", "![[assets/shot.png]]", nil},
	{"markdown image", "en/a.md", "![a shot](../assets/shot.png)", nil},
	{"markdown file, URL-encoded", "reports/a.md", "[doc](notes%20about.docx)", nil},
	{"missing image", "en/a.md", "![[missing.png]]", []ports.Link{{Target: "missing.png"}}},
	{"missing image with a size", "en/a.md", "![[missing.png|200x100]]", []ports.Link{{Target: "missing.png"}}},
	{"missing pdf link", "en/a.md", "[[report.pdf|the report]]", []ports.Link{{Target: "report.pdf", Text: "the report"}}},
	{"missing markdown image", "en/a.md", "![x](img/none.png)", []ports.Link{{Target: "en/img/none.png", Text: "x"}}},
	{"external image", "en/a.md", "![x](https://example.com/i.png)", nil},
}

// Embeds and missing attachments among linkCases, and links stored.
const (
	linkCaseEmbeds  = 7
	linkCaseMissing = 4
)

// linkVault is linkFiles with the note of one case.
func linkVault(from, link string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, s := range linkFiles {
		fsys[p] = file(s)
	}
	fsys[from] = file("Link: " + link + "\n")
	return fsys
}

// TestLinks resolves each case in a vault of its own with Load.
func TestLinks(t *testing.T) {
	for _, c := range linkCases {
		t.Run(c.name, func(t *testing.T) {
			notes, failed, err := vault.Load(linkVault(c.from, c.link))
			if err != nil || len(failed) > 0 {
				t.Fatalf("Load: %v, %v", failed, err)
			}
			i := slices.IndexFunc(notes, func(f vault.File) bool { return f.Path == c.from })
			if i < 0 {
				t.Fatalf("no note %s", c.from)
			}
			if diff := cmp.Diff(c.want, notes[i].Links); diff != "" {
				t.Errorf("%s in %s: links (-want +got):\n%s", c.link, c.from, diff)
			}
		})
	}
}

// TestImporterLinks imports every case at once, each in a note of its
// own, and checks the stored links, the summary's counts and the store's
// broken links.
func TestImporterLinks(t *testing.T) {
	fsys := fstest.MapFS{}
	for p, s := range linkFiles {
		fsys[p] = file(s)
	}
	for i, c := range linkCases {
		fsys[caseID(c.from, i)+".md"] = file("Link: " + c.link + "\n")
	}
	forEngines(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		db := e.open(t)
		sum, err := e.importer(db, 7).Import(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		store, err := e.store(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		wantBroken := 0
		for i, c := range linkCases {
			id := caseID(c.from, i)
			got := noteLinks(t, store, id)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: %s in %s: links (-want +got):\n%s", c.name, c.link, id, diff)
			}
			for _, l := range c.want {
				if !l.External && !exists(t, store, l.Target) {
					wantBroken++
				}
			}
		}
		if sum.Embeds != linkCaseEmbeds || sum.Missing != linkCaseMissing || sum.Broken != wantBroken || sum.Attachments != 6 {
			t.Errorf("summary %+v: want %d embeds, %d missing attachments, %d broken links, 6 attachments",
				sum, linkCaseEmbeds, linkCaseMissing, wantBroken)
		}
		if n := brokenLinks(t, store); n != sum.Broken {
			t.Errorf("FindBrokenLinks: %d, summary says %d", n, sum.Broken)
		}
	})
}

// caseID is the ID of the note of case i, in the folder of from.
func caseID(from string, i int) string {
	return path.Join(path.Dir(from), fmt.Sprintf("case%02d", i))
}
