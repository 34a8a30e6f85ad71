// Package profile holds what MCP clients do with a tool result over their
// limit, client by client, as budgets: the limits a result must keep to
// for the client to show it whole. A server learns the client's name at
// initialize and picks its profile with [Set.For]; an unknown client gets
// the most conservative one.
//
// bounded-mcp chooses every call's budget this way. A server of its own
// passes [Set.BudgetFor] to package mcpresult, and a server of mcptools
// tools adds [Middleware], which lowers their budget and budgetTokens
// arguments to the caller's profile:
//
//	profiles := profile.Default()
//	server.AddReceivingMiddleware(profile.Middleware(profiles))
//	mcpresult.Serve(server, bounder, mcpresult.Options{BudgetFor: profiles.BudgetFor})
package profile

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
)

// Profile is one client's limits on a tool result.
type Profile struct {
	// Name names the profile, e.g. "claude-code".
	Name string
	// Clients are the client names it applies to, as clients give them
	// at initialize: lower-case patterns of path.Match, e.g. "codex*".
	Clients []string
	// Budget caps a result's characters and tokens.
	Budget bounded.Budget
	// MaxLines and MaxBytes cap the lines and UTF-8 bytes of a result's
	// text; 0 means no cap.
	MaxLines, MaxBytes int
	// Source says where the figures come from.
	Source string
}

// Names of the built-in profiles.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	GeminiCLI  = "gemini-cli"
	CopilotCLI = "copilot-cli"
	VSCode     = "vscode"
	Unknown    = "unknown"
)

// margin is the share of a client's own limit a profile allows.
const margin = bounded.DefaultMargin

// Builtin returns the built-in profiles, the unknown client's last.
// Claude Code's token limit is lowered by MAX_MCP_OUTPUT_TOKENS when the
// environment sets it, as mcptools.ClientBudget does.
func Builtin() []Profile {
	small := bounded.Budget{MaxChars: 10 << 10, Margin: margin}
	return []Profile{
		{
			Name: ClaudeCode, Clients: []string{"claude-code"},
			Budget: mcptools.ClientBudget(bounded.ClaudeCode()),
			Source: "Claude Code's documentation (MCP output limits): a tool result over MAX_MCP_OUTPUT_TOKENS, 25,000 tokens by default, is refused, " +
				"and one over 50,000 characters is written to a file with a 2 KB preview, unless the tool declares anthropic/maxResultSizeChars",
		},
		{
			Name: Codex, Clients: []string{"codex*"}, Budget: small, MaxLines: 256, MaxBytes: 10 << 10,
			Source: "openai/codex, codex-rs/core/src/truncate.rs: MODEL_FORMAT_MAX_BYTES is 10 KiB and MODEL_FORMAT_MAX_LINES 256; " +
				"a longer tool output loses its middle (openai/codex issue 6544)",
		},
		{
			Name: GeminiCLI, Clients: []string{"gemini-cli*"}, Budget: bounded.Budget{MaxChars: 40_000, Margin: margin},
			Source: "google-gemini/gemini-cli, packages/core/src/config/config.ts: DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD is 40,000 characters; " +
				"a longer output keeps its first 20% and last 80% and goes to a file",
		},
		{
			Name: CopilotCLI, Clients: []string{"*copilot*"}, Budget: small,
			Source: "github/copilot-cli issue 1732: an MCP tool's text is cut to 10 KB (10 × 1024) before the model sees it",
		},
		{
			Name: VSCode, Clients: []string{"visual studio code*", "vscode*"}, Budget: small, MaxLines: 256, MaxBytes: 10 << 10,
			Source: "VS Code publishes no figure: it cuts a tool result to what is left of the prompt's budget (microsoft/vscode issue 311068); " +
				"it gets the unknown client's limits",
		},
		conservative(),
	}
}

// conservative is the unknown client's profile: the smallest limits of
// all.
func conservative() Profile {
	return Profile{
		Name: Unknown, Budget: bounded.Budget{MaxChars: 10 << 10, Margin: margin}, MaxLines: 256, MaxBytes: 10 << 10,
		Source: "the smallest limits above (Codex's 10 KiB and 256 lines, Copilot CLI's 10 KB), for a client not known",
	}
}

// Set is a list of profiles and the one for clients none matches. Its
// lookups are safe for concurrent use; Override must come before them.
type Set struct {
	profiles []Profile
	unknown  Profile
}

// Default returns the set of the built-in profiles.
func Default() *Set { return NewSet(Builtin()) }

// NewSet returns the set of ps. The profile named Unknown is the one for
// clients no other matches; without one it is the built-in one.
func NewSet(ps []Profile) *Set {
	s := &Set{unknown: conservative()}
	for _, p := range ps {
		p.Clients = slices.Clone(p.Clients)
		if p.Name == Unknown {
			s.unknown = p
			continue
		}
		s.profiles = append(s.profiles, p)
	}
	return s
}

