package acp

import (
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/pi-rpc/pi-rpc/internal/transport"
)

// method is one entry of the method table: how a request of that method is answered and how
// a notification of it is handled; either may be nil (a request then gets -32601, a
// notification is ignored).
type method struct {
	// request answers the request with id, at once or later (a prompt when its turn ends).
	request func(s *Server, id, params json.RawMessage)
	// notification handles the method sent without an id.
	notification func(s *Server, params json.RawMessage)
}

// methods is ACP's method table: every method the agent serves.
// Every front end declares its table this way (rpc.methods, acp.methods, pimode.commands):
// one package-level map literal of the package's entry type, with no init() adding to it.
var methods = map[string]method{
	sdk.AgentMethodInitialize:   {request: answered((*Server).initialize)},
	sdk.AgentMethodAuthenticate: {request: answered((*Server).authenticate)},

	sdk.AgentMethodSessionNew:    {request: (*Server).newSession},
	sdk.AgentMethodSessionLoad:   {request: (*Server).loadSession},
	sdk.AgentMethodSessionPrompt: {request: (*Server).prompt},
	sdk.AgentMethodSessionCancel: {request: answered((*Server).cancelRequest), notification: (*Server).cancelNotification},
	"_pi-rpc/steer":              {request: answered((*Server).steer)},
	"$/cancel_request":           {notification: (*Server).cancelPrompt},

	sdk.AgentMethodSessionSetMode:         {request: answered((*Server).setMode)},
	sdk.AgentMethodSessionSetConfigOption: {request: answered((*Server).setConfigOption)},
	sdk.AgentMethodSessionClose:           {request: (*Server).close},
	sdk.AgentMethodSessionList:            {request: answered((*Server).list)},
}

// answered adapts a method answered at once: with its result, or its error when not nil.
func answered(f func(s *Server, params json.RawMessage) (any, *sdk.RequestError)) func(*Server, json.RawMessage, json.RawMessage) {
	return func(s *Server, id, params json.RawMessage) {
		res, err := f(s, params)
		if err != nil {
			s.w.fail(id, err)
			return
		}
		s.w.result(id, res)
	}
}

func (s *Server) handleLine(line []byte) {
	f := transport.Classify(line)
	switch f.Kind {
	case transport.Empty:
		return
	case transport.NotJSON:
		s.w.fail(nil, reqError(codeParseError, "Parse error: "+f.Reason, nil))
		return
	case transport.Batch:
		// ACP's stdio transport carries one message per line.
		s.w.fail(nil, reqError(codeInvalidRequest, "batches are not accepted", nil))
		return
	case transport.NotObject:
		s.w.fail(nil, reqError(codeInvalidRequest, "a message is a JSON object", nil))
		return
	}
	var m message
	if err := json.Unmarshal(f.Data, &m); err != nil {
		s.w.fail(nil, reqError(codeInvalidRequest, wrongType(err), nil))
		return
	}
	var id json.RawMessage
	if m.ID != nil {
		id = *m.ID
	}
	if m.JSONRPC != "2.0" {
		if id != nil || m.Method != "" {
			s.w.fail(id, reqError(codeInvalidRequest, `jsonrpc must be "2.0"`, nil))
		}
		return
	}
	if m.Method == "" {
		if id != nil && (m.Result != nil || m.Error != nil) {
			if !s.w.answer(&m) {
				s.log.Debug().RawJSON("id", id).Msg("response to no pending request")
			}
			return
		}
		s.w.fail(id, reqError(codeInvalidRequest, "a message needs a method, or is a response with result or error", nil))
		return
	}
	if id == nil {
		s.notification(m.Method, m.Params)
		return
	}
	s.request(id, m.Method, m.Params)
}

// wrongType describes a message field of the wrong type in the protocol's terms, not Go's.
func wrongType(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("Invalid Request: %s must not be a %s", te.Field, te.Value)
	}
	return "Invalid Request: " + err.Error()
}

func decode[T any](params json.RawMessage) (T, *sdk.RequestError) {
	var v T
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, &v); err != nil {
		return v, reqError(codeInvalidParams, "Invalid params: "+err.Error(), nil)
	}
	return v, nil
}

func (s *Server) notification(method string, params json.RawMessage) {
	m := methods[method]
	if m.notification == nil {
		s.log.Debug().Str("method", method).Msg("notification ignored")
		return
	}
	m.notification(s, params)
}

// cancelNotification is session/cancel as ACP sends it, a notification.
func (s *Server) cancelNotification(params json.RawMessage) {
	switch err := s.cancel(params); {
	case err == nil:
	case err.Code == codeNotFound:
		// a session just closed, as a cancel crossing a close: nothing to cancel
		s.log.Debug().Str("error", err.Message).Msg("session/cancel")
	default:
		s.log.Warn().Str("error", err.Message).Msg("session/cancel")
	}
}

// cancelRequest is session/cancel sent as a request: it cancels all the same and is
// answered with a null result.
func (s *Server) cancelRequest(params json.RawMessage) (any, *sdk.RequestError) {
	return nil, s.cancel(params)
}

// cancelPrompt is $/cancel_request: cancelling a prompt cancels its turn; it is then
// answered with stopReason cancelled.
func (s *Server) cancelPrompt(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	var target *acpSession
	for _, st := range s.sessions {
		if st.hasPrompt(s.w, p.RequestID) {
			target = st
		}
	}
	s.mu.Unlock()
	if target != nil {
		target.cancelled.Store(true)
		target.sup.Abort()
	}
}

// cancel cancels a session's turn (session/cancel): its prompt is then answered with
// stopReason cancelled.
func (s *Server) cancel(params json.RawMessage) *sdk.RequestError {
	p, err := decode[sdk.CancelNotification](params)
	if err != nil {
		return err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return notFound(p.SessionId)
	}
	st.cancelled.Store(true)
	st.sup.Abort()
	return nil
}

// session returns an open session by id. A session/load of that id still in flight is
// waited for, so a request pipelined after it finds the session it opens.
func (s *Server) session(id string) *acpSession {
	s.awaitLoad(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

func notFound(id sdk.SessionId) *sdk.RequestError {
	return reqError(codeNotFound, fmt.Sprintf("Resource not found: session %q", id), map[string]any{"sessionId": id})
}

func (s *Server) request(id json.RawMessage, method string, params json.RawMessage) {
	m := methods[method]
	if m.request == nil {
		s.w.fail(id, reqError(codeMethodNotFound, "Method not found: "+method, map[string]any{"method": method}))
		return
	}
	m.request(s, id, params)
}
