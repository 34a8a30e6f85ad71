package result

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/jtree"
)

// Defaults of [Options].
const (
	DefaultTTL            = time.Hour
	DefaultReadTool       = "read_result"
	DefaultResourcePrefix = "bounded://result/"
	DefaultMaxBytes       = 512 << 20
	DefaultMaxBinaryBytes = 1 << 20
)

// MinChars and MinTokens are the smallest limits a budget may leave
// ([bounded.Budget.LimitChars], LimitTokens): what a cut result's note and
// a read's answer need.
const (
	MinChars  = 1000
	MinTokens = 350
)

// Options configure a [Bounder]. The zero value of each field is its
// default.
type Options struct {
	// Key signs handles, and Previous holds keys that still verify them
	// (see driver.Codec). Instances that share a store need the same
	// key; nil means a random key of this Bounder alone.
	Key      []byte
	Previous [][]byte
	// TTL is how long a snapshot and its handle live; 0 means
	// DefaultTTL.
	TTL time.Duration
	// ReadTool names the read tool in notes and next calls; "" means
	// DefaultReadTool.
	ReadTool string
	// ResourcePrefix starts a snapshot's resource URI, the handle
	// follows; "" means DefaultResourcePrefix.
	ResourcePrefix string
	// MaxBytes is the largest result bounded, in bytes of text and data;
	// 0 means DefaultMaxBytes. A larger one is ErrTooLarge.
	MaxBytes int
	// MaxBinaryBytes is the largest image, audio or blob passed on
	// whole; 0 means DefaultMaxBinaryBytes. A larger one becomes a
	// resource link.
	MaxBinaryBytes int
	// Now is the clock of handles and snapshots; nil means time.Now.
	Now func() time.Time
}

// Bounder bounds tool results to budgets, keeps their snapshots in a
// store, and reads them back ([Bounder.Read]). It is safe for concurrent
// use.
type Bounder struct {
	store Store
	codec driver.Codec
	o     Options
}

// New returns a Bounder keeping snapshots in store; a nil store keeps
// none, and notes say the rest could not be kept.
func New(store Store, o Options) *Bounder {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.ReadTool == "" {
		o.ReadTool = DefaultReadTool
	}
	if o.ResourcePrefix == "" {
		o.ResourcePrefix = DefaultResourcePrefix
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxBinaryBytes <= 0 {
		o.MaxBinaryBytes = DefaultMaxBinaryBytes
	}
	key := o.Key
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
	}
	c := driver.Codec{Key: key, Previous: o.Previous, TTL: o.TTL, Now: o.Now}
	return &Bounder{store: store, codec: c.Clone(), o: o}
}

// Options returns the bounder's options, defaults applied.
func (b *Bounder) Options() Options { return b.o }

func (b *Bounder) now() time.Time {
	if b.o.Now != nil {
		return b.o.Now()
	}
	return time.Now()
}

// limits returns a budget's limits, or an error wrapping
// bounded.ErrInvalidBudget for one under MinChars or MinTokens.
func limits(budget bounded.Budget) (lc, lt int, err error) {
	if err := budget.Validate(); err != nil {
		return 0, 0, err
	}
	lc, lt = budget.LimitChars(), budget.LimitTokens()
	if lc < MinChars || lt < MinTokens {
		return 0, 0, fmt.Errorf("%w: %d characters and %d tokens, under the minimum %d and %d", bounded.ErrInvalidBudget, lc, lt, MinChars, MinTokens)
	}
	return lc, lt, nil
}

