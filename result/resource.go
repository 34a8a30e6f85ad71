package result

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Resource returns the snapshot a resource URI names, for principal: the
// whole result as one text block (application/json, or text/plain for a
// text), or, for a URI ending /content/<index>, that block's binary data.
// Its errors are Read's.
func (b *Bounder) Resource(ctx context.Context, principal, uri string) (Block, error) {
	rest, ok := strings.CutPrefix(uri, b.o.ResourcePrefix)
	if !ok || rest == "" {
		return Block{}, fmt.Errorf("%w: %q is not a result resource", ErrInvalidRead, uri)
	}
	handle, sub, _ := strings.Cut(rest, "/")
	id, m, err := b.open(ctx, principal, handle)
	if err != nil {
		return Block{}, err
	}
	if sub != "" {
		idx, err := strconv.Atoi(strings.TrimPrefix(sub, "content/"))
		for _, bl := range m.Blobs {
			if err == nil && strings.HasPrefix(sub, "content/") && bl.Index == idx {
				segs, err := b.store.Segments(ctx, id, blobNode(idx), Pos{}, 1)
				if err != nil {
					return Block{}, err
				}
				if len(segs) == 0 {
					return Block{}, errMeta
				}
				return Block{Type: bl.Type, MIMEType: bl.MIMEType, URI: uri, Data: segs[0].Data}, nil
			}
		}
		return Block{}, fmt.Errorf("%w: %q names no binary block of the result", ErrInvalidRead, uri)
	}
	r := &reader{b: b, ctx: ctx, id: id, handle: handle, m: m}
	raw, err := r.whole(&vnode{d: m.Root})
	if err != nil {
		return Block{}, err
	}
	mime := "application/json"
	if m.Shape == shapeText {
		mime = "text/plain"
	}
	return Block{Type: TypeResource, URI: uri, MIMEType: mime, Text: string(raw)}, nil
}
