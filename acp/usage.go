package acp

import (
	"math"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// usageLocked queues the usage_update an assistant message's usage implies: the context it
// reports (pi's calculateContextTokens) against the model's window, and the session's
// cumulative cost when the model has prices. Aborted and failed replies report partial or
// no usage and send none; so does a model whose window is unknown. The caller holds w.mu.
func (st *acpSession) usageLocked(w *writer, m *core.AssistantMessage) {
	if m.StopReason == core.StopReasonAborted || m.StopReason == core.StopReasonError {
		return
	}
	st.cost += m.Usage.Cost.Total
	used := session.CalculateContextTokens(m.Usage)
	if used == 0 || st.window <= 0 {
		return
	}
	st.updateLocked(w, st.usageUpdate(used))
}

// usageUpdate is a usage_update of used tokens. The caller holds w.mu (or owns st alone).
func (st *acpSession) usageUpdate(used int) sdk.SessionUpdate {
	u := &sdk.SessionUsageUpdate{Used: used, Size: st.window}
	if st.cost > 0 {
		// Rounded to a billionth of a dollar, so sums of prices read as they are.
		u.Cost = &sdk.Cost{Amount: math.Round(st.cost*1e9) / 1e9, Currency: "USD"}
	}
	return sdk.SessionUpdate{UsageUpdate: u}
}

// initUsage reads what the usage updates start from: the model's window and, for a loaded
// session, the cost so far. It returns the loaded context's usage update, if known. It is
// called before the session is live.
func (st *acpSession) initUsage() *sdk.SessionUpdate {
	stats := st.sup.Stats()
	st.window = st.sup.State().Model.ContextWindow
	st.cost = stats.Cost
	if cu := stats.ContextUsage; cu != nil && cu.Tokens != nil && *cu.Tokens > 0 && st.window > 0 {
		u := st.usageUpdate(*cu.Tokens)
		return &u
	}
	return nil
}
