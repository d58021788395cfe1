package protocol

import "github.com/pi-rpc/pi-rpc/sessionapi"

// MethodListCommands lists a session's slash commands (docs/protocol.md#listcommands).
const MethodListCommands = "listCommands"

// Command is one slash command: a prompt template (/name) or an Agent Skill (/skill:name).
// prompt, steer and followUp expand a message that starts with one (docs/skills.md).
type Command = sessionapi.Command

// CommandSourceInfo is where a command's file came from.
type CommandSourceInfo = sessionapi.CommandSourceInfo

// ListCommandsResult is listCommands' result: the templates, then the skills.
type ListCommandsResult struct {
	Commands []Command `json:"commands"`
}

func init() {
	MethodTypes = append(MethodTypes,
		MethodType{Name: MethodListCommands, Description: "Lists the session's prompt templates and skills, which prompt, steer and followUp expand.", Params: SessionParams{}, Result: ListCommandsResult{}},
	)
}
