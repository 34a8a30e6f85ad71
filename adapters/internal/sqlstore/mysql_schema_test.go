package sqlstore

import (
	"regexp"
	"strings"
	"testing"
)

// TestMySQLSchema checks that MariaDB's schema is the shared one in its
// types: every text column typed, every column named by the type maps
// present in the shared schema (a renamed column would silently become a
// key), and the primary keys over unbounded columns made prefix indexes.
func TestMySQLSchema(t *testing.T) {
	got := MySQLSchema()
	if len(got) != len(schema) {
		t.Fatalf("%d statements, want %d", len(got), len(schema))
	}
	columns := map[string]bool{}
	col := regexp.MustCompile(`(?m)^\s*(\w+) \{T\}`)
	for i, stmt := range schema {
		if strings.Contains(got[i], "{T}") {
			t.Errorf("statement %d keeps {T}:\n%s", i, got[i])
		}
		if m := mysqlCreateTable.FindStringSubmatch(stmt); m != nil {
			for _, c := range col.FindAllStringSubmatch(stmt, -1) {
				columns[m[1]+"."+c[1]] = true
			}
			if !strings.HasSuffix(got[i], mysqlTable) {
				t.Errorf("statement %d lacks the table options:\n%s", i, got[i])
			}
		}
	}
	for table, cols := range mysqlTextColumns {
		for _, c := range cols {
			if !columns[table+"."+c] {
				t.Errorf("%s.%s is not a text column of the shared schema", table, c)
			}
		}
	}
	for c := range mysqlFolded {
		if !columns[c] {
			t.Errorf("%s is not a text column of the shared schema", c)
		}
	}
	for c := range mysqlUnbounded {
		if !columns[c] {
			t.Errorf("%s is not a text column of the shared schema", c)
		}
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"term LONGBLOB NOT NULL",
		"KEY bounded_chunk_terms_pk (term(255), chunk_id)",
		"id VARBINARY(1024) NOT NULL PRIMARY KEY",
		"content " + mysqlText + " NOT NULL",
		"ON bounded_notes (updated_at DESC, id)",
		"name_fold VARBINARY(1536) NOT NULL",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the schema lacks %q", want)
		}
	}
	if strings.Contains(all, "PRIMARY KEY (term") {
		t.Errorf("bounded_chunk_terms keeps its primary key on the whole term")
	}
}
