// Package reply writes the tool results of bounded tools: an envelope, or
// an error the agent can act on, within the tool's budget.
package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/toolargs"
)

// Result is the tool result of an envelope: its JSON as text, for clients
// that read content, and the same bytes as structuredContent, for those
// that read that. Clients give the model one of the two, so the budget
// counts the envelope once.
func Result(env []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(env)}},
		StructuredContent: json.RawMessage(env),
	}
}

// Error is the tool result of a failed call: its message, with
// isError set, so that the agent reads it and corrects its call. A cursor
// the call cannot use gets a message that says what to do instead. The
// message is cut in the middle to b's limits.
func Error(tool string, b bounded.Budget, err error) *mcp.CallToolResult {
	var ae *toolargs.ArgumentError
	switch {
	case errors.As(err, &ae):
		if err == error(ae) { // the name and reason as ArgError clips them
			err = ArgError(ae.Tool, ae.Argument, ae.Reason, ae.Kind)
		}
	case errors.Is(err, driver.ErrCursorForeign):
		err = ArgError(tool, "cursor", "the cursor belongs to another query: it works only with the arguments of the call that returned it. Call again with those, or omit cursor to start over", err)
	case errors.Is(err, bounded.ErrInvalidCursor):
		err = ArgError(tool, "cursor", "not a cursor this tool returned, or altered: pass pagination.nextCursor as it came, with the same arguments, or omit cursor to start over", err)
	case !strings.HasPrefix(err.Error(), tool+": "):
		err = fmt.Errorf("%s: %w", tool, err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fitText(err.Error(), b)}}}
	res.SetError(err)
	return res
}

// serverError is the error of a tool that failed on the server's side,
// e.g. a query the database refused. Its message tells the model what
// to do; the cause is for the server's log.
type serverError struct {
	tool string
	err  error
}

func (e *serverError) Error() string {
	return e.tool + ": the results could not be read, for a reason on the server's side, not in your arguments: " +
		"call again later, and tell the user if it persists"
}

func (e *serverError) Unwrap() error { return e.err }

// ServerError returns err, an error of tool on the server's side, as
// the model should read it, and logs it to l (slog.Default when nil).
func ServerError(ctx context.Context, l *slog.Logger, tool string, err error) error {
	if l == nil {
		l = slog.Default()
	}
	l.ErrorContext(ctx, "reading a tool's results failed", "tool", tool, "err", err)
	return &serverError{tool: tool, err: err}
}

// maxReason is the most characters of an argument error's reason.
const maxReason = 240

// ArgError is the error of a bad argument: a *toolargs.ArgumentError,
// which matches toolargs.ErrInvalidArguments and kind. The name is cut as cut
// cuts, the reason in the middle to maxReason characters.
func ArgError(tool, arg, reason string, kind error) error {
	return &toolargs.ArgumentError{Tool: tool, Argument: toolargs.Cut(arg), Reason: ClipMiddle(reason, maxReason), Kind: kind}
}

// fitText returns s cut in the middle to b's limits: LimitChars
// characters and LimitTokens tokens, as b counts them.
func fitText(s string, b bounded.Budget) string {
	most, limit := b.LimitChars(), b.LimitTokens()
	out := ClipMiddle(s, most)
	for range 8 {
		n := b.CountTokens(out)
		if n <= limit || most <= 1 {
			break
		}
		most = min(most-1, int(float64(most)*float64(limit)/float64(n)*0.95))
		out = ClipMiddle(s, max(most, 1))
	}
	return out
}

// ClipMiddle returns s with runes cut from its middle, 2/3 of those kept
// before and 1/3 after a marker, "…[truncated 1,234 chars]…", so that it
// has most runes at most.
func ClipMiddle(s string, most int) string {
	n := utf8.RuneCountInString(s)
	if n <= most {
		return s
	}
	marker := func(removed int) string { return "…[truncated " + bounded.FormatCount(removed) + " chars]…" }
	keep := most - utf8.RuneCountInString(marker(n)) // no marker is longer
	if keep <= 0 {
		return string([]rune(s)[:max(most, 0)])
	}
	head, tail := keep-keep/3, keep/3
	var hi, ti int // the bytes of the head, and where the tail begins
	i := 0
	for at := range s {
		if i == head {
			hi = at
		}
		if i == n-tail {
			ti = at
			break
		}
		i++
	}
	if tail == 0 {
		ti = len(s)
	}
	return s[:hi] + marker(n-keep) + s[ti:]
}

// Show writes v as JSON for an error message, cut as toolargs.Cut cuts.
func Show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return toolargs.Cut(fmt.Sprint(v))
	}
	return toolargs.Cut(string(b))
}
