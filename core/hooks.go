package core

// This file holds what the loop exchanges with its owner between events: the queues it pulls
// inputs from and what the tool-call and turn hooks of [Options] see and return.

// QueueMode says how many queued messages one delivery takes. The queues belong to whoever
// fills them (the session); core only pulls from them through [Queues], and this type is
// part of the data model so that front ends and the session name the modes alike.
type QueueMode string

// The queue modes (pi's PendingMessageQueue: drain all, or the first message only).
const (
	QueueOneAtATime QueueMode = "one-at-a-time"
	QueueAll        QueueMode = "all"
)

// Input is a message that an input (prompt, steer, follow-up) contributes, with the input's id
// (empty for messages no input produced). The message_start and message_end of the message
// carry it.
type Input struct {
	ID      string
	Message Message
}

// AgentContext is the conversation as hooks see it.
type AgentContext struct {
	SystemPrompt string
	Messages     []Message
	Tools        []Tool
}

// BeforeToolCallContext is what a beforeToolCall hook sees. Changes to Args are used as they
// are, without validating again.
type BeforeToolCallContext struct {
	Assistant *AssistantMessage
	Call      *Content
	Args      map[string]any
	Context   *AgentContext
}

// BeforeToolCallResult blocks a call when Block is set; Reason becomes the error result's
// text ("Tool execution was blocked" when empty).
type BeforeToolCallResult struct {
	Block  bool
	Reason string
}

// AfterToolCallContext is what an afterToolCall hook sees.
type AfterToolCallContext struct {
	Assistant *AssistantMessage
	Call      *Content
	Args      map[string]any
	Result    ToolResult
	IsError   bool
	Context   *AgentContext
}

// AfterToolCallResult overrides the fields it sets, field by field.
type AfterToolCallResult struct {
	Content   *[]Content
	Details   *any
	IsError   *bool
	Terminate *bool
}

// TurnInfo is what a shouldStopAfterTurn hook sees.
type TurnInfo struct {
	Message     *AssistantMessage
	ToolResults []*ToolResultMessage
	Context     *AgentContext
	NewMessages []Message
}

// Queues is where the loop pulls queued messages from (pi's getSteeringMessages and
// getFollowUpMessages). Their owner (the session) keeps the queues and their modes; each call
// takes the next delivery out of its queue and returns it (nil: nothing queued). A nil func
// is an empty queue.
type Queues struct {
	// Steering is polled at the start of a run (unless the run skips it) and after each tool
	// batch.
	Steering func() []Input
	// FollowUp is polled when the agent would otherwise stop.
	FollowUp func() []Input
}

func (q Queues) steering() []Input {
	if q.Steering == nil {
		return nil
	}
	return q.Steering()
}

func (q Queues) followUp() []Input {
	if q.FollowUp == nil {
		return nil
	}
	return q.FollowUp()
}
