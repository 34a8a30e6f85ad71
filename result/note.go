package result

import (
	"strconv"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// cutNouns name what a cut counts.
var cutNouns = map[byte]string{'[': "elements", '{': "members", '"': "characters", 'b': "bytes"}

// kindName is the Cut kind of a cut.
func (c cut) kindName() string {
	switch c.kind {
	case '[':
		return CutArray
	case '{':
		return CutObject
	case '"':
		return CutString
	}
	return CutBinary
}

// readArgs returns the arguments, but the handle, of the read of c's rest.
func (c cut) readArgs() bounded.Args {
	var a bounded.Args
	ptr := c.ptr
	if c.kind == 'b' {
		ptr += "/" + strconv.Itoa(c.from)
	}
	if ptr != "" {
		a = append(a, bounded.Arg{Name: "pointer", Value: ptr})
	}
	switch c.kind {
	case '"':
		if c.line > 0 {
			a = append(a, bounded.Arg{Name: "lineOffset", Value: c.line})
		}
		if c.char > 0 {
			a = append(a, bounded.Arg{Name: "charOffset", Value: c.char})
		}
	case '[', '{':
		if c.from > 0 {
			a = append(a, bounded.Arg{Name: "offset", Value: c.from})
		}
	}
	return a
}

// pointer is the JSON Pointer of what c leaves out.
func (c cut) pointer() string {
	if c.kind == 'b' {
		return c.ptr + "/" + strconv.Itoa(c.from)
	}
	return c.ptr
}

// noteInput is what a note says beside the cuts.
type noteInput struct {
	tool                    string
	handle, resource        string
	ttl                     time.Duration
	notKept                 string
	dropped                 error
	limitChars, limitTokens int
}

// withHandle returns args with the handle first.
func withHandle(h string, args bounded.Args) bounded.Args {
	return append(bounded.Args{{Name: "handle", Value: h}}, args...)
}

// writeNote returns the text block that states the cuts and how to read
// the rest.
func writeNote(in noteInput, readTool string, cuts []cut) string {
	var b strings.Builder
	b.WriteString("[Result cut to fit ")
	b.WriteString(bounded.FormatCount(in.limitChars))
	b.WriteString(" characters and ")
	b.WriteString(bounded.FormatCount(in.limitTokens))
	b.WriteString(" tokens.")
	if in.dropped != nil {
		b.WriteString(" Its structured content was left out: ")
		b.WriteString(in.dropped.Error())
		b.WriteString(".")
	}
	kept := in.handle != ""
	if kept {
		b.WriteString(" The whole result is kept for ")
		b.WriteString(formatTTL(in.ttl))
		b.WriteString(" as handle ")
		b.Write(jtree.AppendString(nil, in.handle))
		b.WriteString(". Left out, with the ")
		b.WriteString(readTool)
		b.WriteString(" arguments that read each rest (add handle):")
	} else {
		b.WriteString(" The rest could not be kept: ")
		b.WriteString(in.notKept)
		b.WriteString(". Left out:")
	}
	call := bounded.Call{Tool: ""}
	for _, c := range cuts {
		b.WriteString("\n- ")
		b.Write(jtree.AppendString(nil, c.pointer()))
		b.WriteString(": ")
		if c.kind == 'b' {
			b.WriteString("binary data of ")
			b.WriteString(bounded.FormatCount(c.total))
			b.WriteString(" bytes not shown")
			if kept {
				b.WriteString("; resource ")
				b.WriteString(in.resource)
				b.WriteString(c.pointer())
			}
		} else {
			b.WriteString(bounded.FormatCount(c.kept))
			b.WriteString(" of ")
			b.WriteString(bounded.FormatCount(c.total))
			b.WriteString(" ")
			b.WriteString(cutNouns[c.kind])
			b.WriteString(" shown")
		}
		if kept {
			if a := c.readArgs(); len(a) > 0 {
				r := call.Render(a)
				b.WriteString("; ")
				b.WriteString(r[1 : len(r)-1])
			}
		}
	}
	switch first := firstWalked(cuts); {
	case kept && first >= 0:
		b.WriteString("\nTo read all that is left out, in order, call ")
		b.WriteString(bounded.Call{Tool: readTool}.Render(withHandle(in.handle, cuts[first].readArgs())))
		b.WriteString(", then each answer's next.]")
	case kept:
		b.WriteString("\nRead binary data as the resources named.]")
	default:
		b.WriteString("\nCall ")
		b.WriteString(in.tool)
		b.WriteString(" again with narrower arguments for the rest.]")
	}
	return b.String()
}

// firstWalked returns the index of the first cut a walk reads, or -1:
// binary data is read as resources.
func firstWalked(cuts []cut) int {
	for i, c := range cuts {
		if c.kind != 'b' {
			return i
		}
	}
	return -1
}

// formatTTL writes a TTL as "1h", "30m" or "90s".
func formatTTL(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10) + "s"
}
