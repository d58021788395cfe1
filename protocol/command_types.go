package protocol

import "github.com/pi-rpc/pi-rpc/sessionapi"

// MethodListCommands lists a session's slash commands (docs/protocol.md#listcommands).
const MethodListCommands = "listCommands"

// ListCommandsResult is listCommands' result: the templates, then the skills.
type ListCommandsResult struct {
	Commands []sessionapi.Command `json:"commands"`
}

func init() {
	MethodTypes = append(MethodTypes,
		MethodType{Name: MethodListCommands, Description: "Lists the session's prompt templates and skills, which prompt, steer and followUp expand.", Params: SessionParams{}, Result: ListCommandsResult{}},
	)
}
