// Package grapheme finds extended grapheme cluster boundaries as Unicode
// Standard Annex #29 defines them, for Unicode 15.0.0 (unicodeVersion, the
// version of Go's own unicode package): rules GB3 to GB13 and GB999, with
// the Grapheme_Cluster_Break and Extended_Pictographic properties generated
// from the Unicode data files (table.go). Its tests check it against every
// case of that version's GraphemeBreakTest.txt.
//
// GB9c (Indic conjunct breaks) is a rule of Unicode 15.1; it comes with the
// data of that version. Invalid UTF-8 bytes are U+FFFD, as a range loop
// decodes them.
package grapheme

//go:generate go run ../graphemegen -ucd ../graphemegen/ucd -o table.go

// prop is a rune's Grapheme_Cluster_Break property, with
// Extended_Pictographic as a value of its own (no code point has both it and
// a break property other than Other).
type prop uint8

const (
	gcOther prop = iota
	gcCR
	gcLF
	gcControl
	gcExtend
	gcZWJ
	gcRI
	gcPrepend
	gcSpacingMark
	gcL
	gcV
	gcT
	gcLV
	gcLVT
	gcExtPict
)

// propRange gives the code points lo..hi the property p.
type propRange struct {
	lo, hi rune
	p      prop
}

// propOf returns r's property.
func propOf(r rune) prop {
	switch {
	case r >= 0x20 && r < 0x7F:
		return gcOther
	case r == '\r':
		return gcCR
	case r == '\n':
		return gcLF
	case r < 0x20:
		return gcControl
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		if (r-0xAC00)%28 == 0 {
			return gcLV
		}
		return gcLVT
	}
	return lookup(r)
}

// lookup returns r's property from ranges.
func lookup(r rune) prop {
	lo, hi := 0, len(ranges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ranges[m].hi < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ranges) && ranges[lo].lo <= r {
		return ranges[lo].p
	}
	return gcOther
}

// Scanner walks a string rune by rune and reports extended grapheme
// cluster boundaries. The zero value is ready to use at the start of a text.
type Scanner struct {
	started bool
	prev    prop
	riOdd   bool // an odd number of consecutive RI ends at prev
	pict    bool // the text ends with Extended_Pictographic Extend*
	pictZWJ bool // the text ends with Extended_Pictographic Extend* ZWJ
}

// Next consumes r and reports whether a cluster boundary lies immediately
// before it. The start of the text is always a boundary.
func (g *Scanner) Next(r rune) bool {
	p := propOf(r)
	brk := true
	if g.started {
		brk = g.breakBefore(p)
	}
	g.started = true

	if p == gcRI && g.prev == gcRI {
		g.riOdd = !g.riOdd
	} else {
		g.riOdd = p == gcRI
	}
	switch p {
	case gcExtPict:
		g.pict, g.pictZWJ = true, false
	case gcExtend:
		g.pictZWJ = false // g.pict carries over: ExtPict Extend*
	case gcZWJ:
		g.pictZWJ, g.pict = g.pict, false
	default:
		g.pict, g.pictZWJ = false, false
	}
	g.prev = p
	return brk
}

// breakBefore applies the rules, in order, between the previous rune's
// property (with the scanner's context) and p.
func (g *Scanner) breakBefore(p prop) bool {
	prev := g.prev
	switch {
	case prev == gcCR && p == gcLF: // GB3
		return false
	case prev == gcCR || prev == gcLF || prev == gcControl: // GB4
		return true
	case p == gcCR || p == gcLF || p == gcControl: // GB5
		return true
	case prev == gcL && (p == gcL || p == gcV || p == gcLV || p == gcLVT): // GB6
		return false
	case (prev == gcLV || prev == gcV) && (p == gcV || p == gcT): // GB7
		return false
	case (prev == gcLVT || prev == gcT) && p == gcT: // GB8
		return false
	case p == gcExtend || p == gcZWJ: // GB9
		return false
	case p == gcSpacingMark: // GB9a
		return false
	case prev == gcPrepend: // GB9b
		return false
	case prev == gcZWJ && p == gcExtPict && g.pictZWJ: // GB11
		return false
	case prev == gcRI && p == gcRI: // GB12, GB13
		return !g.riOdd
	}
	return true // GB999
}
