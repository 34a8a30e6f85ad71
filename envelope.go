package bounded

// Envelope is the one JSON object a tool returns for a page of results:
//
//	{"results":[...],"pagination":{...},"truncated":false,"truncation":{...},
//	 "hint":"...","next":{...},"nextKeeps":[...],"contentMetadata":{...}}
//
// Keys appear in this order. Results is [] (never null) when empty.
// Pagination is the page after any budget cut; Truncated says whether
// anything was cut or clipped, and Truncation reports the budget's usage
// either way. Hint is [Call.Hint]'s sentence and Next the arguments of the
// call that reads the rest ([Call.Next]), left out when empty; NextKeeps
// names the caller's arguments Next leaves out, which the next call passes
// again as they were. ContentMetadata describes a document's line window.
//
// [Fit] writes an Envelope's bytes directly; a [json.Encoder] with
// SetEscapeHTML(false) writes the same bytes. json.Marshal escapes <, > and
// & as well, which makes the output longer than the budget Fit measured.
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
