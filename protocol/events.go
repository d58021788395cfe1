package protocol

import (
	"github.com/invopop/jsonschema"
)

// Every event reaches the client as the params of an "event" notification: one flat object
// holding the event's type, its own fields and the envelope fields seq, runId and (on
// agent_start, agent_settled and session_changed) sessionId. The names type, seq, runId and
// sessionId are reserved: no event uses them for a field of its own. The types that document
// each event (AgentStartEvent, ..., and the assistant-message steps TextStart, ...) are in
// events_gen.go, which go generate writes from internal/eventjson's description of the
// events (protocol/internal/genevents); schema.json is generated from them, and tests
// validate what core and session really emit against it. The envelopes and payload types
// they embed are here.

// Envelope holds the envelope fields of events outside a run's agent_start..agent_end.
type Envelope struct {
	// Seq numbers the connection's events from 1, without gaps.
	Seq int64 `json:"seq"`
	// RunID is the run the event belongs to, present when a run is active.
	RunID string `json:"runId,omitempty"`
}

// RunEnvelope holds the envelope fields of the core events, which always belong to a run.
type RunEnvelope struct {
	// Seq numbers the connection's events from 1, without gaps.
	Seq int64 `json:"seq"`
	// RunID is the run the event belongs to ("r1", "r2", ...): every event from agent_start
	// to agent_end inclusive carries it.
	RunID string `json:"runId"`
}

// MCPServerStatusUpdate is the payload of mcp_server_status: the server's status, as
// listTools reports it, and the number of its tools.
type MCPServerStatusUpdate struct {
	MCPServerStatus
	// ToolCount is the number of the server's tools the agent is offered (0 unless
	// connected).
	ToolCount int `json:"toolCount"`
}

// Event is any event, told apart by type.
type Event struct{}

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (Event) JSONSchema() *jsonschema.Schema { return union(defNames(eventDefs)...) }

// EventTypes lists every event type, core's and the session's, in the order of docs/events.md.
var EventTypes = func() []string {
	names := make([]string, len(eventDefs))
	for i, d := range eventDefs {
		names[i] = d.name
	}
	return names
}()

// EventDocTypes maps every event type to a zero value of the type that documents it.
var EventDocTypes = func() map[string]any {
	m := make(map[string]any, len(eventDefs))
	for _, d := range eventDefs {
		m[d.name] = d.doc
	}
	return m
}()

// AssistantEventDocTypes lists a zero value of each type that documents a step of a
// message_update's assistantMessageEvent (TextStart, ...), in the order of docs/events.md.
var AssistantEventDocTypes = func() []any {
	docs := make([]any, len(stepDefs))
	for i, d := range stepDefs {
		docs[i] = d.doc
	}
	return docs
}()

// eventDef is an event or step type, its documentation type's name and a zero value of it.
type eventDef struct {
	name string
	def  string
	doc  any
}

// defNames lists the documentation types' names.
func defNames(defs []eventDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.def
	}
	return names
}

// PermissionRequestParams are the params of permission/request, the server's request for
// permission to run a tool call.
type PermissionRequestParams struct {
	// RequestID identifies the request in permission_requested and permission_resolved.
	RequestID string `json:"requestId"`
	// SessionID names the session asking, once the connection has several.
	SessionID  string `json:"sessionId,omitempty"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Args are the call's validated arguments.
	Args map[string]any `json:"args"`
}

// PermissionRequestResult is the client's answer to permission/request. An error response or
// an unknown decision counts as deny, with its text as the reason.
type PermissionRequestResult struct {
	// Decision allows this call, denies it, or allows this tool until the session changes.
	Decision string `json:"decision" jsonschema:"enum=allow,enum=deny,enum=allowAlways"`
	// Reason is shown to the model when the call is denied.
	Reason string `json:"reason,omitempty"`
}
