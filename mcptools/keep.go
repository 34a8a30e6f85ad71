package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
)

// A Keeper keeps a call's results whole when they are clipped, so that a
// clipped value can be read whole: mcpresult.Keeper is one.
type Keeper interface {
	// Keep stores results, the JSON array of a page's results as the
	// handler returned them, for the call req, and returns the call that
	// reads a value of them.
	Keep(ctx context.Context, req *mcp.CallToolRequest, results []byte) (ReadCall, error)
}

// ReadCall is the call that reads a value of kept results: Tool with
// Args, then PointerArg set to the value's JSON Pointer (RFC 6901) in the
// results ("/2/content": the content of the third).
type ReadCall struct {
	Tool       string
	Args       bounded.Args
	PointerArg string
}

// render returns the call that reads the value at pointer.
func (rc ReadCall) render(pointer string) string {
	args := append(slices.Clip(rc.Args), bounded.Arg{Name: rc.PointerArg, Value: pointer})
	return bounded.Call{Tool: rc.Tool}.Render(args)
}

// clipped is what Clip cut in a page: the results it changed, with the
// JSON Pointers, within each, of the strings it shortened.
type clipped struct {
	// orig are the results as the handler returned them.
	orig []byte
	// first is the first result changed, and fields the pointers of the
	// strings cut in the results changed, distinct, in order.
	first  int
	fields []string
	limit  int
}

// findClipped returns what clip cut of items, the results before it
// clipped them to limit characters, in out: nil when it changed none.
func findClipped[T any](items, out []T, limit int) (*clipped, error) {
	var c *clipped
	for i := range items {
		if reflect.DeepEqual(items[i], out[i]) {
			continue
		}
		a, err := decodeValue(&items[i])
		if err != nil {
			return nil, err
		}
		b, err := decodeValue(&out[i])
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = &clipped{first: -1, limit: limit}
		}
		n := len(c.fields)
		diffStrings(a, b, "", &c.fields)
		if len(c.fields) > n && c.first < 0 {
			c.first = i
		}
		c.fields = dedupe(c.fields)
	}
	if c == nil || c.first < 0 {
		return nil, nil
	}
	orig, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	c.orig = orig
	return c, nil
}

// dedupe removes the repeats of s, keeping the first of each.
func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if !slices.Contains(s[:i], v) {
			out = append(out, v)
		}
	}
	return out
}

// decodeValue returns v as encoding/json encodes it, decoded into an any
// with numbers as json.Number.
func decodeValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

// diffStrings appends to paths the JSON Pointers, under at, of the
// strings of a that b holds changed at the same place.
func diffStrings(a, b any, at string, paths *[]string) {
	switch a := a.(type) {
	case string:
		if s, ok := b.(string); ok && s != a {
			*paths = append(*paths, at)
		}
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(a)) {
			if bv, ok := bm[k]; ok {
				diffStrings(a[k], bv, at+"/"+escapePointer(k), paths)
			}
		}
	case []any:
		bs, ok := b.([]any)
		if !ok {
			return
		}
		for i := range min(len(a), len(bs)) {
			diffStrings(a[i], bs[i], at+"/"+strconv.Itoa(i), paths)
		}
	}
}

// escapePointer escapes a key as a JSON Pointer's reference token.
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// note is the sentence that names the read of c's results whole.
func (c *clipped) note(rc ReadCall) string {
	shown := make([]string, 0, min(len(c.fields), 4))
	for _, f := range c.fields[:min(len(c.fields), 4)] {
		shown = append(shown, strings.TrimPrefix(f, "/"))
	}
	if len(c.fields) > 4 {
		shown = append(shown, "…")
	}
	return fmt.Sprintf("Strings of results are clipped to %s characters (%s): %s reads result %d's whole, pointer \"/I%s\" result I's (from 0).",
		bounded.FormatCount(c.limit), strings.Join(shown, ", "), rc.render(fmt.Sprintf("/%d%s", c.first, c.fields[0])), c.first, c.fields[0])
}

// pathPointer returns the JSON Pointer of path, a path as
// bounded.Truncation.ClippedFields writes it ("meta.author",
// `observations[2]`, `meta["a.b"]`, "$"), under at; false when path is
// not one.
func pathPointer(at, path string) (string, bool) {
	if path == "$" {
		return at, true
	}
	var b strings.Builder
	b.WriteString(at)
	for i := 0; i < len(path); {
		switch c := path[i]; {
		case c == '.' && i > 0:
			i++
			continue
		case c == '[' && i+1 < len(path) && path[i+1] == '"':
			dec := json.NewDecoder(strings.NewReader(path[i+1:]))
			var key string
			if err := dec.Decode(&key); err != nil {
				return "", false
			}
			i += 1 + int(dec.InputOffset())
			if i >= len(path) || path[i] != ']' {
				return "", false
			}
			i++
			b.WriteString("/" + escapePointer(key))
		case c == '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return "", false
			}
			n, err := strconv.Atoi(path[i+1 : i+end])
			if err != nil || n < 0 {
				return "", false
			}
			b.WriteString("/" + strconv.Itoa(n))
			i += end + 1
		default:
			end := i
			for end < len(path) && path[end] != '.' && path[end] != '[' {
				end++
			}
			if end == i {
				return "", false
			}
			b.WriteString("/" + escapePointer(path[i:end]))
			i = end
		}
	}
	return b.String(), true
}

// keeping is what a call kept of its results whole: the read of their
// values, or nothing yet.
type keeping struct {
	notes []string
	read  *ReadCall
}

// keepClipped keeps items whole when clip cut a string of one in out,
// and returns the note that names the read; with none when nothing was
// cut, or the keeper failed (logged).
func keepClipped[T any](ctx context.Context, req *mcp.CallToolRequest, o Options[T], items, out []T, limit int) keeping {
	c, err := findClipped(items, out, limit)
	if err != nil || c == nil {
		// An item that does not encode is Fit's to report.
		return keeping{}
	}
	rc, err := o.Keep.Keep(ctx, req, c.orig)
	if err != nil {
		logKeep(o, req, err)
		return keeping{}
	}
	return keeping{notes: []string{c.note(rc)}, read: &rc}
}

// fitClipped keeps items whole, unless k holds their read, and returns the note that
// names the read of the first result's strings the budget clipped
// (paths, as bounded.Truncation.ClippedFields writes them).
func fitClipped[T any](ctx context.Context, req *mcp.CallToolRequest, o Options[T], k keeping, items []T, paths []string) (string, bool) {
	if len(paths) == 0 {
		return "", false
	}
	pointer, ok := pathPointer("/0", paths[0])
	if !ok {
		return "", false
	}
	rc := k.read
	if rc == nil {
		orig, err := json.Marshal(items)
		if err != nil {
			return "", false
		}
		r, err := o.Keep.Keep(ctx, req, orig)
		if err != nil {
			logKeep(o, req, err)
			return "", false
		}
		rc = &r
	}
	what := "its clipped string"
	if len(paths) > 1 {
		what = fmt.Sprintf("the first of its %d clipped strings", len(paths))
	}
	return fmt.Sprintf("The first result is clipped to fit: %s reads %s whole.", rc.render(pointer), what), true
}

// logKeep logs the error of a Keeper.
func logKeep[T any](o Options[T], req *mcp.CallToolRequest, err error) {
	l := o.Budget.Logger
	if l == nil {
		l = slog.Default()
	}
	l.Warn("mcptools: clipped results not kept", "tool", req.Params.Name, "err", err)
}
