// Package peerbench benchmarks bunpage against its peers: the same page
// read by a hand-written bun query, and by gorm with
// github.com/pilagod/gorm-cursor-paginator. It is a module of its own, so
// that gorm never enters bounded's go.mod; go test ./... at the root does
// not run it. From this directory:
//
//	BOUNDED_PG_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' BOUNDED_BENCH_ROWS=1000000 go test -run '^$' -bench Peers -benchtime 60x -count 5 -timeout 1h -v
package peerbench
