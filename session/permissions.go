package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Approval modes (docs/permissions.md#approval-modes).
const (
	ApprovalAuto       = "auto"
	ApprovalAsk        = "ask"
	ApprovalDenyWrites = "deny-writes"
)

// Permission decisions and who made them.
const (
	DecisionAllow       = "allow"
	DecisionDeny        = "deny"
	DecisionAllowAlways = "allowAlways"

	ByClient     = "client"
	ByPolicy     = "policy"
	ByAbort      = "abort"
	ByDisconnect = "disconnect"
)

// guardedTools are the built-in tools that change things: write, edit and bash need approval.
var guardedTools = []string{"write", "edit", "bash"}

// ApprovalTool is a tool that says itself whether its calls need approval, the way write,
// edit and bash do (MCP tools: all but those declaring readOnlyHint).
type ApprovalTool interface {
	NeedsApproval() bool
}

// NeedsApproval reports whether calls of t need approval in approval mode ask.
func NeedsApproval(t core.Tool) bool {
	if a, ok := t.(ApprovalTool); ok {
		return a.NeedsApproval()
	}
	return slices.Contains(guardedTools, t.Info().Name)
}

// guarded reports whether the call's tool needs approval: a guarded built-in, or a tool of
// the context whose NeedsApproval says so.
func guarded(c *core.BeforeToolCallContext) bool {
	name := c.Call.Name
	if slices.Contains(guardedTools, name) {
		return true
	}
	if c.Context != nil {
		for _, t := range c.Context.Tools {
			if a, ok := t.(ApprovalTool); ok && t.Info().Name == name {
				return a.NeedsApproval()
			}
		}
	}
	// An MCP tool that left the list since the model saw it is not known to be read-only.
	return strings.HasPrefix(name, "mcp__")
}

// PermissionRequest is a request for the client's approval of one tool call.
type PermissionRequest struct {
	RequestID  string         `json:"requestId"`
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Args       map[string]any `json:"args"`
	// AfterSeq is the seq of the permission_requested event the request must follow.
	AfterSeq int64 `json:"-"`
}

// PermissionAnswer is how a request was decided.
type PermissionAnswer struct {
	Decision string
	// By is ByClient for an answer, ByAbort when ctx ended, ByDisconnect when the client
	// went away.
	By     string
	Reason string
}

// PermissionAsker sends permission requests to the client. Ask returns when the client
// answers, when ctx ends (an abort: the asker tells the client the request is cancelled) or
// when the client is gone.
type PermissionAsker interface {
	// CanAsk reports whether the client declared it answers permission requests.
	CanAsk() bool
	Ask(ctx context.Context, req PermissionRequest) PermissionAnswer
}

// SetPermissionAsker installs the client's side of permission requests.
func (s *Supervisor) SetPermissionAsker(a PermissionAsker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asker = a
}

// ResetPermissionGrants forgets allowAlways grants (the session changed).
func (s *Supervisor) ResetPermissionGrants() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowed = map[string]bool{}
}

// beforeToolCall is the agent's beforeToolCall hook: it applies the approval mode to write,
// edit, bash and the tools whose NeedsApproval says so. It runs in the loop's sequential prepare phase, after the call's
// tool_execution_start, so requests reach the client one at a time in source order.
func (s *Supervisor) beforeToolCall(ctx context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error) {
	name := c.Call.Name
	if !guarded(c) {
		return nil, nil
	}
	s.mu.Lock()
	mode := s.options.Approval
	switch {
	case mode == ApprovalAuto || mode == "":
		s.mu.Unlock()
		return nil, nil
	case s.allowed[name]:
		s.resolvePolicyLocked(c, DecisionAllow, "allowed for this session")
		s.mu.Unlock()
		return nil, nil
	case mode == ApprovalDenyWrites:
		reason := fmt.Sprintf("approval mode deny-writes refuses %s", name)
		s.resolvePolicyLocked(c, DecisionDeny, reason)
		s.mu.Unlock()
		return denied(reason), nil
	case s.asker == nil || !s.asker.CanAsk():
		reason := "client cannot answer permission requests"
		s.resolvePolicyLocked(c, DecisionDeny, reason)
		s.mu.Unlock()
		return denied(reason), nil
	}
	req := s.requestLocked(c)
	asker := s.asker
	s.mu.Unlock()

	answer := asker.Ask(ctx, req)
	switch answer.Decision {
	case DecisionAllow, DecisionAllowAlways:
	default:
		answer.Decision = DecisionDeny
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.permissionsPending = slices.DeleteFunc(s.ledger.permissionsPending, func(p sessionapi.PendingPermission) bool { return p.RequestID == req.RequestID })
	s.emitLocked(sessionapi.EventPermissionResolved, sessionapi.PermissionResolved{RequestID: req.RequestID, ToolCallID: req.ToolCallID, Decision: answer.Decision, By: answer.By, Reason: answer.Reason})
	switch answer.Decision {
	case DecisionAllowAlways:
		s.allowed[name] = true
		return nil, nil
	case DecisionAllow:
		return nil, nil
	}
	switch {
	case answer.By == ByAbort:
		return denied("the run was aborted while waiting for approval"), nil
	case answer.By == ByDisconnect:
		return denied("the client went away while approval was pending"), nil
	case answer.Reason != "":
		return denied(answer.Reason), nil
	}
	return denied("the user denied this " + name + " call"), nil
}

func denied(reason string) *core.BeforeToolCallResult {
	return &core.BeforeToolCallResult{Block: true, Reason: "Permission denied: " + reason}
}

// requestLocked registers a pending request and emits permission_requested.
func (s *Supervisor) requestLocked(c *core.BeforeToolCallContext) PermissionRequest {
	req := PermissionRequest{
		RequestID:  s.ids.permission(),
		ToolCallID: c.Call.ID,
		ToolName:   c.Call.Name,
		Args:       c.Args,
	}
	s.ledger.permissionsPending = append(s.ledger.permissionsPending, sessionapi.PendingPermission{RequestID: req.RequestID, ToolCallID: req.ToolCallID})
	req.AfterSeq = s.emitLocked(sessionapi.EventPermissionRequested, sessionapi.PermissionRequested{RequestID: req.RequestID, ToolCallID: req.ToolCallID, ToolName: req.ToolName})
	return req
}

// resolvePolicyLocked records a decision the policy made without asking: both events, so a
// client sees every decision.
func (s *Supervisor) resolvePolicyLocked(c *core.BeforeToolCallContext, decision, reason string) {
	id := s.ids.permission()
	s.emitLocked(sessionapi.EventPermissionRequested, sessionapi.PermissionRequested{RequestID: id, ToolCallID: c.Call.ID, ToolName: c.Call.Name})
	s.emitLocked(sessionapi.EventPermissionResolved, sessionapi.PermissionResolved{RequestID: id, ToolCallID: c.Call.ID, Decision: decision, By: ByPolicy, Reason: reason})
}

// SettleApprovalDefault fixes the approval mode when initialize is answered, unless --approval
// or setOptions chose one: ask if the client answers permission requests, else auto.
func (s *Supervisor) SettleApprovalDefault(clientCanAsk bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.ApprovalFixed || s.approvalChosen {
		return
	}
	if clientCanAsk {
		s.options.Approval = ApprovalAsk
	} else {
		s.options.Approval = ApprovalAuto
	}
}
