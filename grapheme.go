package bounded

//go:generate go run ./internal/graphemegen -ucd internal/graphemegen/ucd -o grapheme_table.go

// This file finds extended grapheme cluster boundaries as Unicode Standard
// Annex #29 defines them, for Unicode 15.0.0 (graphemeUnicodeVersion, the
// version of Go's own unicode package): rules GB3 to GB13 and GB999, with
// the Grapheme_Cluster_Break and Extended_Pictographic properties generated
// from the Unicode data files (grapheme_table.go). grapheme_test.go checks
// it against every case of that version's GraphemeBreakTest.txt.
//
// GB9c (Indic conjunct breaks) is a rule of Unicode 15.1; it comes with the
// data of that version. Invalid UTF-8 bytes are U+FFFD, as a range loop
// decodes them.

// gcProp is a rune's Grapheme_Cluster_Break property, with
// Extended_Pictographic as a value of its own (no code point has both it and
// a break property other than Other).
type gcProp uint8

const (
	gcOther gcProp = iota
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

// graphemeRange gives the code points lo..hi the property p.
type graphemeRange struct {
	lo, hi rune
	p      gcProp
}

// graphemeProp returns r's property.
func graphemeProp(r rune) gcProp {
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
	return graphemeLookup(r)
}

// graphemeLookup returns r's property from graphemeRanges.
func graphemeLookup(r rune) gcProp {
	lo, hi := 0, len(graphemeRanges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if graphemeRanges[m].hi < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(graphemeRanges) && graphemeRanges[lo].lo <= r {
		return graphemeRanges[lo].p
	}
	return gcOther
}

// graphemeScanner walks a string rune by rune and reports extended grapheme
// cluster boundaries. The zero value is ready to use at the start of a text.
type graphemeScanner struct {
	started bool
	prev    gcProp
	riOdd   bool // an odd number of consecutive RI ends at prev
	pict    bool // the text ends with Extended_Pictographic Extend*
	pictZWJ bool // the text ends with Extended_Pictographic Extend* ZWJ
}

// next consumes r and reports whether a cluster boundary lies immediately
// before it. The start of the text is always a boundary.
func (g *graphemeScanner) next(r rune) bool {
	p := graphemeProp(r)
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
func (g *graphemeScanner) breakBefore(p gcProp) bool {
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