// Profiles returns the set's profiles, the unknown client's last.
func (s *Set) Profiles() []Profile {
	return append(slices.Clone(s.profiles), s.unknown)
}

// For returns the profile of the client named client: the first whose
// patterns match its lower-cased name, or the unknown client's.
func (s *Set) For(client string) Profile {
	name := strings.ToLower(strings.TrimSpace(client))
	for _, p := range s.profiles {
		for _, pat := range p.Clients {
			if ok, _ := path.Match(pat, name); ok {
				return p
			}
		}
	}
	return s.unknown
}

// Named returns the profile named name.
func (s *Set) Named(name string) (Profile, bool) {
	for _, p := range s.Profiles() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Override sets the limits l gives in the profile named name, or in
// every profile when name is "*". An unknown name is an error.
func (s *Set) Override(name string, l Limits) error {
	found := false
	for i := range s.profiles {
		if name == "*" || s.profiles[i].Name == name {
			s.profiles[i], found = s.profiles[i].With(l), true
		}
	}
	if name == "*" || s.unknown.Name == name {
		s.unknown, found = s.unknown.With(l), true
	}
	if !found {
		return fmt.Errorf("profile: no profile named %q", name)
	}
	return nil
}

// Limits are limits a user sets, over or under a profile's: each field
// not 0 replaces the profile's.
type Limits struct {
	// Chars and Tokens replace Budget.MaxChars and MaxTokens.
	Chars, Tokens int
	// Lines and Bytes replace MaxLines and MaxBytes.
	Lines, Bytes int
	// Margin replaces Budget.Margin.
	Margin float64
}

// With returns p with the limits l sets.
func (p Profile) With(l Limits) Profile {
	if l.Chars > 0 {
		p.Budget.MaxChars = l.Chars
	}
	if l.Tokens > 0 {
		p.Budget.MaxTokens = l.Tokens
	}
	if l.Margin > 0 {
		p.Budget.Margin = l.Margin
	}
	if l.Lines > 0 {
		p.MaxLines = l.Lines
	}
	if l.Bytes > 0 {
		p.MaxBytes = l.Bytes
	}
	return p
}

// ErrInvalidLimits is wrapped by the errors of ParseLimits.
var ErrInvalidLimits = errors.New("profile: invalid limits")

// ParseLimits parses limits as flags give them: "chars=20000,tokens=8000"
// with any of chars, tokens, lines, bytes and margin, or a number alone
// for chars.
func ParseLimits(spec string) (Limits, error) {
	var l Limits
	spec = strings.TrimSpace(spec)
	if n, err := strconv.Atoi(spec); err == nil {
		spec = "chars=" + strconv.Itoa(n)
	}
	if spec == "" {
		return l, fmt.Errorf("%w: empty", ErrInvalidLimits)
	}
	for part := range strings.SplitSeq(spec, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return l, fmt.Errorf("%w: %q is not name=value", ErrInvalidLimits, part)
		}
		if key == "margin" {
			m, err := strconv.ParseFloat(val, 64)
			if err != nil || !(m > 0 && m <= 1) {
				return l, fmt.Errorf("%w: margin %q is not in (0, 1]", ErrInvalidLimits, val)
			}
			l.Margin = m
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(val, "_", ""))
		if err != nil || n <= 0 {
			return l, fmt.Errorf("%w: %s %q is not a positive integer", ErrInvalidLimits, key, val)
		}
		switch key {
		case "chars":
			l.Chars = n
		case "tokens":
			l.Tokens = n
		case "lines":
			l.Lines = n
		case "bytes":
			l.Bytes = n
		default:
			return l, fmt.Errorf("%w: %q is not one of chars, tokens, lines, bytes, margin", ErrInvalidLimits, key)
		}
	}
	return l, nil
}

// Fits reports whether texts, those of one result, keep to p's lines and
// bytes.
func (p Profile) Fits(texts ...string) bool {
	lines, bytes := 0, 0
	for i, t := range texts {
		bytes += len(t)
		if i > 0 || t != "" {
			lines += strings.Count(t, "\n") + 1
		}
	}
	return (p.MaxLines == 0 || lines <= p.MaxLines) && (p.MaxBytes == 0 || bytes <= p.MaxBytes)
}

// Describe says p's limits in a line, for logs and docs.
func (p Profile) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s characters, %s tokens", p.Name,
		bounded.FormatCount(p.Budget.LimitChars()), bounded.FormatCount(p.Budget.LimitTokens()))
	if p.MaxLines > 0 {
		fmt.Fprintf(&b, ", %s lines", bounded.FormatCount(p.MaxLines))
	}
	if p.MaxBytes > 0 {
		fmt.Fprintf(&b, ", %s bytes", bounded.FormatCount(p.MaxBytes))
	}
	return b.String()
}
