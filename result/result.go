package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// Errors of the JSON a result holds, which [Bounder.Bound] refuses when the
// result has no text to bound instead (a text block holding such JSON is
// bounded as text). Each wraps ErrInvalidJSON.
var (
	ErrInvalidJSON  = errors.New("result: invalid JSON")
	ErrTooDeep      = fmt.Errorf("%w: nested deeper than MaxDepth", ErrInvalidJSON)
	ErrDuplicateKey = fmt.Errorf("%w: a key twice in one object", ErrInvalidJSON)
)

// ErrTooLarge is the error of a result over [Options.MaxBytes].
var ErrTooLarge = errors.New("result: result too large to bound")

// MaxDepth is the deepest nesting of JSON bounded as JSON.
const MaxDepth = 10_000

// jsonError wraps an error of jtree.Parse with this package's sentinel.
func jsonError(err error) error {
	switch {
	case errors.Is(err, jtree.ErrDepth):
		return fmt.Errorf("%w: %w", ErrTooDeep, err)
	case errors.Is(err, jtree.ErrDuplicate):
		return fmt.Errorf("%w: %w", ErrDuplicateKey, err)
	case errors.Is(err, jtree.ErrTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrInvalidJSON, err)
}

// Block types.
const (
	TypeText         = "text"
	TypeImage        = "image"
	TypeAudio        = "audio"
	TypeResource     = "resource"
	TypeResourceLink = "resource_link"
)

// Block is one content block of an MCP tool result.
type Block struct {
	// Type is one of the Type constants.
	Type string
	// Text is a text block's text, or an embedded resource's.
	Text string
	// Data is an image's, audio's or embedded resource's bytes.
	Data []byte
	// MIMEType, URI, Name, Title, Description and Size describe a
	// resource, a resource link, an image or audio.
	MIMEType, URI, Name, Title, Description string
	Size                                    int64
}

// Result is a tool result as MCP shapes it: content blocks, and optionally
// a JSON value as structured content. See [JSON] and [Text] for the
// others.
type Result struct {
	Content    []Block
	Structured json.RawMessage
	IsError    bool
}

// JSON returns the result holding the JSON value b as structured content.
func JSON(b []byte) Result { return Result{Structured: b} }

// Text returns the result holding one text block.
func Text(s string) Result { return Result{Content: []Block{{Type: TypeText, Text: s}}} }

// Call is the tool call whose result is bounded.
type Call struct {
	// Tool is the tool's name, Args its arguments as the call gave them.
	Tool string
	Args bounded.Args
	// Principal is the session, or a principal the host names, that may
	// read the snapshot; handles are bound to it.
	Principal string
}

// Cut kinds.
const (
	CutArray  = "array"
	CutObject = "object"
	CutString = "string"
	CutBinary = "binary"
)

// Cut is one part of a result left out.
type Cut struct {
	// Pointer is the JSON Pointer of the value cut, in the snapshot.
	Pointer string `json:"pointer"`
	// Kind is a Cut constant.
	Kind string `json:"kind"`
	// Total counts the value's elements, members, characters or bytes;
	// Kept those shown, from the first.
	Total int `json:"total"`
	Kept  int `json:"kept"`
	// Read is the arguments of the read call that reads the rest; nil
	// when the snapshot was not kept.
	Read bounded.Args `json:"read,omitempty"`
}

// Report says how a result was cut and how to read the rest.
type Report struct {
	// Handle names the snapshot; "" when it was not kept.
	Handle string `json:"handle,omitempty"`
	// Expires is when the handle expires.
	Expires time.Time `json:"expires,omitzero"`
	// Resource is the snapshot's resource URI.
	Resource string `json:"resource,omitempty"`
	// NotKept says why the snapshot was not kept, when it was not.
	NotKept string `json:"notKept,omitempty"`
	// Cuts are in document order.
	Cuts []Cut `json:"cuts"`
	// Next is the arguments of the read call that starts reading all
	// that is not shown, in order; each answer's next goes on.
	Next bounded.Args `json:"next,omitempty"`
	// Note is the text block that says all this to the model.
	Note string `json:"-"`
	// Chars and Tokens are the result's size as the budget counts it.
	Chars  int `json:"chars"`
	Tokens int `json:"tokens"`
}

// Bounded is a result bounded to a budget.
type Bounded struct {
	// Result has the shape of the input: JSON stays JSON of the same
	// structure; when cut, its content ends with the report's note.
	Result Result
	// Report is nil when the result passed whole.
	Report *Report
}
