package protocol

// Method names (docs/protocol.md#methods).
const (
	MethodInitialize    = "initialize"
	MethodShutdown      = "shutdown"
	MethodExit          = "exit"
	MethodCancelRequest = "$/cancelRequest"
	MethodDescribe      = "describe"

	MethodPrompt      = "prompt"
	MethodContinue    = "continue"
	MethodSteer       = "steer"
	MethodFollowUp    = "followUp"
	MethodAbort       = "abort"
	MethodWaitSettled = "waitSettled"
	MethodClearQueues = "clearQueues"
	MethodCancelInput = "cancelInput"
	MethodGetState    = "getState"
	MethodGetMessages = "getMessages"

	MethodListModels       = "listModels"
	MethodSetModel         = "setModel"
	MethodSetThinkingLevel = "setThinkingLevel"
	MethodSetOptions       = "setOptions"

	MethodCompact = "compact"

	MethodListTools = "listTools"

	MethodCreateSession = "createSession"
	MethodCloseSession  = "closeSession"

	// MethodEvent is the notification that carries every event.
	MethodEvent = "event"
	// MethodPermissionRequest is the server-to-client request for a tool permission.
	MethodPermissionRequest = "permission/request"
)

// ProtocolVersion is the version this server speaks.
const ProtocolVersion = 1

// Error codes (docs/protocol.md#errors). The application codes avoid vscode-jsonrpc's named codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeCancelled      = -32800

	CodeBusy                  = -32010
	CodeInvalidState          = -32011
	CodeNotFound              = -32012
	CodeProviderNotConfigured = -32013
	CodeShuttingDown          = -32014
	CodeTimeout               = -32015
)

// ErrorData is the data of every application error: its kind, and for some errors more.
type ErrorData struct {
	// Kind is busy, invalidState, notFound, providerNotConfigured, shuttingDown or timeout.
	Kind string `json:"kind" jsonschema:"enum=busy,enum=invalidState,enum=notFound,enum=providerNotConfigured,enum=shuttingDown,enum=timeout"`
	// Suggest lists the whenBusy values that would have queued a refused prompt.
	Suggest []string `json:"suggest,omitempty"`
	// Busy and LastSeq describe the session when waitSettled timed out.
	Busy    *bool  `json:"busy,omitempty"`
	LastSeq *int64 `json:"lastSeq,omitempty"`
}
