//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || illumos

package postgres

import "syscall"

// socketReadable peeks at the socket without blocking or consuming
// anything: true when a read would return data, end of file or an error,
// false when it would block (nothing to read: the connection is quiet).
// It does not wait for a read in progress on the connection, which
// RawConn.Read would: pgx's background reader may sit in one on an idle
// connection until the server sends something.
func socketReadable(rc syscall.RawConn) bool {
	readable := false
	var buf [1]byte
	err := rc.Control(func(fd uintptr) {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		readable = err != syscall.EAGAIN && err != syscall.EWOULDBLOCK && err != syscall.EINTR
	})
	return err != nil || readable
}
