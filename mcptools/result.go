package mcptools

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools/internal/reply"
	"github.com/boundedkit/bounded/toolargs"
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
// fewer than toolargs.MinBudgetTokens is raised to that, or to b's own limit
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
	if leaves >= toolargs.MinBudgetTokens {
		if leaves < own {
			return lowered, nil
		}
		return b, nil
	}
	least := min(toolargs.MinBudgetTokens, own)
	err = fmt.Errorf("%w: %d leaves %d tokens after the margin, under the minimum %d: the limit is %d tokens",
		ErrMaxOutputTokens, n, leaves, toolargs.MinBudgetTokens, least)
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
	return 0, fmt.Errorf("%w: %s is not a positive integer: it is ignored", ErrMaxOutputTokens, reply.Show(v))
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