// Bound returns r within budget. A result within it passes whole,
// untouched, and nothing is kept. Otherwise the result keeps its shape:
// JSON stays JSON of the same structure, its longest arrays and objects
// cut after their first elements, its longest strings clipped with a
// visible marker, numbers as written; a text keeps its first lines; an
// image over MaxBinaryBytes becomes a resource link. Its content ends with
// a note naming every cut by JSON Pointer, with counts and the read call
// for the rest, and the whole result is kept in the store for reads.
//
// A result that cannot be kept (over the store's quota, or the store
// failing) is bounded all the same, and its note says so. Errors wrap
// bounded.ErrInvalidBudget, ErrTooLarge, or ErrInvalidJSON for structured
// content without text to bound instead.
func (b *Bounder) Bound(ctx context.Context, budget bounded.Budget, call Call, r Result) (Bounded, error) {
	lc, lt, err := limits(budget)
	if err != nil {
		return Bounded{}, err
	}
	if n := inputBytes(r); n > b.o.MaxBytes {
		return Bounded{}, fmt.Errorf("%w: %d bytes, over the maximum %d", ErrTooLarge, n, b.o.MaxBytes)
	}
	if b.fits(budget, lc, lt, r) {
		return Bounded{Result: r}, nil
	}
	if err := ctx.Err(); err != nil {
		return Bounded{}, err
	}
	d, err := b.newDoc(r)
	if err != nil {
		return Bounded{}, err
	}
	ni := noteInput{tool: call.Tool, ttl: b.o.TTL, dropped: d.dropped, limitChars: lc, limitTokens: lt}
	var id string
	switch {
	case b.store == nil:
		ni.notKept = "no store is configured"
	case d.size() > min(b.store.Quota().PerPrincipal, b.store.Quota().Total):
		ni.notKept = fmt.Sprintf("%s bytes, over the store's quota", bounded.FormatCount(int(d.size())))
	default:
		if id, ni.handle, err = b.newHandle(call); err != nil {
			return Bounded{}, err
		}
		ni.resource = b.o.ResourcePrefix + ni.handle
	}
	pv, err := b.preview(budget, lc, lt, d, ni)
	if err != nil {
		return Bounded{}, err
	}
	if testHookPreview != nil {
		testHookPreview(pv.out)
	}
	if ni.handle != "" && len(pv.cuts) > 0 {
		if err := b.keep(ctx, d, call, id, pv.cuts); err != nil {
			ni.handle, ni.resource = "", ""
			ni.notKept = notKept(err)
			if pv, err = b.preview(budget, lc, lt, d, ni); err != nil {
				return Bounded{}, err
			}
		}
	}
	return b.assemble(d, pv, ni)
}

// testHookPreview, when set by a test, sees each preview's document.
var testHookPreview func([]byte)

// Keep stores r whole as a snapshot, without bounding it, and returns its
// handle: for a tool that cuts its own results and names the reads of
// their rest (read_result with the handle and a pointer). A read of a
// value goes on to the value's end. Errors wrap ErrNotFound without a
// store, ErrQuota over its quota, ErrTooLarge, and ErrInvalidJSON for
// structured content without text.
func (b *Bounder) Keep(ctx context.Context, call Call, r Result) (string, error) {
	if b.store == nil {
		return "", fmt.Errorf("%w: no store keeps snapshots", ErrNotFound)
	}
	if n := inputBytes(r); n > b.o.MaxBytes {
		return "", fmt.Errorf("%w: %d bytes, over the maximum %d", ErrTooLarge, n, b.o.MaxBytes)
	}
	d, err := b.newDoc(r)
	if err != nil {
		return "", err
	}
	id, handle, err := b.newHandle(call)
	if err != nil {
		return "", err
	}
	if err := b.keep(ctx, d, call, id, nil); err != nil {
		return "", err
	}
	return handle, nil
}

// notKept says why a store did not keep a snapshot.
func notKept(err error) string {
	if errors.Is(err, ErrQuota) {
		return "it is over the store's quota"
	}
	s, _ := bounded.Clip("the store failed: "+err.Error(), 160)
	return s
}

// size is the bytes a snapshot of d takes, about.
func (d *doc) size() int64 {
	n := int64(len(d.text))
	if d.tree != nil {
		n = int64(len(d.tree.Src))
	}
	for _, bl := range d.in.Content {
		if isBinary(bl) {
			n += int64(len(bl.Data))
		}
	}
	return n
}

// preview is a document cut to fit, with its note.
type preview struct {
	out           []byte
	cuts          []cut
	note          string
	chars, tokens int
}

