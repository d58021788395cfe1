package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// wireError is an error with its JSON-RPC code and data.
type wireError struct {
	code    int64
	message string
	data    any
}

func (e *wireError) Error() string { return e.message }

func invalidParams(format string, args ...any) error {
	return &wireError{code: protocol.CodeInvalidParams, message: fmt.Sprintf(format, args...)}
}

// requiredParam fails a method whose string param name is empty or absent.
func requiredParam(name, value string) error {
	if value == "" {
		return invalidParams("params.%s: required", name)
	}
	return nil
}

// nonNegativeParam fails a method whose count param name is negative.
func nonNegativeParam(name string, n int) error {
	if n < 0 {
		return invalidParams("params.%s: must not be negative", name)
	}
	return nil
}

func invalidRequest(msg string) error {
	return &wireError{code: protocol.CodeInvalidRequest, message: msg}
}

func methodNotFound(method string) error {
	return &wireError{code: protocol.CodeMethodNotFound, message: fmt.Sprintf("Method not found: %s", method)}
}

var kindCodes = map[session.ErrorKind]int64{
	session.KindBusy:                  protocol.CodeBusy,
	session.KindInvalidState:          protocol.CodeInvalidState,
	session.KindNotFound:              protocol.CodeNotFound,
	session.KindProviderNotConfigured: protocol.CodeProviderNotConfigured,
	session.KindShuttingDown:          protocol.CodeShuttingDown,
	session.KindTimeout:               protocol.CodeTimeout,
}

// toWireError is the one place that maps errors to JSON-RPC errors: session errors to the
// application codes with data.kind, cancellation to -32800, anything else to -32603.
func toWireError(err error) *jsonrpc2.Error {
	var we *wireError
	var se *session.Error
	out := &jsonrpc2.Error{Code: protocol.CodeInternalError, Message: err.Error()}
	switch {
	case errors.As(err, &we):
		out.Code, out.Message = we.code, we.message
		if we.data != nil {
			out.SetError(we.data)
		}
	case errors.As(err, &se):
		out.Code = kindCodes[se.Kind]
		data := map[string]any{"kind": string(se.Kind)}
		for k, v := range se.Data {
			data[k] = v
		}
		out.SetError(data)
	case errors.Is(err, context.Canceled):
		out.Code, out.Message = protocol.CodeCancelled, "Request cancelled"
	}
	return out
}

// decodeParams decodes params into p, naming the field of a type mismatch as
// "params.message: expected string, got number".
func decodeParams(raw *json.RawMessage, p any) error {
	if raw == nil || len(*raw) == 0 || string(*raw) == "null" {
		return nil
	}
	err := json.Unmarshal(*raw, p)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "params"
		} else {
			field = "params." + field
		}
		return invalidParams("%s: expected %s, got %s", field, goTypeToJSON(te.Type.String()), te.Value)
	default:
		return invalidParams("params: %v", err)
	}
}

func goTypeToJSON(t string) string {
	switch {
	case t == "string" || strings.HasSuffix(t, "Level") || strings.HasSuffix(t, "Mode"):
		return "string"
	case t == "bool":
		return "boolean"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "float"):
		return "number"
	case strings.HasPrefix(t, "[]"):
		return "array"
	}
	return "object"
}
