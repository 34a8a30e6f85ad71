package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stableRun is how long an upstream must have run for its next restart to
// wait the base backoff again; a shorter run doubles the wait.
const stableRun = time.Minute

// maxBackoff caps the wait before a restart.
const maxBackoff = time.Minute

// link is one connection to the upstream: one process, or one HTTP
// session.
type link struct {
	cs      *mcp.ClientSession
	proc    *process
	started time.Time
	ended   chan struct{} // closed when the connection has closed
	reason  string        // why it ended, once ended is closed
}

// grace is how long a failed request waits to learn why the link ended:
// a process's exit takes longer to see than a closed HTTP session.
func (l *link) grace() time.Duration {
	if l.proc != nil {
		return 3 * time.Second
	}
	return 200 * time.Millisecond
}

// wait waits up to d for the link to end and returns why it did, or ""
// if it did not.
func (l *link) wait(d time.Duration) string {
	select {
	case <-l.ended:
		return l.reason
	case <-time.After(d):
		return ""
	}
}

// upstream keeps the proxy connected to the upstream server: when the
// connection ends, it reconnects once after a backoff, and if that fails
// it stays down, saying why.
type upstream struct {
	dial    dialer
	client  *mcp.Client
	proto   string // the protocol version asked for; "" for the latest
	backoff time.Duration
	log     *slog.Logger
	// onUp runs after each reconnection, before calls use it.
	onUp func(ctx context.Context, cs *mcp.ClientSession)

	mu      sync.Mutex
	cur     *link
	down    string // why there is no connection; "" while connected
	wait    time.Duration
	closed  bool
	restart *time.Timer
	watched sync.WaitGroup
}

// start makes the first connection.
func (u *upstream) start(ctx context.Context) (*mcp.ClientSession, error) {
	u.wait = u.backoff
	l, err := u.connect(ctx)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	u.cur = l
	u.mu.Unlock()
	return l.cs, nil
}

// connect connects once and watches the connection.
func (u *upstream) connect(ctx context.Context) (*link, error) {
	t, proc, err := u.dial(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := u.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: u.proto})
	if err != nil {
		if proc != nil {
			go proc.stop()
			if why := proc.exited(); why != "" {
				err = fmt.Errorf("%w (%s)", err, why)
			}
		}
		return nil, err
	}
	l := &link{cs: cs, proc: proc, started: time.Now(), ended: make(chan struct{})}
	u.watched.Add(1)
	go u.watch(l)
	return l, nil
}

// watch waits for l to end and schedules the restart.
func (u *upstream) watch(l *link) {
	defer u.watched.Done()
	err := l.cs.Wait()
	reason := "the connection closed"
	if l.proc != nil {
		select {
		case <-l.proc.done:
		case <-time.After(2 * time.Second):
		}
		if why := l.proc.exited(); why != "" {
			reason = why
		}
	} else if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		reason = fmt.Sprintf("the connection failed: %v", err)
	}
	l.cs.Close()
	u.mu.Lock()
	defer u.mu.Unlock()
	l.reason = reason
	close(l.ended)
	if u.closed || u.cur != l {
		return
	}
	if time.Since(l.started) < stableRun {
		u.wait = min(2*u.wait, maxBackoff)
	} else {
		u.wait = u.backoff
	}
	u.cur = nil
	u.down = fmt.Sprintf("%s; it is being restarted in %s", reason, u.wait)
	u.log.Warn("upstream ended; restarting", "reason", reason, "in", u.wait)
	u.restart = time.AfterFunc(u.wait, func() { u.reconnect(reason) })
}

// reconnect restarts the upstream once, after it ended for reason.
func (u *upstream) reconnect(reason string) {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return
	}
	u.watched.Add(1)
	u.mu.Unlock()
	defer u.watched.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := u.connect(ctx)
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		if l != nil {
			l.cs.Close()
		}
		return
	}
	if err != nil {
		u.down = fmt.Sprintf("%s; restarting it failed: %v", reason, err)
		u.mu.Unlock()
		u.log.Error("upstream restart failed; it stays down", "err", err)
		return
	}
	u.mu.Unlock()
	if u.onUp != nil {
		u.onUp(ctx, l.cs)
	}
	u.mu.Lock()
	u.cur, u.down = l, ""
	u.mu.Unlock()
	u.log.Info("upstream restarted")
}

// current returns the connection calls use, or an error saying why there
// is none.
func (u *upstream) current() (*link, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cur == nil {
		if u.closed {
			return nil, errors.New("the proxy is shutting down")
		}
		return nil, errors.New(u.down)
	}
	return u.cur, nil
}

// reset ends l, whose connection failed, so that it is restarted.
func (u *upstream) reset(l *link) { l.cs.Close() }

// close ends the connection and its process, and waits for them.
func (u *upstream) close() {
	u.mu.Lock()
	u.closed = true
	l := u.cur
	if u.restart != nil {
		u.restart.Stop()
	}
	u.mu.Unlock()
	if l != nil {
		l.cs.Close()
		if l.proc != nil {
			l.proc.stop()
		}
	}
	u.watched.Wait()
}
