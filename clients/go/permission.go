package piclient

import "github.com/pi-rpc/pi-rpc/protocol"

// PermissionRequest is the params of the server's permission/request
// (docs/permissions.md#the-permissionrequest-flow): the server asks whether one tool call may
// run.
type PermissionRequest = protocol.PermissionRequestParams

// PermissionDecision is the answer to a permission request; Reason is shown to the model
// when the call is denied.
type PermissionDecision = protocol.PermissionRequestResult

// The decisions a client can answer. Anything else, like an error response, is a deny.
const (
	DecisionAllow       = "allow"
	DecisionDeny        = "deny"
	DecisionAllowAlways = "allowAlways"
)
