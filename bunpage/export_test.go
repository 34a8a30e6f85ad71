package bunpage

import "github.com/boundedkit/bounded/internal/keyset"

// Portable returns s ordering NULLs with CASE and comparing keys in the
// expanded OR form, as on engines without NULLS FIRST/LAST or row values
// (MySQL, SQL Server): both forms run on SQLite and Postgres too.
func Portable[T any](s *Source[T]) *Source[T] {
	c := *s
	c.style = keyset.Style{Expand: true, CaseNulls: true}
	for i := range 2 {
		c.orderBy[i], c.orderArgs[i] = keyset.OrderBy(c.order, i == 1, c.style)
	}
	return &c
}
