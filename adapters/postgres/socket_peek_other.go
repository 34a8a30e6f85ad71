//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || illumos)

package postgres

import "syscall"

// socketReadable cannot peek at a socket on this platform: it reports
// false, and stale connections are found by pgx's ping after a second of
// idleness, or by the call that uses them.
func socketReadable(syscall.RawConn) bool { return false }
