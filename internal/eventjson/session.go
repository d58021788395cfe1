package eventjson

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// sessionEvent describes a session event: its fields are its payload's (a sessionapi type's
// JSON), written after "type" by the dialects in in. rpc and pi, when set, give the value
// written in that dialect instead of the payload.
type sessionEvent struct {
	in      Dialect
	rpc, pi func(ev *sessionapi.Event) any
}

// sessionEvents describes every session event. A type missing here is written by JSON-RPC
// with its payload and not by pi mode (protocol's tests require every type it documents to be
// listed).
var sessionEvents = map[string]sessionEvent{
	sessionapi.EventAgentSettled: {in: Both, rpc: settledWithSeq, pi: func(ev *sessionapi.Event) any {
		st, _ := ev.Payload.(*sessionapi.Settled)
		return struct {
			Aborted bool `json:"aborted"`
		}{st != nil && st.Aborted}
	}},
	sessionapi.EventQueueUpdate: {in: Both, pi: func(ev *sessionapi.Event) any {
		q, _ := ev.Payload.(sessionapi.QueueUpdate)
		return PiQueue{Steering: QueueTexts(q.Steering), FollowUp: QueueTexts(q.FollowUp)}
	}},
	// Only sessions recording pi 1.6.0's entries (pi mode's) emit it.
	sessionapi.EventEntryAppended: {in: Pi, pi: func(ev *sessionapi.Event) any {
		return struct {
			Entry any `json:"entry"`
		}{ev.Payload}
	}},
	sessionapi.EventAutoRetryStart:                 {in: Both},
	sessionapi.EventAutoRetryEnd:                   {in: Both},
	sessionapi.EventCompactionStart:                {in: Both},
	sessionapi.EventCompactionEnd:                  {in: Both},
	sessionapi.EventThinkingLevelChanged:           {in: Both},
	sessionapi.EventSummarizationRetryScheduled:    {in: Both},
	sessionapi.EventSummarizationRetryAttemptStart: {in: Both},
	sessionapi.EventSummarizationRetryFinished:     {in: Both},
	// pi has no counterpart for these.
	sessionapi.EventPermissionRequested: {in: JSONRPC},
	sessionapi.EventPermissionResolved:  {in: JSONRPC},
	sessionapi.EventSessionChanged:      {in: JSONRPC},
	sessionapi.EventSessionError:        {in: JSONRPC},
	sessionapi.EventModelChanged:        {in: JSONRPC},
	sessionapi.EventBashUpdate:          {in: JSONRPC},
	sessionapi.EventPlanUpdate:          {in: JSONRPC},
	sessionapi.EventMCPServerStatus:     {in: JSONRPC},
}

// settledWithSeq is JSON-RPC's agent_settled: lastSeq is the event's own seq, which the sink
// assigns.
func settledWithSeq(ev *sessionapi.Event) any {
	st, ok := ev.Payload.(*sessionapi.Settled)
	if !ok {
		return ev.Payload
	}
	cp := *st
	cp.LastSeq = ev.Seq
	return &cp
}

// PiQueue is pi's queue_update payload (and clear_queue's result): the queued messages'
// texts.
type PiQueue struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// QueueTexts lists the queued inputs' texts.
func QueueTexts(qs []sessionapi.QueuedInput) []string {
	out := make([]string, 0, len(qs))
	for _, q := range qs {
		out = append(out, q.Text)
	}
	return out
}

// Writes reports whether dialect d writes session events of type t.
func Writes(t string, d Dialect) bool {
	se, ok := sessionEvents[t]
	if !ok {
		return d == JSONRPC
	}
	return se.in&d != 0
}

// Described reports whether session event type t is described here.
func Described(t string) bool {
	_, ok := sessionEvents[t]
	return ok
}

// AppendSession appends a session event's fields in dialect d, "type" first, without the
// enclosing braces. ok is false, and nothing is appended, when d does not write the event.
func AppendSession(dst []byte, ev *sessionapi.Event, d Dialect) (out []byte, ok bool, err error) {
	if !Writes(ev.Type, d) {
		return dst, false, nil
	}
	se := sessionEvents[ev.Type]
	payload := ev.Payload
	switch {
	case d == JSONRPC && se.rpc != nil:
		payload = se.rpc(ev)
	case d == Pi && se.pi != nil:
		payload = se.pi(ev)
	}
	dst = append(dst, `"type":`...)
	dst = appendString(dst, ev.Type)
	if payload == nil {
		return dst, true, nil
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, false, err
	}
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:len(body)-1]...)
	}
	return dst, true, nil
}
