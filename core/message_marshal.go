package core

import "encoding/json"

// The JSON form of each message, as pi writes it: the role first, then the struct's fields
// (their tags are the one description of a message's JSON, in every dialect and in session
// files), content never null.

// MarshalJSON writes the message in pi's shape.
func (m *SystemMessage) MarshalJSON() ([]byte, error) {
	type alias SystemMessage
	return withRole(RoleSystem, (*alias)(m))
}

// withRole starts every message's JSON with its role, as pi writes it.
func withRole(role Role, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(role)+12)
	out = append(out, `{"role":"`...)
	out = append(out, role...)
	out = append(out, '"')
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// MarshalJSON writes the message in pi's shape.
func (m *UserMessage) MarshalJSON() ([]byte, error) {
	type alias UserMessage
	a := alias(*m)
	a.Content = nonNil(a.Content)
	return withRole(RoleUser, &a)
}

// MarshalJSON writes the message in pi's shape.
func (m *AssistantMessage) MarshalJSON() ([]byte, error) {
	type alias AssistantMessage
	a := alias(*m)
	a.Content = nonNil(a.Content)
	return withRole(RoleAssistant, &a)
}

// MarshalJSON writes the message in pi's shape.
func (m *ToolResultMessage) MarshalJSON() ([]byte, error) {
	type alias ToolResultMessage
	a := alias(*m)
	a.Content = nonNil(a.Content)
	return withRole(RoleToolResult, &a)
}

// MarshalJSON writes the message in pi's shape.
func (m *BashExecutionMessage) MarshalJSON() ([]byte, error) {
	type alias BashExecutionMessage
	return withRole(RoleBashExecution, (*alias)(m))
}

// MarshalJSON writes the message in pi's shape.
func (m *CustomMessage) MarshalJSON() ([]byte, error) {
	type alias CustomMessage
	a := alias(*m)
	a.Content = nonNil(a.Content)
	return withRole(RoleCustom, &a)
}

// MarshalJSON writes the message in pi's shape.
func (m *BranchSummaryMessage) MarshalJSON() ([]byte, error) {
	type alias BranchSummaryMessage
	return withRole(RoleBranchSummary, (*alias)(m))
}

// MarshalJSON writes the message in pi's shape.
func (m *CompactionSummaryMessage) MarshalJSON() ([]byte, error) {
	type alias CompactionSummaryMessage
	return withRole(RoleCompactionSummary, (*alias)(m))
}
