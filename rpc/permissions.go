package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// asker implements [session.PermissionAsker] with server-to-client permission/request calls.
// Each request is made from the run's goroutine, never from the read loop, so the client's
// answer can be read while it waits.
type asker struct {
	s   *Server
	sup *session.Supervisor
}

// CanAsk implements [session.PermissionAsker].
func (a asker) CanAsk() bool {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return a.s.caps.Permissions
}

// Ask implements [session.PermissionAsker]. The request is written after its
// permission_requested event; an abort sends $/cancelRequest and ignores a later answer.
func (a asker) Ask(ctx context.Context, req session.PermissionRequest) session.PermissionAnswer {
	s := a.s
	id := jsonrpc2.ID{Str: req.RequestID, IsString: true}
	s.stream.requestAfter(req.RequestID, req.AfterSeq)
	params := protocol.PermissionRequestParams{RequestID: req.RequestID, ToolCallID: req.ToolCallID, ToolName: req.ToolName, Args: req.Args}
	if s.opts.Writer.EverySessionID() {
		params.SessionID = a.sup.SessionID()
	}
	if params.Args == nil {
		params.Args = map[string]any{}
	}
	waiter, err := s.conn.DispatchCall(context.Background(), protocol.MethodPermissionRequest, params, jsonrpc2.PickID(id))
	defer s.stream.forget(req.RequestID)
	if err != nil {
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
	}
	waitCtx, stop := context.WithCancel(context.Background())
	defer stop()
	type answer struct {
		res protocol.PermissionRequestResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		var res protocol.PermissionRequestResult
		err := waiter.Wait(waitCtx, &res)
		answers <- answer{res, err}
	}()
	select {
	case got := <-answers:
		return decide(got.res, got.err)
	case <-ctx.Done():
		if a.endedByInput() {
			return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
		}
		// Written after the request it cancels, which may still be queued behind its event,
		// and after the abort's response (the abort holds the event lane until it is queued).
		s.opts.Writer.After(cancelRequest(req.RequestID), req.AfterSeq)
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByAbort}
	case <-s.stream.eof:
		if !s.opts.FinishOnEOF {
			// The end of input aborts the busy period (--on-eof abort): deny only once the
			// abort has reached the run, so the loop cannot start another turn in between.
			<-ctx.Done()
		}
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
	}
}

// endedByInput reports whether an abort that ended a wait is the end of input's: the input
// has ended (--on-eof abort) and the session is shutting down because of it. Both the abort
// and the end of input can be ready when the wait wakes; the disconnect came first.
func (a asker) endedByInput() bool {
	select {
	case <-a.s.stream.eof:
		return !a.s.opts.FinishOnEOF && a.sup.ShuttingDown()
	default:
		return false
	}
}

// cancelRequest is the $/cancelRequest notification for a request of ours. It is queued on
// the writer (Writer.After) rather than sent with the Conn's Notify, which would put it in
// the response lane, ahead of the permission/request it withdraws when that one still waits
// behind its permission_requested (ordering rule 6).
func cancelRequest(id string) []byte {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": protocol.MethodCancelRequest, "params": map[string]any{"id": id}})
	return data
}

// decide turns the client's answer into a decision: an error response or an unknown decision
// denies, with its text as the reason.
func decide(res protocol.PermissionRequestResult, err error) session.PermissionAnswer {
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr):
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: rpcErr.Message}
	case errors.Is(err, jsonrpc2.ErrClosed):
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
	case err != nil:
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: err.Error()}
	}
	switch res.Decision {
	case session.DecisionAllow, session.DecisionDeny, session.DecisionAllowAlways:
		return session.PermissionAnswer{Decision: res.Decision, By: session.ByClient, Reason: res.Reason}
	}
	return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: fmt.Sprintf("unknown decision %q", res.Decision)}
}
