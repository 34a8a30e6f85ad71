package ports

import "slices"

// sortedSet returns the distinct elements of s, sorted bytewise; nil for none.
func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
