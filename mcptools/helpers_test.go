package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for a transport's goroutine and the
// test's.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written since the last take.
func (b *syncBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

// logRecorder is a slog.Handler that keeps the messages it handles.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	return nil
}

// messages returns the messages handled so far.
func (r *logRecorder) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

// ids are the "id" fields of results, as JSON.
func ids(t *testing.T, results []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range results {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.ID == nil {
			t.Fatalf("a result without an id: %s (%v)", raw, err)
		}
		out = append(out, string(r.ID))
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(v, err))
	}
	return string(b)
}
