package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/tools"
)

// Instructions is the sentence a server's instructions (mcp.ServerOptions)
// say once for every bounded tool, so that no tool description repeats
// it.
const Instructions = "Every tool answers with one JSON envelope: results, pagination, truncation, a hint and next. " +
	"To read on, call the same tool with the arguments in next, and those nextKeeps names as you sent them; when next is absent you have everything. " +
	"budget and budgetTokens lower a response's size, e.g. to what is left of your context."

// MetaMaxResultSizeChars is the key of a tool's _meta that tells a client
// the most characters one of its results has, so that it does not write a
// result that size to a file instead (Claude Code does over 50,000
// characters unless a tool declares more, up to 500,000). Its value is the
// tool's budget's LimitChars: characters are code points, as
// bounded.Budget counts them.
const MetaMaxResultSizeChars = "anthropic/maxResultSizeChars"

// EnvMaxOutputTokens is the environment variable that sets a client's
// limit on one tool result in tokens (Claude Code's, 25,000 by default).
// A server started by the client inherits it: see [ClientBudget].
const EnvMaxOutputTokens = "MAX_MCP_OUTPUT_TOKENS"

// ErrMaxOutputTokens is matched by the error of a MAX_MCP_OUTPUT_TOKENS
// that cannot be honoured: not a positive integer, or a limit no
// response fits in.
var ErrMaxOutputTokens = errors.New("mcptools: " + EnvMaxOutputTokens + " cannot be honoured")

// ClientBudget returns b lowered to the limit the environment's
// MAX_MCP_OUTPUT_TOKENS sets, when it is a positive integer that leaves
// fewer tokens than b does: MaxTokens becomes that number, and b's margin
// keeps a response below it. Otherwise it returns b. [AddTool] and
// [AddPagedTool] apply it to their budget; pass a tools.Config's Budget
// through it too.
//
// A value that is not a positive integer is ignored. One that leaves
// fewer than tools.MinBudgetTokens is raised to that, or to b's own limit
// if lower. Either is logged once, as a warning to b.Logger, or
// slog.Default when nil; [LoadClientBudget] returns it as an error.
func ClientBudget(b bounded.Budget) bounded.Budget {
	out, err := LoadClientBudget(b)
	if err != nil {
		report(b.Logger, err)
	}
	return out
}

// LoadClientBudget returns the budget [ClientBudget] returns and, when
// MAX_MCP_OUTPUT_TOKENS is set to a value it ignores or raises, an error
// matching [ErrMaxOutputTokens] that says so. The budget is usable
// either way. An invalid b is returned as it is.
func LoadClientBudget(b bounded.Budget) (bounded.Budget, error) {
	n, err := envMaxTokens()
	own := b.LimitTokens()
	if err != nil || n == 0 || own == 0 {
		return b, err
	}
	lowered := b
	lowered.MaxTokens = n
	leaves := lowered.LimitTokens() // 0 for an invalid budget
	if leaves >= tools.MinBudgetTokens {
		if leaves < own {
			return lowered, nil
		}
		return b, nil
	}
	least := min(tools.MinBudgetTokens, own)
	err = fmt.Errorf("%w: %d leaves %d tokens after the margin, under the minimum %d: the limit is %d tokens",
		ErrMaxOutputTokens, n, leaves, tools.MinBudgetTokens, least)
	if least == own {
		return b, err
	}
	// The fewest MaxTokens that leave least tokens after the margin.
	margin := b.Margin
	if margin == 0 {
		margin = bounded.DefaultMargin
	}
	lowered.MaxTokens = int(math.Ceil(float64(least) / margin))
	for lowered.LimitTokens() < least {
		lowered.MaxTokens++
	}
	return lowered, err
}

// envMaxTokens is MAX_MCP_OUTPUT_TOKENS: 0 when unset or empty, the
// largest int when over it, and an error matching ErrMaxOutputTokens when
// not a positive integer.
func envMaxTokens() (int, error) {
	v := os.Getenv(EnvMaxOutputTokens)
	s := strings.TrimSpace(v)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err == nil && n > 0:
		return n, nil
	case errors.Is(err, strconv.ErrRange) && s[0] != '-':
		return math.MaxInt, nil
	}
	return 0, fmt.Errorf("%w: %s is not a positive integer: it is ignored", ErrMaxOutputTokens, show(v))
}

// reported holds the values of MAX_MCP_OUTPUT_TOKENS report logged, by
// logger.
var reported sync.Map

// report logs err, the error of MAX_MCP_OUTPUT_TOKENS' value, as a
// warning to l (slog.Default when nil), unless it logged one for that
// value to l before.
func report(l *slog.Logger, err error) {
	if l == nil {
		l = slog.Default()
	}
	type key struct {
		l     *slog.Logger
		value string
	}
	if _, dup := reported.LoadOrStore(key{l, os.Getenv(EnvMaxOutputTokens)}, true); !dup {
		l.Warn(err.Error())
	}
}

// result is the tool result of an envelope: its JSON as text, for clients
// that read content, and the same bytes as structuredContent, for those
// that read that. Clients give the model one of the two, so the budget
// counts the envelope once.
func result(env []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(env)}},
		StructuredContent: json.RawMessage(env),
	}
}

// errorResult is the tool result of a failed call: its message, with
// isError set, so that the agent reads it and corrects its call. A cursor
// the call cannot use gets a message that says what to do instead. The
// message is cut in the middle to b's limits.
func errorResult(tool string, b bounded.Budget, err error) *mcp.CallToolResult {
	var ae *tools.ArgumentError
	switch {
	case errors.As(err, &ae):
		if err == error(ae) { // the name and reason as argError clips them
			err = argError(ae.Tool, ae.Argument, ae.Reason, ae.Kind)
		}
	case errors.Is(err, driver.ErrCursorForeign):
		err = argError(tool, "cursor", "the cursor belongs to another query: it works only with the arguments of the call that returned it. Call again with those, or omit cursor to start over", err)
	case errors.Is(err, bounded.ErrInvalidCursor):
		err = argError(tool, "cursor", "not a cursor this tool returned, or altered: pass pagination.nextCursor as it came, with the same arguments, or omit cursor to start over", err)
	case !strings.HasPrefix(err.Error(), tool+": "):
		err = fmt.Errorf("%s: %w", tool, err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fitText(err.Error(), b)}}}
	res.SetError(err)
	return res
}

// maxReason is the most characters of an argument error's reason.
const maxReason = 240

// argError is the error of a bad argument: a *tools.ArgumentError, which
// matches tools.ErrInvalidArguments and kind. The name is cut as cut
// cuts, the reason in the middle to maxReason characters.
func argError(tool, arg, reason string, kind error) error {
	return &tools.ArgumentError{Tool: tool, Argument: cut(arg), Reason: clipMiddle(reason, maxReason), Kind: kind}
}

// fitText returns s cut in the middle to b's limits: LimitChars
// characters and LimitTokens tokens, as b counts them.
func fitText(s string, b bounded.Budget) string {
	most, limit := b.LimitChars(), b.LimitTokens()
	out := clipMiddle(s, most)
	for range 8 {
		n := b.CountTokens(out)
		if n <= limit || most <= 1 {
			break
		}
		most = min(most-1, int(float64(most)*float64(limit)/float64(n)*0.95))
		out = clipMiddle(s, max(most, 1))
	}
	return out
}

// clipMiddle returns s with runes cut from its middle, 2/3 of those kept
// before and 1/3 after a marker, "…[truncated 1,234 chars]…", so that it
// has most runes at most.
func clipMiddle(s string, most int) string {
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
