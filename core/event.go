package core

// EventType names an [Event].
type EventType string

// The agent events of pi's AgentEvent (packages/agent/src/types.ts).
const (
	AgentStart          EventType = "agent_start"
	AgentEnd            EventType = "agent_end"
	TurnStart           EventType = "turn_start"
	TurnEnd             EventType = "turn_end"
	MessageStart        EventType = "message_start"
	MessageUpdate       EventType = "message_update"
	MessageEnd          EventType = "message_end"
	ToolExecutionStart  EventType = "tool_execution_start"
	ToolExecutionUpdate EventType = "tool_execution_update"
	ToolExecutionEnd    EventType = "tool_execution_end"
)

// EventTypes lists every core event type, for tests that walk them all.
var EventTypes = []EventType{
	AgentStart, AgentEnd, TurnStart, TurnEnd, MessageStart, MessageUpdate, MessageEnd,
	ToolExecutionStart, ToolExecutionUpdate, ToolExecutionEnd,
}

// Event is one agent event. It is passed by value to listeners; which fields apply depends on
// Type, and the JSON form has exactly pi's fields for that type.
//
// Pointers in an event refer to the agent's own data: the message of a message_update is the
// live partial message, valid only during the listener call; other messages are final and
// must not be modified.
type Event struct {
	Type EventType

	// Message is the message of message_start/update/end and the assistant message of
	// turn_end.
	Message Message
	// InputID is set on message_start and message_end of a user message that an input
	// (prompt, steer, follow-up) produced.
	InputID string
	// Update is the provider event of a message_update.
	Update *AssistantEvent

	// ToolCallID, ToolName and Args identify the call of a tool_execution_* event; Args are
	// the raw arguments of the call as the model sent them.
	ToolCallID string
	ToolName   string
	Args       map[string]any
	// Result is the result of tool_execution_end and the partial result of
	// tool_execution_update.
	Result  *ToolResult
	IsError bool
	// DurationMs is how long the tool ran (tool_execution_end); nil when it did not run.
	DurationMs *int64

	// ToolResults are the results of the turn's tool batch, in source order (turn_end).
	ToolResults []*ToolResultMessage
	// Messages are the messages the run produced (agent_end).
	Messages []Message
	// WillRetry is set on agent_end by the session layer when it will retry or
	// compact-and-continue; core leaves it false.
	WillRetry bool
}
