package pimode

import (
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// piCommand is one entry of get_commands as pi 1.6.0 lists it (rpc-commands.md): no
// argument hint, which pi's list does not carry.
type piCommand struct {
	Name        string                       `json:"name"`
	Description string                       `json:"description"`
	Source      sessionapi.CommandSource     `json:"source"`
	SourceInfo  sessionapi.CommandSourceInfo `json:"sourceInfo"`
}

// getCommands lists the session's prompt templates, then its skills (as skill:name), as pi
// does; pi-rpc has no extension commands. prompt, steer and follow_up expand them (the
// session does).
func (s *Server) getCommands(r *request) error {
	list := []piCommand{}
	for _, c := range s.sup.Commands() {
		list = append(list, piCommand{Name: c.Name, Description: c.Description, Source: c.Source, SourceInfo: c.SourceInfo})
	}
	s.w.Write(success(r.id, r.typ, struct {
		Commands []piCommand `json:"commands"`
	}{list}))
	return nil
}
