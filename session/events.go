package session

import (
	"encoding/json"
)

// The input outcomes of docs/protocol.md#inputs-and-busy-periods.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeAborted   Outcome = "aborted"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
)

// The failure kinds of agent_settled.error.
const (
	SettleErrorProvider    SettleErrorKind = "provider"
	SettleErrorOverflow    SettleErrorKind = "overflow"
	SettleErrorAuth        SettleErrorKind = "auth"
	SettleErrorPersistence SettleErrorKind = "persistence"
)

// The compaction reasons.
const (
	CompactionManual    CompactionReason = "manual"
	CompactionThreshold CompactionReason = "threshold"
	CompactionOverflow  CompactionReason = "overflow"
)

func jsonMarshal(v any) (json.RawMessage, error) { return json.Marshal(v) }
