package session

import "github.com/pi-rpc/pi-rpc/sessionapi"

// CommandSet is what a session asks of its slash commands (package resources: pi's prompt
// templates and Agent Skills).
type CommandSet interface {
	// Commands lists them, in pi's order: templates, then skills.
	Commands() []sessionapi.Command
	// Expand returns text with a leading /skill:name or /template expanded, or text itself
	// when it names neither.
	Expand(text string) string
}

// Commands lists the session's slash commands; none without a CommandSet.
func (s *Supervisor) Commands() []sessionapi.Command {
	if s.cfg.Commands == nil {
		return []sessionapi.Command{}
	}
	return s.cfg.Commands.Commands()
}

// expand is what a prompt, steer or follow-up's text becomes before it enters the agent:
// the command it starts with expanded (a skill's file is read then, as pi reads it). The
// queue and the session file hold the expanded text, as pi's do.
func (s *Supervisor) expand(text string) string {
	if s.cfg.Commands == nil || len(text) == 0 || text[0] != '/' {
		return text
	}
	return s.cfg.Commands.Expand(text)
}
