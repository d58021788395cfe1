package acp

import (
	sdk "github.com/coder/acp-go-sdk"
)

// inputStartedLocked is called when an input's user message enters the model's context. A
// queued prompt is delivered as a follow-up only when the turn before it would stop, so
// when a prompt's message starts, the prompts that started before it have ended their
// turns: they are answered now, each after every update of its own turn and before any of
// the follow-up's, rather than when the whole busy period settles. Prompts that never
// started (cancelled while queued) are left to the settle. The caller holds w.mu.
func (st *acpSession) inputStartedLocked(w *writer, inputID string) {
	at := -1
	for i := range st.prompts {
		if st.prompts[i].inputID == inputID {
			at = i
			break
		}
	}
	if at < 0 {
		// A steer (_pi-rpc/steer) has no prompt of its own: it belongs to the running turn.
		return
	}
	st.prompts[at].started = true
	keep := st.prompts[:0]
	for i, p := range st.prompts {
		if i < at && p.started {
			w.queueLocked(outResult{JSONRPC: "2.0", ID: p.reqID, Result: sdk.PromptResponse{StopReason: st.stopReasonLocked()}})
			continue
		}
		keep = append(keep, p)
	}
	st.prompts = keep
}
