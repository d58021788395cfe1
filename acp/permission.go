package acp

import (
	"context"
	"encoding/json"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/session"
)

// The permission options every request offers, by ACP kind.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

var permissionOptions = []sdk.PermissionOption{
	{OptionId: optAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
	{OptionId: optAllowAlways, Name: "Always allow", Kind: sdk.PermissionOptionKindAllowAlways},
	{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	{OptionId: optRejectAlways, Name: "Always reject", Kind: sdk.PermissionOptionKindRejectAlways},
}

// asker is a session's [session.PermissionAsker]: each request is a
// session/request_permission with the tool call as the editor shows it. "Always allow" is
// remembered by the supervisor (per session and tool), "always reject" here; a cancelled or
// unknown outcome is a refusal. When the turn is cancelled the request is withdrawn with
// $/cancel_request and refused.
type asker struct {
	w  *writer
	st *acpSession
}

// CanAsk implements [session.PermissionAsker]: an ACP client always answers.
func (a *asker) CanAsk() bool { return true }

// Ask implements [session.PermissionAsker].
func (a *asker) Ask(ctx context.Context, req session.PermissionRequest) session.PermissionAnswer {
	st, w := a.st, a.w
	w.mu.Lock()
	rejected := st.rejected[req.ToolName]
	w.mu.Unlock()
	if rejected {
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: "the user rejected every " + req.ToolName + " call of this session"}
	}
	if (req.ToolName == "edit" || req.ToolName == "write") && st.files.through() {
		st.files.previewFromClient(ctx, req.ToolCallID, req.ToolName, req.Args)
	}
	w.mu.Lock()
	tc := st.calls[req.ToolCallID]
	title := toolTitle(st.cwd, req.ToolName, req.Args)
	kind := toolKind(req.ToolName)
	call := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(req.ToolCallID),
		Title:      &title,
		Kind:       &kind,
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Locations:  toolLocations(st.cwd, req.ToolName, req.Args),
		RawInput:   rawInput(req.Args),
	}
	if tc != nil && tc.preview != nil {
		call.Content = resultContent(req.ToolName, nil, tc.preview, false)
	}
	params := sdk.RequestPermissionRequest{SessionId: sdk.SessionId(st.id), ToolCall: call, Options: permissionOptions}
	id, ch := w.requestLocked(sdk.ClientMethodSessionRequestPermission, params)
	w.mu.Unlock()

	var m *message
	select {
	case m = <-ch:
	case <-ctx.Done():
		w.withdraw(id, nil)
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByAbort}
	case <-w.broken:
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
	}
	if m.Error != nil {
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: "the client failed the permission request: " + m.Error.Message}
	}
	option, err := selectedOption(m.Result)
	if err != nil {
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: err.Error()}
	}
	switch option {
	case optAllowOnce:
		return session.PermissionAnswer{Decision: session.DecisionAllow, By: session.ByClient}
	case optAllowAlways:
		return session.PermissionAnswer{Decision: session.DecisionAllowAlways, By: session.ByClient}
	case optRejectAlways:
		w.mu.Lock()
		st.rejected[req.ToolName] = true
		w.mu.Unlock()
	}
	return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient}
}

// selectedOption reads a permission response: the selected option id, or an error for a
// cancelled or unrecognised outcome (both refusals).
func selectedOption(result json.RawMessage) (string, error) {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", errors.New("the permission answer could not be read")
	}
	switch r.Outcome.Outcome {
	case "selected":
		switch r.Outcome.OptionID {
		case optAllowOnce, optAllowAlways, optRejectOnce, optRejectAlways:
			return r.Outcome.OptionID, nil
		}
		return "", errors.New("the permission answer selected an unknown option")
	case "cancelled":
		return "", errors.New("the permission request was cancelled")
	}
	return "", errors.New("the permission answer had an unknown outcome")
}
