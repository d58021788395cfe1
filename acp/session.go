package acp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// acpSession is one ACP session of the connection. Its fields below mu-guarded are owned by
// the writer's lock (w.mu): the sink changes them while translating an event.
type acpSession struct {
	id  string
	cwd string
	// opened is the session as the host opened it; sup is its supervisor.
	opened *session.Opened
	sup    *session.Supervisor
	caps   sdk.ClientCapabilities
	// files is the client's side of the tools' file access, nil when it offers no fs method.
	files *clientFiles
	// cancelled is set by session/cancel, for a command running beside the reader
	// (commands.go) to tell an abort from a failure.
	cancelled atomic.Bool

	// Guarded by w.mu.
	live     bool
	prompts  []pendingPrompt
	calls    map[string]*toolCall
	rejected map[string]bool
	stop     core.StopReason
	errMsg   string
	// window is the model's context window and cost the session's cost so far, for
	// usage_update (usage.go).
	window int
	cost   float64
	// compacting is the request id of a /compact running (commands.go), for $/cancel_request.
	compacting json.RawMessage
	// loadedUsage is the usage_update a loaded session sends after its replay.
	loadedUsage *sdk.SessionUpdate
}

// pendingPrompt is a session/prompt waiting for its turn to settle.
type pendingPrompt struct {
	inputID string
	reqID   json.RawMessage
	// started is set when the prompt's user message reached the model's context.
	started bool
}

// toolCall is what the session knows of one tool call, to send ACP updates about it.
type toolCall struct {
	name      string
	announced bool
	// owesStart is set from the call's tool_execution_start until it is let run (its
	// in_progress update) or ends.
	owesStart bool
	args      map[string]any
	preview   *tools.Preview
	// read is the text the call read through the client, by path (fs.go).
	read map[string]string
	// terminal is the client terminal the call's command runs in (terminal.go).
	terminal string
}

// goLive queues the response that opens the session (session/new, session/load) and, with
// it, marks the session live: from then on its events are written, after the response.
// replay, if set, queues the replayed history first.
func (st *acpSession) goLive(w *writer, id json.RawMessage, res any, replay func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if replay != nil {
		replay()
	}
	w.queueLocked(outResult{JSONRPC: "2.0", ID: id, Result: res})
	st.live = true
}

func (st *acpSession) addPrompt(w *writer, inputID string, reqID json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st.prompts = append(st.prompts, pendingPrompt{inputID: inputID, reqID: reqID})
}

// dropPrompt forgets a prompt the session refused: no event names its input.
func (st *acpSession) dropPrompt(w *writer, inputID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st.prompts = slices.DeleteFunc(st.prompts, func(p pendingPrompt) bool { return p.inputID == inputID })
}

func (st *acpSession) hasPrompt(w *writer, reqID json.RawMessage) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range st.prompts {
		if bytes.Equal(bytes.TrimSpace(p.reqID), bytes.TrimSpace(reqID)) {
			return true
		}
	}
	return st.compacting != nil && bytes.Equal(bytes.TrimSpace(st.compacting), bytes.TrimSpace(reqID))
}

// update queues one session/update of the session. The caller holds w.mu.
func (st *acpSession) updateLocked(w *writer, u sdk.SessionUpdate) {
	w.notifyLocked(sdk.ClientMethodSessionUpdate, sdk.SessionNotification{SessionId: sdk.SessionId(st.id), Update: u})
}

// chunkLocked queues text as the chunk of the agent's message or thought that mk makes of
// it; empty text says nothing, so no chunk is sent for it. The caller holds w.mu.
func (st *acpSession) chunkLocked(w *writer, mk func(text string) sdk.SessionUpdate, text string) {
	if text != "" {
		st.updateLocked(w, mk(text))
	}
}

// settleLocked answers the prompts whose inputs the period settled, in the order they were
// sent. The caller holds w.mu.
func (st *acpSession) settleLocked(w *writer, settled *sessionapi.Settled) {
	outcomes := map[string]sessionapi.Outcome{}
	for _, in := range settled.Inputs {
		outcomes[in.InputID] = in.Outcome
	}
	var answered []pendingPrompt
	keep := st.prompts[:0]
	for _, p := range st.prompts {
		if _, ok := outcomes[p.inputID]; ok {
			answered = append(answered, p)
		} else {
			keep = append(keep, p)
		}
	}
	st.prompts = keep
	for i, p := range answered {
		last := i == len(answered)-1
		outcome := outcomes[p.inputID]
		switch {
		case settled.Aborted || outcome == session.OutcomeAborted || outcome == session.OutcomeCancelled:
			w.queueLocked(outResult{JSONRPC: "2.0", ID: p.reqID, Result: sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}})
		case settled.Error != nil && settled.Error.Kind != session.SettleErrorPersistence && last:
			if strings.Contains(settled.Error.Message, "content_filter") {
				w.queueLocked(outResult{JSONRPC: "2.0", ID: p.reqID, Result: sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}})
				continue
			}
			code := codeInternalError
			if settled.Error.Kind == session.SettleErrorAuth {
				code = codeAuthRequired
			}
			w.queueLocked(outError{JSONRPC: "2.0", ID: p.reqID, Error: reqError(code, settled.Error.Message, map[string]any{"kind": settled.Error.Kind})})
		case outcome == session.OutcomeFailed && last:
			msg := st.errMsg
			if msg == "" {
				msg = "the turn failed"
			}
			w.queueLocked(outError{JSONRPC: "2.0", ID: p.reqID, Error: reqError(codeInternalError, msg, nil)})
		default:
			reason := sdk.StopReasonEndTurn
			if last {
				reason = st.stopReasonLocked()
			}
			w.queueLocked(outResult{JSONRPC: "2.0", ID: p.reqID, Result: sdk.PromptResponse{StopReason: reason}})
		}
	}
	st.stop, st.errMsg = "", ""
}

// stopReasonLocked is the ACP stop reason of a turn that ended without an error, from its
// last assistant message. The caller holds w.mu.
func (st *acpSession) stopReasonLocked() sdk.StopReason {
	switch {
	case st.stop == core.StopReasonLength:
		return sdk.StopReasonMaxTokens
	case st.stop == core.StopReasonError && strings.Contains(st.errMsg, "content_filter"):
		return sdk.StopReasonRefusal
	}
	return sdk.StopReasonEndTurn
}
