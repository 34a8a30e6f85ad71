package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is an upstream server the proxy started: its stdin and stdout
// carry the protocol, its stderr goes to ours, the last lines kept.
type process struct {
	cmd  *exec.Cmd
	tail *tail
	// out counts the bytes of the frame being read; over limit, reads
	// fail and tooLong is set.
	out     *frameReader
	done    chan struct{} // closed when the process has exited
	waitErr error
	grace   time.Duration
}

// startProcess starts argv as an upstream server and returns it with the
// transport over its pipes. A frame of stdout over maxFrame bytes ends
// the connection.
func startProcess(argv []string, stderr io.Writer, maxFrame int, grace time.Duration) (*process, mcp.Transport, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	setGroup(cmd)
	p := &process{cmd: cmd, tail: &tail{max: 4096, w: stderr}, done: make(chan struct{}), grace: grace}
	cmd.Stderr = p.tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	p.out = &frameReader{r: stdout, limit: maxFrame}
	return p, &mcp.IOTransport{Reader: p.out, Writer: &closer{stdin, p}, MaxLineLength: -1}, nil
}

// exited says how the process ended, with the last lines it wrote to
// stderr; "" while it runs.
func (p *process) exited() string {
	select {
	case <-p.done:
	default:
		return ""
	}
	var b strings.Builder
	if p.out.tooLong() {
		fmt.Fprintf(&b, "it wrote an answer over %d bytes; ", p.out.limit)
	} else if p.out.garbage() {
		b.WriteString("it wrote what is not JSON-RPC to stdout; ")
	}
	if p.waitErr != nil {
		fmt.Fprintf(&b, "it exited: %v", p.waitErr)
	} else {
		b.WriteString("it exited")
	}
	if last := p.tail.last(); last != "" {
		fmt.Fprintf(&b, "; its last words on stderr: %q", last)
	}
	return b.String()
}

// stop ends the process and everything it started: stdin closed, then
// SIGTERM to its group after the grace period, then SIGKILL.
func (p *process) stop() {
	select {
	case <-p.done:
		killGroup(p.cmd, true) // its children, if any are left
		return
	case <-time.After(p.grace):
	}
	killGroup(p.cmd, false)
	select {
	case <-p.done:
	case <-time.After(p.grace):
	}
	killGroup(p.cmd, true)
	<-p.done
}

// closer closes the process's stdin, then stops it, when the connection
// closes.
type closer struct {
	io.WriteCloser
	p *process
}

func (c *closer) Close() error {
	err := c.WriteCloser.Close()
	c.p.stop()
	return err
}

// frameReader reads newline-delimited frames and fails a frame over limit
// bytes, so that one huge answer cannot take the proxy's memory.
type frameReader struct {
	r     io.ReadCloser
	limit int
	mu    sync.Mutex
	n     int // bytes of the current frame
	over  bool
	first bool // a frame began with something other than '{'
	start bool // the next byte starts a frame
}

// errFrameTooLong ends a connection whose peer wrote a frame over the
// limit.
var errFrameTooLong = errors.New("frame over the limit")

func (f *frameReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range p[:n] {
		switch {
		case c == '\n':
			f.n, f.start = 0, true
			continue
		case f.n == 0 && (c == ' ' || c == '\r' || c == '\t'):
			continue
		case f.n == 0 && c != '{' && c != '[':
			f.first = true
		}
		f.n++
	}
	if f.limit > 0 && f.n > f.limit {
		f.over = true
		return 0, errFrameTooLong
	}
	return n, err
}

func (f *frameReader) Close() error { return f.r.Close() }

func (f *frameReader) tooLong() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.over
}

func (f *frameReader) garbage() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first
}

// tail writes to w and keeps the last max bytes written.
type tail struct {
	mu  sync.Mutex
	w   io.Writer
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	t.mu.Unlock()
	if t.w != nil {
		t.w.Write(p)
	}
	return len(p), nil
}

// last returns the last non-empty line written, cut to 300 bytes.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	s := strings.TrimSpace(string(lines[len(lines)-1]))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// dialer connects to the upstream once: a process over stdio, or a
// streamable HTTP endpoint.
type dialer func(ctx context.Context) (mcp.Transport, *process, error)

func commandDialer(argv []string, maxFrame int, grace time.Duration) dialer {
	return func(ctx context.Context) (mcp.Transport, *process, error) {
		p, t, err := startProcess(argv, os.Stderr, maxFrame, grace)
		return t, p, err
	}
}
