package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
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
