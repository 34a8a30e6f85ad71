package profile_test

import (
	"fmt"

	"github.com/boundedkit/bounded/profile"
)

func ExampleSet_For() {
	profiles := profile.Default()
	for _, client := range []string{"claude-code", "codex-mcp-client", "gemini-cli-mcp-client", "inspector-cli"} {
		fmt.Println(profiles.For(client).Describe())
	}
	// Output:
	// claude-code: 45,000 characters, 22,500 tokens
	// codex: 9,216 characters, 3,291 tokens, 256 lines, 10,240 bytes
	// gemini-cli: 36,000 characters, 12,857 tokens
	// unknown: 9,216 characters, 3,291 tokens, 256 lines, 10,240 bytes
}

func ExampleSet_Override() {
	profiles := profile.Default()
	limits, err := profile.ParseLimits("chars=20000,lines=1000")
	if err != nil {
		panic(err)
	}
	profiles.Override(profile.Codex, limits)
	fmt.Println(profiles.For("codex-mcp-client").Describe())
	// Output:
	// codex: 18,000 characters, 6,428 tokens, 1,000 lines, 10,240 bytes
}
