// Package genvault writes generated Obsidian-style vaults for measuring
// the importer: notes in four language folders (en, ko, ja, de) where
// every note name exists once per language, so that links resolve only
// by the nearest-match rule; folder index notes; wikilinks with headings,
// blocks and aliases; relative Markdown links; embeds of images that
// exist and, in one note of 20, of one that does not; external links.
//
//	stats, err := genvault.Write("/tmp/vault", genvault.Options{Notes: 5000})
//
// The same options write the same vault.
package genvault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options say what to write.
type Options struct {
	// Notes is the number of notes, index notes included.
	Notes int
	// Seed chooses the links and the text.
	Seed uint64
}

// Stats count what Write wrote.
type Stats struct {
	Notes, Attachments, Links int
	// Bytes is the notes' size.
	Bytes int64
}

// Languages are the top folders; a note name exists once in each.
var Languages = []string{"en", "ko", "ja", "de"}

// perFolder is the number of notes of a folder, its index note included.
const perFolder = 100

var words = map[string][]string{
	"en": strings.Fields("the design of storage service pages every request within budget agent tool note link graph vault index search result"),
	"ko": strings.Fields("설계 저장소 서비스 페이지 요청 예산 에이전트 도구 노트 링크 그래프 검색 결과 색인"),
	"ja": strings.Fields("設計 保存 サービス ページ 要求 予算 エージェント 道具 ノート リンク 検索 結果 索引"),
	"de": strings.Fields("der Entwurf des Speicherdienstes Seiten jede Anfrage innerhalb Budget Werkzeug Notiz Verweis Suche Ergebnis"),
}

// Write writes a vault of o.Notes notes into dir, creating it.
func Write(dir string, o Options) (Stats, error) {
	var st Stats
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	perLang := (o.Notes + len(Languages) - 1) / len(Languages)
	when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range o.Notes {
		lang, k := Languages[i%len(Languages)], i/len(Languages)
		folder := filepath.Join(dir, lang, "topics", fmt.Sprintf("t%03d", k/perFolder))
		name := fmt.Sprintf("Note %d", k)
		if k%perFolder == 0 {
			name = "index"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [%s, t%03d]\nupdated: %s\n---\n# %s %s\n\n", lang, k/perFolder,
			when.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), name, lang)
		link := func() int { return rng.IntN(perLang) }
		for p := range 3 + rng.IntN(4) {
			for range 40 + rng.IntN(60) {
				ws := words[lang]
				b.WriteString(ws[rng.IntN(len(ws))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "[[Note %d]] [[Note %d#Section 2]] [[Note %d|see this]].\n\n## Section %d\n\n", link(), link(), link(), p+1)
			st.Links += 3
		}
		fmt.Fprintf(&b, "Block [[Note %d#^b%d]], up: [next](../t%03d/Note%%20%d.md), web: [site](https://example.com/%s/%d).\n",
			link(), k, (k/perFolder+1)%max(1, (perLang+perFolder-1)/perFolder), (k/perFolder+1)*perFolder%perLang+1, lang, k)
		st.Links += 3
		if k%5 == 1 {
			img := filepath.Join(folder, "attachments", fmt.Sprintf("img-%d.png", k))
			if err := write(img, []byte("\x89PNG generated")); err != nil {
				return st, err
			}
			st.Attachments++
			fmt.Fprintf(&b, "\n![[img-%d.png|300]]\n", k)
			st.Links++
		}
		if k%20 == 3 {
			fmt.Fprintf(&b, "\n![[missing-%d.png]]\n", k)
			st.Links++
		}
		fmt.Fprintf(&b, "\nA paragraph ^b%d\n", k)
		if err := write(filepath.Join(folder, name+".md"), []byte(b.String())); err != nil {
			return st, err
		}
		st.Notes++
		st.Bytes += int64(b.Len())
	}
	return st, nil
}

func write(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
