package protocol

import "github.com/pi-rpc/pi-rpc/sessionapi"

// Methods of the user's own shell commands (docs/protocol.md#shell-methods).
const (
	MethodBash      = "bash"
	MethodAbortBash = "abortBash"
)

// BashParams are bash's params: a command the user runs directly, whose output streams as
// bash_update events and whose bashExecution message enters the model context.
type BashParams struct {
	SessionParams
	Command string `json:"command"`
	// Timeout, in seconds, kills the command; absent or 0 means none.
	Timeout float64 `json:"timeout,omitempty"`
}

// AbortBashResult is abortBash's result: whether a command was running.
type AbortBashResult struct {
	Aborted bool `json:"aborted"`
}

func init() {
	MethodTypes = append(MethodTypes,
		MethodType{Name: MethodBash, Description: "Run a shell command for the user; answers when it ends.", Params: BashParams{}, Result: sessionapi.BashResult{}},
		MethodType{Name: MethodAbortBash, Description: "Kill the running bash command.", Params: SessionParams{}, Result: AbortBashResult{}},
	)
}
