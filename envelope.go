package bounded

// Envelope is the one JSON object a tool returns for a page of results:
//
//	{"results":[...],"pagination":{...},"truncated":false,"truncation":{...},
//	 "hint":"...","next":{...},"contentMetadata":{...}}
//
// Keys are camelCase and appear in this order. Results encodes as [] (never
// null) when empty. Pagination is the page after any budget cut; Truncated
// says whether a budget cut or clipped anything, and Truncation reports the
// budget's usage either way. Hint is the sentence of [Call.Hint] and Next the
// whole argument list of the call that fetches the rest ([Call.Next]); both
// are left out when empty, Next on the last page. NextKeeps names the
// caller's arguments that Next leaves out, too long to repeat in every
// response: the next call passes them again as they were. ContentMetadata describes
// the line window of a document, when there is one.
//
// [Fit] writes an Envelope's bytes directly. Encoding an Envelope with a
// [json.Encoder] after SetEscapeHTML(false) gives the same bytes; json.Marshal
// additionally escapes <, > and & inside strings (as \u003c, \u003e, \u0026),
// which makes the output longer than the budget Fit measured.
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
