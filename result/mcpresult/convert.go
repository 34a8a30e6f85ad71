package mcpresult

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/result"
)

// fromMCP returns res as a result.Result. Structured content that is not
// already JSON is encoded once; the result passed on holds that JSON.
func fromMCP(res *mcp.CallToolResult) (result.Result, error) {
	r := result.Result{IsError: res.IsError}
	switch v := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		r.Structured = v
	case []byte:
		r.Structured = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return r, fmt.Errorf("mcpresult: structured content: %w", err)
		}
		r.Structured = b
		res.StructuredContent = json.RawMessage(b)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			r.Content = append(r.Content, result.Block{Type: result.TypeText, Text: c.Text})
		case *mcp.ImageContent:
			r.Content = append(r.Content, result.Block{Type: result.TypeImage, MIMEType: c.MIMEType, Data: orEmpty(c.Data)})
		case *mcp.AudioContent:
			r.Content = append(r.Content, result.Block{Type: result.TypeAudio, MIMEType: c.MIMEType, Data: orEmpty(c.Data)})
		case *mcp.ResourceLink:
			b := result.Block{Type: result.TypeResourceLink, URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType}
			if c.Size != nil {
				b.Size = *c.Size
			}
			r.Content = append(r.Content, b)
		case *mcp.EmbeddedResource:
			b := result.Block{Type: result.TypeResource}
			if rc := c.Resource; rc != nil {
				b.URI, b.MIMEType, b.Text = rc.URI, rc.MIMEType, rc.Text
				if rc.Blob != nil {
					b.Data = rc.Blob
				}
			}
			r.Content = append(r.Content, b)
		default:
			return r, fmt.Errorf("mcpresult: content of type %T", c)
		}
	}
	return r, nil
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// toMCP returns the bounded result out of res, with res's _meta and the
// report under MetaReport.
func toMCP(res *mcp.CallToolResult, out result.Bounded) *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: out.Result.IsError, Meta: maps.Clone(res.Meta)}
	if out.Result.Structured != nil {
		r.StructuredContent = json.RawMessage(out.Result.Structured)
	}
	r.Content = make([]mcp.Content, 0, len(out.Result.Content))
	for i, b := range out.Result.Content {
		var orig mcp.Content
		if i < len(res.Content) {
			orig = res.Content[i]
		}
		r.Content = append(r.Content, block(b, orig))
	}
	if out.Report != nil {
		if r.Meta == nil {
			r.Meta = mcp.Meta{}
		}
		r.Meta[MetaReport] = out.Report
	}
	return r
}

// block returns b as SDK content, with the annotations and _meta of the
// block it came from when it is of the same type.
func block(b result.Block, orig mcp.Content) mcp.Content {
	switch b.Type {
	case result.TypeText:
		c := &mcp.TextContent{Text: b.Text}
		if o, ok := orig.(*mcp.TextContent); ok {
			c.Meta, c.Annotations = o.Meta, o.Annotations
		}
		return c
	case result.TypeImage:
		if o, ok := orig.(*mcp.ImageContent); ok {
			return o
		}
		return &mcp.ImageContent{MIMEType: b.MIMEType, Data: b.Data}
	case result.TypeAudio:
		if o, ok := orig.(*mcp.AudioContent); ok {
			return o
		}
		return &mcp.AudioContent{MIMEType: b.MIMEType, Data: b.Data}
	case result.TypeResourceLink:
		c := &mcp.ResourceLink{URI: b.URI, Name: b.Name, Title: b.Title, Description: b.Description, MIMEType: b.MIMEType}
		if b.Size > 0 {
			size := b.Size
			c.Size = &size
		}
		return c
	}
	c := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text, Blob: b.Data}}
	if o, ok := orig.(*mcp.EmbeddedResource); ok {
		c.Meta, c.Annotations = o.Meta, o.Annotations
	}
	return c
}
