module github.com/boundedkit/bounded

go 1.26
