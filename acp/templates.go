package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// skillHint is the argument hint of a skill's command: what follows /skill:name is the
// user's request, appended to the skill's instructions.
const skillHint = "what to do with the skill (optional)"

// resourceCommands are a session's prompt templates and skills as ACP commands, with their
// descriptions and argument hints. A prompt "/name args" that names none of pi-rpc's own
// commands goes to the session, which expands it (docs/skills.md). A template named like one
// of pi-rpc's own commands is shadowed by it, and left out.
func resourceCommands(list []sessionapi.Command) []sdk.AvailableCommand {
	out := make([]sdk.AvailableCommand, 0, len(list))
	for _, c := range list {
		if builtin(c.Name) {
			continue
		}
		hint := c.ArgumentHint
		if c.Source == sessionapi.CommandSkill {
			hint = skillHint
		}
		out = append(out, availableCommand(c.Name, c.Description, hint))
	}
	return out
}

func builtin(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}
