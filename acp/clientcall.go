package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/pi-rpc/pi-rpc/internal/transport"
)

// clientError is the client's error answer to a request the agent sent; its message is the
// client's.
type clientError struct {
	method string
	err    *sdk.RequestError
}

func (e *clientError) Error() string { return e.err.Message }

// errClientGone is the answer to a request when writing to the client failed.
var errClientGone = errors.New("the client went away")

// callClient sends one request to the client, through the writer's lane (after everything
// queued before it), and waits for the answer, decoded into out when out is not nil. When
// ctx ends first the request is withdrawn ($/cancel_request) and ctx's error returned, so
// a client that never answers holds nobody past an abort.
func callClient(ctx context.Context, w *writer, method string, params, out any) error {
	return callClientOrUndo(ctx, w, method, params, out, nil)
}

// callClientOrUndo is callClient for a request whose success leaves something in the client:
// when the request was withdrawn and the client answers it anyway, undo gets that answer.
func callClientOrUndo(ctx context.Context, w *writer, method string, params, out any, undo func(*message)) error {
	w.mu.Lock()
	id, ch := w.requestLocked(method, params)
	w.mu.Unlock()
	select {
	case m := <-ch:
		if m.Error != nil {
			return &clientError{method: method, err: m.Error}
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("the client's answer to %s could not be read: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		w.withdraw(id, undo)
		return ctx.Err()
	case <-w.broken:
		return errClientGone
	}
}

// answerTooLarge fails the request of ours that an oversized line answers, when the line's
// head shows it is one (an id of a pending request, and no method before it): the call gets
// an error naming the limit instead of waiting for an answer that was dropped. The editor is
// not answered, since the line was a response. It reports whether the line was taken so.
func answerTooLarge(w *writer, err error, limit int) bool {
	var tl *transport.TooLargeError
	if !errors.As(err, &tl) {
		return false
	}
	id, ok := responseID(tl.Head)
	if !ok {
		return false
	}
	msg := fmt.Sprintf("the editor's answer is larger than --max-message-bytes (%d bytes)", limit)
	return w.answer(&message{ID: &id, Error: &sdk.RequestError{Code: codeInvalidRequest, Message: msg}})
}

// responseID reads the top-level "id" of a message from its first bytes, when it comes before
// any "method" and every value before it is whole.
func responseID(head []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch key {
		case "method":
			return nil, false
		case "id":
			var id json.Number
			if dec.Decode(&id) != nil {
				return nil, false
			}
			return json.RawMessage(id), true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
	}
}