// preview returns the loosest cut of d that fits the limits with its
// note.
func (b *Bounder) preview(budget bounded.Budget, lc, lt int, d *doc, ni noteInput) (preview, error) {
	var eval func(i int) (preview, bool)
	var n int
	if d.shape == shapeText {
		total := utf8.RuneCountInString(d.text)
		var levels []int
		for v := total; v > 0; v = min(v-1, v*4/5) {
			levels = append(levels, v)
		}
		levels = append(levels, 0)
		n = len(levels)
		eval = func(i int) (preview, bool) {
			s := levels[i]
			prefix := d.text[:runeIndex(d.text, s+1)]
			out, kept := clipText(prefix, total, s)
			var cuts []cut
			if kept < total {
				c := cut{kind: '"', total: total, kept: kept}
				c.line, c.char = position(prefix, kept)
				cuts = append(cuts, c)
			}
			return b.measure(budget, lc, lt, []byte(out), cuts, ni)
		}
	} else {
		steps := ladder(d.tree)
		n = len(steps)
		eval = func(i int) (preview, bool) {
			r := renderer{t: d.tree, c: steps[i], limit: lc}
			r.render()
			if r.over {
				return preview{}, false
			}
			cuts := r.cuts
			if d.shape == shapeBlocks {
				cuts = b.binaryCuts(d, r.out, cuts)
			}
			return b.measure(budget, lc, lt, r.out, cuts, ni)
		}
	}
	last, ok := eval(n - 1)
	if !ok {
		return preview{}, fmt.Errorf("%w: %d characters and %d tokens cannot hold the note of this result (%d characters, %d tokens)",
			bounded.ErrInvalidBudget, lc, lt, last.chars, last.tokens)
	}
	if p, ok := eval(0); ok {
		return p, nil
	}
	// eval(lo) does not fit, eval(hi) does.
	lo, hi, best := 0, n-1, last
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if p, ok := eval(mid); ok {
			hi, best = mid, p
		} else {
			lo = mid
		}
	}
	return best, nil
}

// measure returns the preview of out and cuts with its note, and whether
// it fits.
func (b *Bounder) measure(budget bounded.Budget, lc, lt int, out []byte, cuts []cut, ni noteInput) (preview, bool) {
	p := preview{out: out, cuts: cuts}
	link := ""
	if len(cuts) > 0 {
		p.note = writeNote(ni, b.o.ReadTool, cuts)
		if ni.handle != "" {
			l := wholeLink(ni, "")
			link = l.URI + l.Name + l.Description
		}
	}
	p.chars = utf8.RuneCount(out) + utf8.RuneCountInString(p.note) + utf8.RuneCountInString(link)
	if p.chars > lc {
		return p, false
	}
	p.tokens = budget.CountTokens(string(out)) + budget.CountTokens(p.note) + budget.CountTokens(link)
	return p, p.tokens <= lt
}

// wholeLink is the resource link to the whole of a kept result.
func wholeLink(ni noteInput, mime string) Block {
	return Block{Type: TypeResourceLink, URI: ni.resource, Name: ni.tool + " result", MIMEType: mime,
		Description: "The whole result, kept for " + formatTTL(ni.ttl) + "."}
}

// binaryCuts adds to cuts those of the binary blocks of d over
// MaxBinaryBytes that the preview out keeps, in document order.
func (b *Bounder) binaryCuts(d *doc, out []byte, cuts []cut) []cut {
	kept := len(d.in.Content)
	for _, c := range cuts {
		if c.ptr == "/content" {
			kept = c.kept
		}
	}
	var add []cut
	for i, bl := range d.in.Content[:kept] {
		if isBinary(bl) && len(bl.Data) > b.o.MaxBinaryBytes {
			add = append(add, cut{ptr: "/content", path: []int{0}, kind: 'b', total: len(bl.Data), from: i, to: i + 1})
		}
	}
	if len(add) == 0 {
		return cuts
	}
	all := append(slices.Clone(cuts), add...)
	slices.SortStableFunc(all, func(x, y cut) int { return comparePos(x.start(), y.start()) })
	return all
}

// keep stores the snapshot of d.
func (b *Bounder) keep(ctx context.Context, d *doc, call Call, id string, cuts []cut) error {
	now := b.now()
	s := &Snapshot{Header: Header{ID: id, Principal: call.Principal, Tool: call.Tool, Args: argsJSON(call.Args),
		Created: now, Expires: now.Add(b.o.TTL)}}
	m := &meta{Shape: d.shape}
	bl := builder{t: d.tree}
	if d.shape == shapeText {
		m.Root = bl.textDesc(d.text)
	} else {
		n := -1
		if len(d.tree.Nodes) > 0 && d.tree.Nodes[0].Start == 0 {
			n = 0
		}
		m.Root = bl.node(0, n, ref{root: true})
	}
	for _, c := range cuts {
		if c.kind == 'b' {
			continue
		}
		m.Cuts = append(m.Cuts, mcut{Ptr: c.ptr, Path: c.path, Kind: c.kind, From: c.from, To: c.to, Line: c.line, Char: c.char})
	}
	for i, blk := range d.in.Content {
		if isBinary(blk) {
			bl.emit(blobNode(i), Pos{}, blk.Data)
			m.Blobs = append(m.Blobs, mblob{Index: i, Type: blk.Type, MIMEType: blk.MIMEType, URI: blk.URI, Size: len(blk.Data)})
		}
	}
	var err error
	if s.Meta, err = encodeMeta(m); err != nil {
		return err
	}
	s.Segments = bl.segs
	s.Bytes = int64(len(s.Meta)) + bl.bytes
	return b.store.Put(ctx, s)
}

