package bounded

// Envelope is the one JSON object a tool returns for a page of results,
// with its keys in this order; results and truncated are always present,
// the others when set:
//
//	{"results":[...],"pagination":{...},"truncated":false,"truncation":{...},
//	 "hint":"...","next":{...},"nextKeeps":[...],"contentMetadata":{...}}
//
// Results is [] when empty, never null. Pagination is the page after any
// budget cut; Truncated says whether anything was cut or clipped. Next
// holds the arguments of [Call.Next], but for those named in NextKeeps,
// which the next call passes again as they were.
//
// [Fit] writes it as a [json.Encoder] with SetEscapeHTML(false) does;
// json.Marshal also escapes <, > and &, which lengthens it past the budget.
type Envelope[T any] struct {
	Results         []T         `json:"results"`
	Pagination      *PageInfo   `json:"pagination,omitempty"`
	Truncated       bool        `json:"truncated"`
	Truncation      *Truncation `json:"truncation,omitempty"`
	Hint            string      `json:"hint,omitempty"`
	Next            Args        `json:"next,omitempty"`
	NextKeeps       []string    `json:"nextKeeps,omitempty"`
	ContentMetadata *WindowInfo `json:"contentMetadata,omitempty"`
}

// MarshalJSON encodes the envelope as documented on [Envelope], with nil
// Results written as [] and without HTML escaping.
func (e Envelope[T]) MarshalJSON() ([]byte, error) {
	// plain has Envelope's fields and tags but not this method.
	type plain Envelope[T]
	p := plain(e)
	if p.Results == nil {
		p.Results = []T{}
	}
	return marshalNoEscape(p)
}
