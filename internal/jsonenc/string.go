package jsonenc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/estimate"
)

// Marshal returns the JSON encoding of v as encoding/json's Encoder writes
// it with HTML escaping off, without the newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// AppendString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off: \" \\ \b \f \n \r \t, other controls as \u00XX,
// each invalid UTF-8 byte as \ufffd, and U+2028, U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	return AppendStringSum(b, s, nil)
}

// AppendStringSum is AppendString adding to sum, when set, the
// runes it writes as they are.
func AppendStringSum(b []byte, s string, sum *estimate.RuneSum) []byte {
	const hex = "0123456789abcdef"
	var milli int64 // the runes' costs and bytes past the first, for sum
	var extra int
	b = append(b, '"')
	start := 0 // s[start:i] is written as it is, not yet appended
	for i := 0; i < len(s); {
		// Plain bytes are passed over 8 at a time (32 after a plain 8), to
		// the first that is not, which the word's mask locates.
		if len(s)-i >= 8 {
			m := plainMask(load64(s, i))
			if m == 0 {
				for i += 8; len(s)-i >= 32; i += 32 {
					w := s[i : i+32]
					if plainMask(load64(w, 0))|plainMask(load64(w, 8))|plainMask(load64(w, 16))|plainMask(load64(w, 24)) != 0 {
						break
					}
				}
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		} else if plainByte[s[i]] {
			i++
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		// A run of non-ASCII runes. Those of two bytes, and of three
		// that can be neither overlong, a surrogate, U+2028 nor U+2029,
		// are checked here.
		for i < len(s) && s[i] >= utf8.RuneSelf {
			if c := s[i]; (c == 0xE1 || 0xE3 <= c && c <= 0xEC) && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
				if sum != nil {
					r := rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
					milli += estimate.CostOfRune3(r)
					extra += 2
				}
				i += 3
				continue
			} else if 0xC2 <= c && c < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
				if sum != nil {
					r := rune(c&0x1F)<<6 | rune(s[i+1]&0x3F)
					milli += estimate.CostOfRune2(r)
					extra++
				}
				i += 2
				continue
			}
			switch size := runeLen(s, i); {
			case size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
				start = i
			case size == 3 && s[i] == 0xE2 && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8:
				// U+2028 or U+2029
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
				i += 3
				start = i
			default:
				if sum != nil {
					r, _ := utf8.DecodeRuneInString(s[i:])
					milli, extra = milli+estimate.CostOfRune(r, size), extra+size-1
				}
				i += size
			}
		}
	}
	if sum != nil {
		sum.Milli += milli
		sum.Extra += extra
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainByte reports for each byte whether a JSON string holds it as it is:
// printable ASCII other than a quote or a backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainMask is 0 when each of the 8 bytes of w is written in a JSON string
// as it is: printable ASCII other than a quote or a backslash. Otherwise it
// has a high bit set (for one of the bytes that are not, or after one).
func plainMask(w uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		high  = 0x8080808080808080
		quote = 0x2222222222222222
		bslsh = 0x5c5c5c5c5c5c5c5c
		space = 0x2020202020202020
	)
	q, bs := w^quote, w^bslsh
	return ((q-ones)&^q | (bs-ones)&^bs | (w - space) | w) & high
}

// RuneCount is utf8.RuneCount with a fast path for ASCII, which JSON mostly
// is: 32 bytes at a time while their high bits are clear. Like
// utf8.RuneCount, it counts each invalid byte as one rune.
func RuneCount(b []byte) int {
	const high = 0x8080808080808080
	// The bytes, less those past the first of each multi-byte rune.
	n := len(b)
	for i := 0; i < len(b); {
		for ; len(b)-i >= 32; i += 32 {
			c := b[i : i+32 : i+32]
			w := binary.LittleEndian.Uint64(c) | binary.LittleEndian.Uint64(c[8:]) |
				binary.LittleEndian.Uint64(c[16:]) | binary.LittleEndian.Uint64(c[24:])
			if w&high != 0 {
				break
			}
		}
		// The next 32 bytes, which hold a non-ASCII one, or the last few.
		for end := min(i+32, len(b)); i < end; {
			if b[i] < utf8.RuneSelf {
				i++
				continue
			}
			size := runeLen(b, i)
			n -= size - 1
			i += size
		}
	}
	return n
}

// runeLen is the length of the rune s[i:] starts with, s[i] being
// utf8.RuneSelf or more, as utf8 decodes it: 1 for an invalid byte. Two-
// and three-byte runes, the letters of most scripts, are checked here.
func runeLen[T string | []byte](s T, i int) int {
	c := s[i]
	if c >= 0xC2 && c < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
		return 2
	}
	if c >= 0xE0 && c < 0xF0 && i+2 < len(s) && s[i+2]&0xC0 == 0x80 {
		lo, hi := byte(0x80), byte(0xBF)
		switch c {
		case 0xE0:
			lo = 0xA0 // not overlong
		case 0xED:
			hi = 0x9F // not a surrogate
		}
		if c1 := s[i+1]; lo <= c1 && c1 <= hi {
			return 3
		}
	}
	_, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
	return size
}

// load64 returns the 8 bytes of s at i as a little-endian word.
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
