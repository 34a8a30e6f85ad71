package toolargs

import (
	"strings"
	"testing"
)

func TestWholeNumber(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want int
		err  string // substring of the error; "" for none
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"42", 42, ""},
		{"-7", -7, ""},
		{"2.0", 2, ""},
		{"2.50e1", 25, ""},
		{"5e0", 5, ""},
		{"1E3", 1000, ""},
		{"0.0e-99999999999999999999", 0, ""},
		{"9007199254740991", 9007199254740991, ""},
		{"-9007199254740991", -9007199254740991, ""},
		{"2.5", 0, "not a whole number"},
		{"1e-1", 0, "not a whole number"},
		{"1.0000000000000001", 0, "not a whole number"},
		{"1e-99999999999999999999", 0, "not a whole number"},
		{"9007199254740992", 0, "over the maximum"},
		{"1e20", 0, "over the maximum"},
		{"1e99999999999999999999", 0, "over the maximum"},
		{"123456789012345678901234567890", 0, "over the maximum"},
	} {
		got, err := wholeNumber(c.lit)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("wholeNumber(%s): error %v, want %d", c.lit, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("wholeNumber(%s) = %d, %v; want an error containing %q", c.lit, got, err, c.err)
		case c.err == "" && got != c.want:
			t.Errorf("wholeNumber(%s) = %d, want %d", c.lit, got, c.want)
		}
	}
}
