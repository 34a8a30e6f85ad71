//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || illumos

package postgres

import "syscall"

// socketReadable peeks at the socket without blocking or consuming
// anything: true when a read would return data, end of file or an error,
// false when it would block (nothing to read: the connection is quiet).
func socketReadable(rc syscall.RawConn) bool {
	readable := false
	var buf [1]byte
	err := rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		readable = err != syscall.EAGAIN && err != syscall.EWOULDBLOCK && err != syscall.EINTR
		return true // never wait for readability
	})
	return err != nil || readable
}
