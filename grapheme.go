package bounded

import "unicode"

// This file implements a small, standard-library-only approximation of the
// extended grapheme cluster boundary rules of Unicode Standard Annex #29. It
// exists so that Clip never cuts a user-perceived character in half.
//
// Covered rules:
//
//   - GB3        CR × LF
//   - GB4, GB5   breaks around controls (Cc, Zl, Zp, and Cf other than
//     ZWNJ, ZWJ and tag characters)
//   - GB6–GB8    Hangul syllable sequences (L, V, T, LV, LVT jamo and
//     precomposed syllables U+AC00–U+D7A3)
//   - GB9        × Extend and × ZWJ, where Extend is approximated by
//     unicode.Mn, unicode.Me, ZWNJ U+200C, variation selectors
//     U+FE00–U+FE0F and U+E0100–U+E01EF, emoji modifiers U+1F3FB–U+1F3FF,
//     tags U+E0020–U+E007F and the halfwidth katakana sound marks
//     U+FF9E–U+FF9F
//   - GB9a       × SpacingMark, approximated by unicode.Mc
//   - GB11       Extended_Pictographic Extend* ZWJ × Extended_Pictographic,
//     with Extended_Pictographic approximated by ranges (see isExtPict)
//   - GB12, GB13 regional indicator (U+1F1E6–U+1F1FF) pairs, i.e. flags
//   - GB999      break everywhere else
//
// Not covered: GB9b (Prepend), GB9c (Indic conjunct break), and the exact
// property tables (a handful of Mc characters that are Grapheme_Extend, and
// unassigned code points inside the pictographic ranges, are classified
// approximately). Invalid UTF-8 bytes decode as U+FFFD of width 1 and form
// clusters of their own, matching utf8.RuneCountInString counting.

// gcProp is the (approximate) Grapheme_Cluster_Break property of a rune.
type gcProp uint8

const (
	gcOther gcProp = iota
	gcCR
	gcLF
	gcControl
	gcExtend
	gcZWJ
	gcRI
	gcSpacingMark
	gcL
	gcV
	gcT
	gcLV
	gcLVT
	gcExtPict
)

// graphemeProp classifies r.
func graphemeProp(r rune) gcProp {
	switch {
	case r == '\r':
		return gcCR
	case r == '\n':
		return gcLF
	case r < 0x20 || (r >= 0x7F && r < 0xA0):
		return gcControl
	case r < 0x300 && r != 0xA9 && r != 0xAD && r != 0xAE:
		// Fast path: Latin-1 and Latin Extended letters are all Other.
		return gcOther
	case r == 0x200D:
		return gcZWJ
	case r == 0x200C:
		return gcExtend
	case r >= 0x1F1E6 && r <= 0x1F1FF:
		return gcRI
	case r >= 0x1F3FB && r <= 0x1F3FF:
		return gcExtend // emoji modifiers (skin tones)
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return gcExtend // variation selectors
	case r >= 0xE0020 && r <= 0xE007F:
		return gcExtend // tags (subdivision flags)
	case r == 0xFF9E || r == 0xFF9F:
		return gcExtend
	case r >= 0x1100 && r <= 0x115F, r >= 0xA960 && r <= 0xA97C:
		return gcL
	case r >= 0x1160 && r <= 0x11A7, r >= 0xD7B0 && r <= 0xD7C6:
		return gcV
	case r >= 0x11A8 && r <= 0x11FF, r >= 0xD7CB && r <= 0xD7FB:
		return gcT
	case r >= 0xAC00 && r <= 0xD7A3:
		if (r-0xAC00)%28 == 0 {
			return gcLV
		}
		return gcLVT
	case isExtPict(r):
		return gcExtPict
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r):
		return gcExtend
	case unicode.Is(unicode.Mc, r):
		return gcSpacingMark
	case unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), unicode.Is(unicode.Cf, r):
		return gcControl
	}
	return gcOther
}

// isExtPict approximates the Extended_Pictographic property with the blocks
// that hold emoji and pictographs.
func isExtPict(r rune) bool {
	switch {
	case r == 0xA9, r == 0xAE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139:
		return true
	case r >= 0x2194 && r <= 0x2199, r == 0x21A9, r == 0x21AA:
		return true
	case r >= 0x2300 && r <= 0x23FF: // Miscellaneous Technical (⌚ ⏰ ...)
		return true
	case r == 0x24C2, r == 0x25AA, r == 0x25AB, r == 0x25B6, r == 0x25C0, r >= 0x25FB && r <= 0x25FE:
		return true
	case r >= 0x2600 && r <= 0x27BF: // Miscellaneous Symbols, Dingbats
		return true
	case r == 0x2934, r == 0x2935:
		return true
	case r >= 0x2B00 && r <= 0x2BFF: // Miscellaneous Symbols and Arrows
		return true
	case r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	case r >= 0x1F000 && r <= 0x1FAFF: // Mahjong .. Symbols and Pictographs Extended-A
		return true
	case r >= 0x1FC00 && r <= 0x1FFFD:
		return true
	}
	return false
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

// breakBefore applies the pairwise rules between the previous rune's
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
	case prev == gcZWJ && p == gcExtPict && g.pictZWJ: // GB11
		return false
	case prev == gcRI && p == gcRI: // GB12, GB13
		return !g.riOdd
	}
	return true // GB999
}
