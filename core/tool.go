package core

import (
	"context"
	"encoding/json"
)

// ExecutionMode says whether a tool may run alongside the other calls of its batch.
type ExecutionMode string

// The execution modes. A batch runs sequentially when the agent is configured so, or when
// any call in it targets a sequential tool (as pi's executeToolCalls decides).
const (
	ExecutionParallel   ExecutionMode = "parallel"
	ExecutionSequential ExecutionMode = "sequential"
)

// ToolInfo describes a tool.
type ToolInfo struct {
	Name string
	// Label is a short human-readable name for UIs.
	Label       string
	Description string
	// Parameters is the JSON schema of the arguments object.
	Parameters json.RawMessage
	// Mode is ExecutionParallel when empty.
	Mode ExecutionMode
}

// ToolResult is what a tool returns, and what progress updates carry.
type ToolResult struct {
	Content []Content `json:"content"`
	Details any       `json:"details,omitempty"`
	// Terminate asks the loop not to call the model again after this batch, when every
	// result of the batch asks so. It is not written into the tool-result message.
	Terminate bool `json:"terminate,omitempty"`
}

// MarshalJSON writes content as [] rather than null when empty.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	type alias ToolResult
	a := alias(r)
	a.Content = nonNil(a.Content)
	return json.Marshal(a)
}

// TextResult returns a result with one text block.
func TextResult(text string) ToolResult { return ToolResult{Content: []Content{TextBlock(text)}} }

// Tool is a capability the model can call.
//
// Execute runs one call with validated arguments. It must honour ctx: when the run is
// aborted, ctx is cancelled and a tool that has not returned 50 ms later is abandoned (its
// result and updates are then dropped). update reports progress; each update replaces the
// previous one for display and may be called from any goroutine until Execute returns. A tool
// reports failure by returning an error: the loop turns it into an error result whose text is
// the error's message. A panic is recovered the same way.
type Tool interface {
	Info() ToolInfo
	Execute(ctx context.Context, call ToolCall, update func(ToolResult)) (ToolResult, error)
}

// ArgumentPreparer is implemented by tools that accept older argument shapes: PrepareArguments
// rewrites the raw arguments before validation (pi's prepareArguments).
type ArgumentPreparer interface {
	PrepareArguments(args map[string]any) (map[string]any, error)
}

// ToolCall is one call as a tool sees it.
type ToolCall struct {
	ID   string
	Name string
	// Args are the validated arguments, after coercion and any beforeToolCall changes.
	Args map[string]any
}

// Decode converts the call's arguments into v (a pointer to a struct with JSON tags).
func (c ToolCall) Decode(v any) error {
	data, err := json.Marshal(c.Args)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// FuncTool is a [Tool] made of its description and a function.
type FuncTool struct {
	ToolInfo
	Run func(ctx context.Context, call ToolCall, update func(ToolResult)) (ToolResult, error)
	// Prepare, if set, is the tool's [ArgumentPreparer].
	Prepare func(args map[string]any) (map[string]any, error)
}

// Info implements [Tool].
func (t *FuncTool) Info() ToolInfo { return t.ToolInfo }

// Execute implements [Tool].
func (t *FuncTool) Execute(ctx context.Context, call ToolCall, update func(ToolResult)) (ToolResult, error) {
	return t.Run(ctx, call, update)
}

// PrepareArguments implements [ArgumentPreparer]; without Prepare it returns args unchanged.
func (t *FuncTool) PrepareArguments(args map[string]any) (map[string]any, error) {
	if t.Prepare == nil {
		return args, nil
	}
	return t.Prepare(args)
}
