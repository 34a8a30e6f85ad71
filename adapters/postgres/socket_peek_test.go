//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris || illumos

package postgres

import (
	"net"
	"testing"
	"time"
)

// TestClosedByServerBesideRead checks that peeking at a connection does
// not wait for a read in progress on it (pgx's background reader may sit
// in one on an idle connection), and that it sees the server's end of
// file.
func TestClosedByServerBesideRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	server := <-accepted
	if closedByServer(c) {
		t.Fatal("a quiet connection reads as closed")
	}
	// A reader waits on the connection, as pgx's background reader does.
	read := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := c.Read(b[:])
		read <- err
	}()
	time.Sleep(50 * time.Millisecond)
	peeked := make(chan bool, 1)
	go func() { peeked <- closedByServer(c) }()
	select {
	case got := <-peeked:
		if got {
			t.Error("a quiet connection with a read waiting reads as closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the peek waits for the read in progress")
	}
	server.Close()
	<-read
	if !closedByServer(c) {
		t.Error("a connection the server closed does not read as closed")
	}
}