// assemble returns the bounded result of preview pv of d.
func (b *Bounder) assemble(d *doc, pv preview, ni noteInput) (Bounded, error) {
	rep := &Report{Handle: ni.handle, Resource: ni.resource, NotKept: ni.notKept, Note: pv.note, Chars: pv.chars, Tokens: pv.tokens}
	if ni.handle != "" && len(pv.cuts) > 0 {
		rep.Expires = b.now().Add(b.o.TTL)
	} else {
		rep.Handle, rep.Resource = "", ""
	}
	rep.Cuts = make([]Cut, 0, len(pv.cuts))
	for _, c := range pv.cuts {
		rc := Cut{Pointer: c.pointer(), Kind: c.kindName(), Total: c.total, Kept: c.kept}
		if rep.Handle != "" {
			rc.Read = withHandle(rep.Handle, c.readArgs())
		}
		rep.Cuts = append(rep.Cuts, rc)
	}
	if i := firstWalked(pv.cuts); rep.Handle != "" && i >= 0 {
		rep.Next = rep.Cuts[i].Read
	}
	out := Result{IsError: d.in.IsError}
	switch d.shape {
	case shapeJSON:
		if d.structured {
			out.Structured = pv.out
		}
		out.Content = []Block{{Type: TypeText, Text: string(pv.out)}}
	case shapeText:
		out.Content = []Block{{Type: TypeText, Text: string(pv.out)}}
	case shapeBlocks:
		if err := b.blocksOut(d, pv.out, &out, rep.Resource); err != nil {
			return Bounded{}, err
		}
	}
	if pv.note != "" {
		out.Content = append(out.Content, Block{Type: TypeText, Text: pv.note})
	}
	if rep.Handle != "" {
		mime := "application/json"
		if d.shape == shapeText {
			mime = "text/plain"
		}
		out.Content = append(out.Content, wholeLink(ni, mime))
	}
	return Bounded{Result: out, Report: rep}, nil
}

// blocksOut turns the preview of a content document back into blocks and
// structured content.
func (b *Bounder) blocksOut(d *doc, pv []byte, out *Result, resource string) error {
	t, err := jtree.Parse(pv, MaxDepth+3)
	if err != nil {
		return fmt.Errorf("result: internal error: preview of a content list: %w", err)
	}
	root := -1
	if len(t.Nodes) > 0 && t.Nodes[0].Start == 0 {
		root = 0
	}
	var fail error
	t.Children(0, root, func(m jtree.Child) bool {
		switch jtree.Unquote(m.Key) {
		case "structuredContent":
			out.Structured = t.Src[m.Start:m.End]
		case "content":
			j := 0
			t.Children(m.Start, m.Node, func(c jtree.Child) bool {
				bl := d.in.Content[j]
				nb := Block{Type: bl.Type, MIMEType: bl.MIMEType, URI: bl.URI, Name: bl.Name, Title: bl.Title, Description: bl.Description, Size: bl.Size}
				switch {
				case isBinary(bl) && len(bl.Data) <= b.o.MaxBinaryBytes:
					nb = bl
				case isBinary(bl) && resource != "":
					nb = Block{Type: TypeResourceLink, URI: resource + "/content/" + strconv.Itoa(j), Name: orString(bl.Name, bl.Type),
						MIMEType: bl.MIMEType, Size: int64(len(bl.Data)),
						Description: "The " + bl.Type + " of this result, too large to show (" + bounded.FormatCount(len(bl.Data)) + " bytes)."}
				case isBinary(bl):
					nb = Block{Type: TypeText, Text: "[" + bl.Type + " of " + bounded.FormatCount(len(bl.Data)) + " bytes left out]"}
				case bl.Type != TypeResourceLink:
					t.Children(c.Start, c.Node, func(f jtree.Child) bool {
						if jtree.Unquote(f.Key) == "text" {
							v := t.Src[f.Start:f.End]
							if v[0] == '"' {
								nb.Text = jtree.Unquote(v)
							} else {
								nb.Text = string(v)
							}
						}
						return true
					})
				}
				out.Content = append(out.Content, nb)
				j++
				return j < len(d.in.Content)
			})
		}
		return fail == nil
	})
	return fail
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
