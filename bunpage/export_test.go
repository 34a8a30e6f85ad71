package bunpage

import (
	"github.com/boundedkit/bounded/internal/keyset"
	"github.com/uptrace/bun/dialect"
)

// Portable returns s ordering NULLs with CASE and comparing keys in the
// expanded OR form, as on engines without NULLS FIRST/LAST or row values
// (MariaDB, MySQL): both forms run on SQLite and Postgres too. As there,
// NULLs where SQLite sorts them need no CASE.
func Portable[T any](s *Source[T]) *Source[T] {
	c := *s
	low := c.db.Dialect().Name() != dialect.PG
	c.style = keyset.Style{Expand: true, CaseNulls: true, LowNulls: low, NullSafe: c.style.NullSafe}
	c.build()
	return &c
}

// The plans of a query on each engine, as CheckIndex reads them.
var (
	SQLitePlan = sqlitePlan
	PGPlan     = pgPlan
	MySQLPlan  = mysqlPlan
)
