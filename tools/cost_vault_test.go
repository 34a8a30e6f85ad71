package tools_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/boundedkit/bounded/ports"
)

// costLanguages are the top folders of costVault, each with its words.
var costLanguages = []struct{ name, words string }{
	{"en", "the design of storage service pages every request within budget agent tool note link graph vault index search result"},
	{"ko", "설계 저장소 서비스 페이지 요청 예산 에이전트 도구 노트 링크 그래프 검색 결과 색인"},
	{"ja", "設計 保存 サービス ページ 要求 予算 エージェント 道具 ノート リンク 検索 結果 索引"},
	{"de", "der Entwurf des Speicherdienstes Seiten jede Anfrage innerhalb Budget Werkzeug Notiz Verweis Suche Ergebnis"},
}

// costVault yields n Markdown notes as an Obsidian vault holds them, in
// four language folders (en, ko, ja, de) of folders of 100 notes
// <lang>/topics/tNNN: front matter with tags, a heading, three to six
// paragraphs of 40 to 100 words with wikilinks, a section heading after
// each, an external link. The first note of a folder is its index, which
// the folder's other notes name as their parent. A note is updated a
// minute after the one before, and the index notes after them all. The
// same n yields the same notes.
func costVault(n int) []ports.Note {
	rng := rand.New(rand.NewPCG(1, 0x9e3779b97f4a7c15))
	const perFolder = 100
	perLang := (n + len(costLanguages) - 1) / len(costLanguages)
	words := make([][]string, len(costLanguages))
	for i, l := range costLanguages {
		words[i] = strings.Fields(l.words)
	}
	notes := make([]ports.Note, 0, n)
	for i := range n {
		li, k := i%len(costLanguages), i/len(costLanguages)
		lang := costLanguages[li].name
		folder := fmt.Sprintf("%s/topics/t%03d", lang, k/perFolder)
		name := fmt.Sprintf("Note %d", k)
		if k%perFolder == 0 {
			name = "index"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [%s, t%03d]\n---\n# %s %s\n\n", lang, k/perFolder, name, lang)
		var links []ports.Link
		link := func() string {
			j := rng.IntN(perLang)
			id := fmt.Sprintf("%s/topics/t%03d/Note %d", lang, j/perFolder, j)
			links = append(links, ports.Link{Target: id})
			return id
		}
		for p := range 3 + rng.IntN(4) {
			for range 40 + rng.IntN(60) {
				b.WriteString(words[li][rng.IntN(len(words[li]))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "[[%s]] [[%s#Section 2]] [[%s|see this]].\n\n## Section %d\n\n", link(), link(), link(), p+1)
		}
		url := fmt.Sprintf("https://example.com/%s/%d", lang, k)
		fmt.Fprintf(&b, "Web: [site](%s).\n", url)
		links = append(links, ports.Link{Target: url, External: true})
		note := ports.Note{
			ID: folder + "/" + name, Title: name + " " + lang, Content: b.String(),
			Tags:      []string{lang, fmt.Sprintf("t%03d", k/perFolder)},
			Links:     links,
			CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Minute),
		}
		if name != "index" {
			note.Parents = []string{folder + "/index"}
		} else {
			note.UpdatedAt = note.UpdatedAt.Add(time.Duration(n) * time.Minute)
		}
		notes = append(notes, note)
	}
	return notes
}
