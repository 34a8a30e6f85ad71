package tools

import (
	"context"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

func (s *Set) addKnowledge() {
	kn := s.cfg.Knowledge
	s.add(spec{name: "search_knowledge", paged: true, paging: bounded.ByPage, limits: ports.SearchNodesLimits,
		desc: "Search the knowledge graph's entities for one or more queries, each entity once. exact: name, type or an observation contains a query (case-insensitive), newest first; fuzzy: name similar to a query (trigram similarity at least threshold), most similar first.",
		params: []param{
			strParam("query", "Text to search for."),
			listParam("queries", fmt.Sprintf("Several texts to search for at once, instead of query (at most %d).", ports.MaxQueries), ports.MaxQueries),
			{name: "mode", kind: kindString, enum: []string{"exact", "fuzzy"}, def: "exact"},
			listParam("tags", "Only entities with every one of these tags.", ports.MaxQueries),
			{name: "threshold", kind: kindNumber, fmin: 0, fmax: 1, def: ports.DefaultThreshold, sentinel: ports.ErrInvalidQuery,
				desc: fmt.Sprintf("Least similarity for fuzzy mode, in (0, 1]: default %v.", ports.DefaultThreshold)},
		},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		q := ports.NodeQuery{Queries: r.in.Strs("queries"), Tags: r.in.Strs("tags"), Threshold: r.in.Num("threshold")}
		if r.in.Has("query") {
			if len(q.Queries) > 0 {
				return nil, &ArgumentError{Tool: "search_knowledge", Argument: "queries", Reason: "give query or queries, not both", Kind: ports.ErrInvalidQuery}
			}
			q.Queries = []string{r.in.Str("query")}
		}
		if r.in.Str("mode") == "fuzzy" {
			q.Mode = ports.Fuzzy
		}
		page, err := kn.SearchNodes(ctx, q, r.page)
		if err != nil {
			return nil, err
		}
		n := len(page.Items)
		out := mapPage(page, func(i int, m ports.NodeMatch) EntityItem { return s.entityItem(r, m, n, i) })
		return fit(r, out, func(e EntityItem) float64 { return e.Score }, nil)
	})
}

// entityItem is the view of the i-th of n entities: its observations kept
// in order within the access mode's content limit for the item and the
// budget's room, the one crossing the limit clipped and the rest left out.
func (s *Set) entityItem(r *request, m ports.NodeMatch, n, i int) EntityItem {
	it := EntityItem{Name: m.Name, Type: m.Type, Score: m.Score}
	if !r.detailed {
		return it
	}
	it.Tags = m.Tags
	it.UpdatedAt = timePtr(m.UpdatedAt)
	limit := s.policy.ContentChars(n, i)
	if limit < 0 {
		if len(m.Observations) > 0 {
			it.Withheld = []string{"observations"}
			it.ObservationsTotal = len(m.Observations)
		}
		return it
	}
	rm, left := r.room(), limit
	cut := false
	for _, o := range m.Observations {
		if rm.chars < 64 || rm.tokens < 24 || limit > 0 && left < 32 {
			cut = true
			break
		}
		text, info := r.clipText(o, max(left, 0), rm)
		it.Observations = append(it.Observations, text)
		rm = rm.less(r, string(mustJSON(text)))
		left -= info.ReturnedChars
		if info.Clipped {
			cut = true
			break
		}
	}
	if cut {
		it.ObservationsTotal = len(m.Observations)
	}
	return it
}

func (s *Set) addHistory() {
	h := s.cfg.History
	s.add(spec{name: "get_response_history", paged: true, paging: bounded.ByOffset, limits: ports.ResponseHistoryLimits,
		desc:   fmt.Sprintf("Read the recorded runs of an endpoint and their responses, newest first. Bodies are clipped to %s characters; bodyChars is the whole length.", bounded.FormatCount(ports.HistoryBodyChars)),
		params: []param{{name: "endpointId", kind: kindString, required: true, sentinel: ports.ErrInvalidQuery}},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		page, err := h.ResponseHistory(ctx, r.in.Str("endpointId"), r.page)
		if err != nil {
			return nil, err
		}
		n := len(page.Items)
		return fit(r, mapPage(page, func(i int, v ports.RunView) RunItem { return s.runItem(r, v, n, i) }), nil, nil)
	})
}

// runItem is the view of the i-th of n runs.
func (s *Set) runItem(r *request, v ports.RunView, n, i int) RunItem {
	it := RunItem{ID: v.ID, StartedAt: v.StartedAt, Status: v.Status, StatusCode: v.StatusCode, BodyChars: v.BodyChars, BodyTruncated: v.BodyTruncated}
	if r.detailed {
		it.EndpointID = v.EndpointID
		it.FinishedAt = timePtr(v.FinishedAt)
	}
	limit := s.policy.ContentChars(n, i)
	if limit < 0 {
		it.Withheld = []string{"body"}
		return it
	}
	body, info := r.clipText(v.Body, limit, r.room())
	it.Body = &body
	it.BodyTruncated = it.BodyTruncated || info.Clipped
	return it
}

func (s *Set) addCode() {
	code := s.cfg.Code
	s.add(spec{name: "search_code", paged: true, limits: ports.SearchCodeLimits,
		desc: "Search the indexed source code: chunks of lines scored by the share of the query's words they contain, most similar first (ties by path and line), with context lines.",
		params: []param{
			{name: "query", kind: kindString, required: true, sentinel: ports.ErrInvalidQuery, desc: "Words to find."},
			strParam("pathPrefix", "Only files whose path starts with this, e.g. \"adapters/\"."),
			strParam("language", "Only chunks of this language, e.g. \"go\"."),
		},
	}, func(ctx context.Context, r *request) ([]byte, error) {
		q := ports.CodeQuery{Query: r.in.Str("query"), PathPrefix: r.in.Str("pathPrefix"), Language: r.in.Str("language")}
		page, err := code.SearchCode(ctx, q, r.page)
		if err != nil {
			return nil, err
		}
		n := len(page.Items)
		out := mapPage(page, func(i int, m ports.CodeMatch) CodeItem { return s.codeItem(r, m, n, i) })
		return fit(r, out, func(c CodeItem) float64 { return c.Score }, nil)
	})
}

// codeItem is the view of the i-th of n chunks: content clipped by the
// access mode and the budget's room, context (detailed) within what room
// is left.
func (s *Set) codeItem(r *request, m ports.CodeMatch, n, i int) CodeItem {
	it := CodeItem{FilePath: m.FilePath, StartLine: m.StartLine, EndLine: m.EndLine, Score: m.Score}
	if r.detailed {
		it.ID, it.Language = m.ID, m.Language
	}
	limit := s.policy.ContentChars(n, i)
	if limit < 0 {
		it.Withheld = []string{"content"}
		if r.detailed && m.ContextBefore+m.ContextAfter != "" {
			it.Withheld = append(it.Withheld, "context")
		}
		return it
	}
	rm := r.room()
	content, info := r.clipText(m.Content, limit, rm)
	it.Content = &content
	if info.Clipped {
		it.ContentClip = &info
	}
	if !r.detailed {
		return it
	}
	if left := rm.less(r, string(mustJSON(content))).half(); left.chars >= 64 && left.tokens >= 24 {
		it.ContextBefore, _ = r.clipText(m.ContextBefore, limit, left)
		it.ContextAfter, _ = r.clipText(m.ContextAfter, limit, left)
	}
	return it
}
