package bounded

import "github.com/boundedkit/bounded/internal/jsonenc"

// Envelope is the JSON object a tool returns for a page, keys in field
// order, as [Fit] writes it. Encode it with a [json.Encoder] with
// SetEscapeHTML(false): json.Marshal escapes <, > and &, exceeding the budget.
type Envelope[T any] struct {
	Results []T `json:"results"`
	// Pagination is the page after any cut ([Fitted.Page]).
	Pagination *PageInfo `json:"pagination,omitempty"`
	// Truncated reports that results were cut or clipped.
	Truncated  bool        `json:"truncated"`
	Truncation *Truncation `json:"truncation,omitempty"`
	Hint       string      `json:"hint,omitempty"`
	// Next and NextKeeps are [Fitted.Next] and [Fitted.NextKeeps].
	Next            Args        `json:"next,omitempty"`
	NextKeeps       []string    `json:"nextKeeps,omitempty"`
	ContentMetadata *WindowInfo `json:"contentMetadata,omitempty"`
}

// MarshalJSON encodes e without HTML escaping, nil Results as [].
func (e Envelope[T]) MarshalJSON() ([]byte, error) {
	// plain has Envelope's fields and tags but not this method.
	type plain Envelope[T]
	p := plain(e)
	if p.Results == nil {
		p.Results = []T{}
	}
	return jsonenc.Marshal(p)
}
