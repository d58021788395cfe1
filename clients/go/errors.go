package piclient

import (
	"encoding/json"
	"fmt"
)

// Error is a JSON-RPC error answered by the server: the code (protocol.Code*), the message
// meant for a person, and data, which for pi-rpc's application errors holds kind and
// sometimes more (suggest, busy, lastSeq; see protocol.ErrorData).
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("pi-rpc: %s (code %d)", e.Message, e.Code)
}

// Kind is data.kind (busy, invalidState, notFound, providerNotConfigured, shuttingDown,
// timeout), or "" when the error has none, as JSON-RPC's own errors do not.
func (e *Error) Kind() string {
	var d struct {
		Kind string `json:"kind"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	return d.Kind
}
