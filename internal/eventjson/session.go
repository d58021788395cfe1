package eventjson

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// sessionEvent describes a session event of type t: its fields are its payload's (a
// sessionapi type's JSON), written after "type" by the dialects in in. rpc and pi, when set,
// give the value written in that dialect instead of the payload. doc documents it for
// JSON-RPC: the payload type its documentation embeds (doc.embed), or, where the
// documentation lists the payload's fields itself, fields.
type sessionEvent struct {
	t       string
	in      Dialect
	rpc, pi func(ev *sessionapi.Event) any
	doc     typeDoc
	fields  []FieldDoc
}

// sessionEvents describes every session event, the JSON-RPC ones in the order of
// docs/events.md. A type missing here is written by JSON-RPC with its payload and not by pi
// mode.
var sessionEvents = []sessionEvent{
	{t: sessionapi.EventAgentSettled, in: Both, rpc: settledWithSeq, pi: func(ev *sessionapi.Event) any {
		st, _ := ev.Payload.(*sessionapi.Settled)
		return struct {
			Aborted bool `json:"aborted"`
		}{st != nil && st.Aborted}
	}, doc: typeDoc{goName: "AgentSettledEvent", comment: "AgentSettledEvent ends a busy period: the agent is idle and nothing " +
		"(retry, compaction, queued input) will start more work on its own. It is the last event of its busy period.",
		embed: "sessionapi.Settled", envelope: envelope, sessionID: "SessionID is the session the busy period worked in."}},
	{t: sessionapi.EventQueueUpdate, in: Both, pi: func(ev *sessionapi.Event) any {
		q, _ := ev.Payload.(sessionapi.QueueUpdate)
		return PiQueue{Steering: QueueTexts(q.Steering), FollowUp: QueueTexts(q.FollowUp)}
	}, doc: session("QueueUpdateEvent", "QueueUpdateEvent shows the steering and follow-up queues after a change.", "sessionapi.QueueUpdate")},
	{t: sessionapi.EventAutoRetryStart, in: Both, doc: session("AutoRetryStartEvent",
		"AutoRetryStartEvent announces a retry of a failed model call after a delay.", "sessionapi.AutoRetryStart")},
	{t: sessionapi.EventAutoRetryEnd, in: Both, doc: session("AutoRetryEndEvent", "AutoRetryEndEvent ends a series of retries.",
		"sessionapi.AutoRetryEnd")},
	{t: sessionapi.EventCompactionStart, in: Both, doc: session("CompactionStartEvent", "CompactionStartEvent starts a compaction of the context.",
		"sessionapi.CompactionStart")},
	{t: sessionapi.EventSummarizationRetryScheduled, in: Both, doc: session("SummarizationRetryScheduledEvent",
		"SummarizationRetryScheduledEvent announces a retry of a failed summary request.", "sessionapi.SummarizationRetryScheduled")},
	{t: sessionapi.EventSummarizationRetryAttemptStart, in: Both, doc: session("SummarizationRetryAttemptStartEvent",
		"SummarizationRetryAttemptStartEvent starts the retried summary request.", "sessionapi.SummarizationRetryAttemptStart")},
	{t: sessionapi.EventSummarizationRetryFinished, in: Both, doc: session("SummarizationRetryFinishedEvent",
		"SummarizationRetryFinishedEvent ends the retries of a summary request.", "")},
	{t: sessionapi.EventCompactionEnd, in: Both, doc: session("CompactionEndEvent", "CompactionEndEvent ends a compaction.",
		"sessionapi.CompactionEnd")},
	// pi has no counterpart for the JSON-RPC-only ones.
	{t: sessionapi.EventPermissionRequested, in: JSONRPC, doc: session("PermissionRequestedEvent",
		"PermissionRequestedEvent says the server asked the client for permission to run a tool call (a permission/request follows), "+
			"or that the approval policy is deciding one (a permission_resolved with by \"policy\" follows at once).",
		"sessionapi.PermissionRequested")},
	{t: sessionapi.EventPermissionResolved, in: JSONRPC, doc: session("PermissionResolvedEvent",
		"PermissionResolvedEvent says how a permission request was decided: decision is allow, deny or allowAlways; by is client "+
			"(its answer), policy (the approval mode or an allowAlways grant), abort (the run was aborted while waiting) or "+
			"disconnect (the client went away).", "sessionapi.PermissionResolved")},
	// session_changed's documentation lists sessionapi.SessionChanged's fields, to give
	// reason its values (protocol's tests hold the two to the same fields).
	{t: sessionapi.EventSessionChanged, in: JSONRPC, doc: typeDoc{goName: "SessionChangedEvent",
		comment: "SessionChangedEvent says the server switched to another session.", envelope: envelope,
		sessionID: "SessionID is the new session."},
		fields: []FieldDoc{
			{Name: "previousSessionId", GoName: "PreviousSessionID", Doc: Doc{Type: "string"}},
			{Name: "sessionFile", GoName: "SessionFile", Doc: Doc{Type: "string"}, OmitEmpty: true},
			{Name: "reason", GoName: "Reason", Doc: Doc{Type: "string", Comment: "Reason is the method that switched: newSession, " +
				"openSession, forkSession or navigateTree.", Schema: "enum=new,enum=open,enum=fork,enum=navigate"}},
		}},
	{t: sessionapi.EventSessionError, in: JSONRPC, doc: session("SessionErrorEvent", "SessionErrorEvent reports a session failure "+
		"that is not a method's error, such as a failed write to the session file.", "sessionapi.SessionError")},
	{t: sessionapi.EventModelChanged, in: JSONRPC, doc: session("ModelChangedEvent", "ModelChangedEvent says the model changed.",
		"sessionapi.ModelChanged")},
	{t: sessionapi.EventThinkingLevelChanged, in: Both, doc: session("ThinkingLevelChangedEvent",
		"ThinkingLevelChangedEvent says the thinking level changed.", "sessionapi.ThinkingLevelChanged")},
	{t: sessionapi.EventBashUpdate, in: JSONRPC, doc: session("BashUpdateEvent", "BashUpdateEvent carries the output so far of a "+
		"command run with the bash method: each update replaces the previous one (the tail within 2,000 lines / 50 KB).",
		"sessionapi.BashUpdate")},
	{t: sessionapi.EventPlanUpdate, in: JSONRPC, doc: session("PlanUpdateEvent", "PlanUpdateEvent carries the agent's plan after "+
		"each update_plan call (a tool selected with --tools, docs/tools.md): the complete list of steps with their priority and "+
		"status, which replaces the previous plan. It follows the call's tool_execution_end.", "sessionapi.PlanUpdate")},
	{t: sessionapi.EventMCPServerStatus, in: JSONRPC, doc: session("MCPServerStatusEvent", "MCPServerStatusEvent reports an MCP "+
		"server's start as it happens: state connecting when its start begins (at startup for the configured servers, on "+
		"initialize or createSession for theirs), then connected with its tools or failed with the error (a start bounded by "+
		"--mcp-timeout); failed again if a connected server's connection ends. A prompt sent while a server is connecting waits "+
		"for it. On a connection with several sessions, the event of a server of createSession's mcpServers carries that "+
		"session's sessionId; one of the process's servers has none.", "MCPServerStatusUpdate")},
	// Only sessions recording pi 1.6.0's entries (pi mode's) emit it.
	{t: sessionapi.EventEntryAppended, in: Pi, pi: func(ev *sessionapi.Event) any {
		return struct {
			Entry any `json:"entry"`
		}{ev.Payload}
	}},
}

// session documents a session event whose documentation embeds its payload type embed
// ("" for none) and the envelope.
func session(goName, comment, embed string) typeDoc {
	return typeDoc{goName: goName, comment: comment, embed: embed, envelope: envelope}
}

// sessionEventOf maps a type to its description.
var sessionEventOf = func() map[string]*sessionEvent {
	m := make(map[string]*sessionEvent, len(sessionEvents))
	for i := range sessionEvents {
		m[sessionEvents[i].t] = &sessionEvents[i]
	}
	return m
}()

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
	se, ok := sessionEventOf[t]
	if !ok {
		return d == JSONRPC
	}
	return se.in&d != 0
}

// AppendSession appends a session event's fields in dialect d, "type" first, without the
// enclosing braces. ok is false, and nothing is appended, when d does not write the event.
func AppendSession(dst []byte, ev *sessionapi.Event, d Dialect) (out []byte, ok bool, err error) {
	if !Writes(ev.Type, d) {
		return dst, false, nil
	}
	payload := ev.Payload
	if se := sessionEventOf[ev.Type]; se != nil {
		switch {
		case d == JSONRPC && se.rpc != nil:
			payload = se.rpc(ev)
		case d == Pi && se.pi != nil:
			payload = se.pi(ev)
		}
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
