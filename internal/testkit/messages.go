package testkit

import "github.com/pi-rpc/pi-rpc/core"

// Roles are the messages' roles, in order.
func Roles(ms []core.Message) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, string(m.Role()))
	}
	return out
}

// UserTexts are the texts of a model request's user messages, in order.
func UserTexts(req *core.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if u, ok := m.(*core.UserMessage); ok {
			out = append(out, core.TextOf(u.Content))
		}
	}
	return out
}
