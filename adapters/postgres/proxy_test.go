package postgres_test

import (
	"net"
	"sync"
	"testing"
)

// proxy is a TCP proxy between the tests' stores and the Postgres server,
// which a test controls to simulate faults without touching the server
// (shared with other packages' tests running at the same time):
//
//   - Stall holds every byte the server sends (a query runs, its answer
//     never comes) until Flow;
//   - Cut closes every connection and refuses new ones (a server that went
//     down: connections end, dials fail with "connection refused") until
//     Restore, which listens again on the same address (a server back up).
type proxy struct {
	t      testing.TB
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	gate  chan struct{} // closed while bytes flow to the client
	wg    sync.WaitGroup
}

// newProxy starts a proxy to target on 127.0.0.1 and stops it when t ends.
func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &proxy{t: t, addr: ln.Addr().String(), target: target, conns: map[net.Conn]bool{}, gate: make(chan struct{})}
	close(p.gate)
	p.serve(ln)
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's address, host:port.
func (p *proxy) Addr() string { return p.addr }

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln { // cut meanwhile
				p.mu.Unlock()
				c.Close()
				s.Close()
				continue
			}
			p.conns[c], p.conns[s] = true, true
			p.mu.Unlock()
			done := make(chan struct{})
			var once sync.Once
			end := func() {
				once.Do(func() {
					close(done)
					c.Close()
					s.Close()
					p.mu.Lock()
					delete(p.conns, c)
					delete(p.conns, s)
					p.mu.Unlock()
				})
			}
			p.wg.Add(2)
			go p.pipe(s, c, nil, done, end)
			go p.pipe(c, s, p.gateNow, done, end)
		}
	}()
}

// gateNow returns the channel to wait on before passing bytes to a client.
func (p *proxy) gateNow() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gate
}

// pipe copies src to dst, waiting for gate (when set) before each write,
// and ends the connection pair when either side ends.
func (p *proxy) pipe(dst, src net.Conn, gate func() chan struct{}, done chan struct{}, end func()) {
	defer p.wg.Done()
	defer end()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if gate != nil {
				select {
				case <-gate():
				case <-done:
					return
				}
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Stall holds the server's bytes until Flow.
func (p *proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
		p.gate = make(chan struct{})
	default:
	}
}

// Flow lets the server's bytes through again, those held first.
func (p *proxy) Flow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
}

// Cut closes every connection and stops listening: dials are refused.
func (p *proxy) Cut() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	conns := p.conns
	p.conns = map[net.Conn]bool{}
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for c := range conns {
		c.Close()
	}
}

// Restore listens again on the proxy's address.
func (p *proxy) Restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *proxy) close() {
	p.Flow()
	p.Cut()
	p.wg.Wait()
}
