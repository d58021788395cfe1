package failure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/pi-rpc/pi-rpc/core"
)

// ErrNotObject is DecodeObject's error for data that does not start an object.
var ErrNotObject = errors.New("not a JSON object")

// DecodeObject decodes one SSE event's data, rejecting anything that is not a JSON object.
func DecodeObject(data []byte, v any) error {
	if len(data) == 0 || data[0] != '{' {
		return ErrNotObject
	}
	return json.Unmarshal(data, v)
}

// NotAStream describes a successful response whose body held no events.
func NotAStream(resp *http.Response, head []byte) *core.ProviderError {
	ct := resp.Header.Get("Content-Type")
	msg := fmt.Sprintf("Provider returned %d with a body that is not an event stream (Content-Type %q)", resp.StatusCode, ct)
	if s := Snippet(head); s != "" {
		msg += ": " + s
	} else {
		msg += ": empty body"
	}
	return &core.ProviderError{Kind: core.ErrorOther, Status: resp.StatusCode, Message: msg}
}

// Transport classifies a request failure that is not an HTTP error status: a transport
// error a retry may cure, or anything else.
func Transport(err error) *core.ProviderError {
	var uerr *url.Error
	if errors.As(err, &uerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) {
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: "Connection error: " + err.Error()}
	}
	return &core.ProviderError{Kind: core.ErrorOther, Message: "Request failed: " + err.Error()}
}

// ErrorBody reads at most 1 MiB of an HTTP error response's body (nil without one).
func ErrorBody(resp *http.Response) []byte {
	if resp == nil || resp.Body == nil {
		return nil
	}
	return ReadErrorBody(resp.Body)
}

// ReadErrorBody reads at most 1 MiB of an error body; what a failed read leaves is what
// there is.
func ReadErrorBody(r io.Reader) []byte {
	body, _ := io.ReadAll(io.LimitReader(r, 1<<20))
	return body
}
