package session

import (
	"encoding/json"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The input outcomes of docs/protocol.md#inputs-and-busy-periods.
const (
	OutcomeCompleted sessionapi.Outcome = "completed"
	OutcomeAborted   sessionapi.Outcome = "aborted"
	OutcomeFailed    sessionapi.Outcome = "failed"
	OutcomeCancelled sessionapi.Outcome = "cancelled"
)

// The failure kinds of agent_settled.error.
const (
	SettleErrorProvider    sessionapi.SettleErrorKind = "provider"
	SettleErrorOverflow    sessionapi.SettleErrorKind = "overflow"
	SettleErrorAuth        sessionapi.SettleErrorKind = "auth"
	SettleErrorPersistence sessionapi.SettleErrorKind = "persistence"
)

// The compaction reasons.
const (
	CompactionManual    sessionapi.CompactionReason = "manual"
	CompactionThreshold sessionapi.CompactionReason = "threshold"
	CompactionOverflow  sessionapi.CompactionReason = "overflow"
)

func jsonMarshal(v any) (json.RawMessage, error) { return json.Marshal(v) }
