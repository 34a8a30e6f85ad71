package bunpage

import "github.com/boundedkit/bounded/internal/keyset"

// Portable returns s ordering NULLs with CASE and comparing keys in the
// expanded OR form, as on engines without NULLS FIRST/LAST or row values
// (MySQL, SQL Server): both forms run on SQLite and Postgres too.
func Portable[T any](s *Source[T]) *Source[T] {
	c := *s
	c.style = keyset.Style{Expand: true, CaseNulls: true}
	c.build()
	return &c
}

// The plans of a query on each engine, as CheckIndex reads them.
var (
	SQLitePlan = sqlitePlan
	PGPlan     = pgPlan
	MySQLPlan  = mysqlPlan
)
