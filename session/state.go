package session

import (
	"slices"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Snapshot is the supervisor's part of getState, consistent with the events up to LastSeq.
type Snapshot struct {
	Model         core.Model           `json:"model"`
	ThinkingLevel core.ThinkingLevel   `json:"thinkingLevel"`
	Options       sessionapi.Options   `json:"options"`
	SessionID     string               `json:"sessionId"`
	SessionFile   string               `json:"sessionFile,omitempty"`
	SessionName   string               `json:"sessionName,omitempty"`
	Settled       bool                 `json:"settled"`
	Busy          sessionapi.BusyState `json:"busy"`
	BashRunning   bool                 `json:"bashRunning"`
	LastSeq       int64                `json:"lastSeq"`
}

// State returns a snapshot computed under the lock that assigns seq.
func (s *Supervisor) State() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.agent.Status()
	q := s.queueSnapshotLocked()
	perms := slices.Clone(s.ledger.permissionsPending)
	if perms == nil {
		perms = []sessionapi.PendingPermission{}
	}
	tools := slices.Clone(s.ledger.toolsRunning)
	if tools == nil {
		tools = []string{}
	}
	return Snapshot{
		Model:         st.Model,
		ThinkingLevel: st.ThinkingLevel,
		Options:       s.options,
		SessionID:     s.store.SessionID(),
		SessionFile:   s.store.File(),
		SessionName:   sessionNameOf(s.store),
		Settled:       s.period == nil,
		Busy: sessionapi.BusyState{
			Running:            s.period != nil,
			Streaming:          s.ledger.streaming,
			ToolsRunning:       tools,
			RetryUntil:         s.ledger.retryUntil,
			Compacting:         s.ledger.compacting,
			PermissionsPending: perms,
			Steering:           q.Steering,
			FollowUp:           q.FollowUp,
		},
		BashRunning: s.bash.running,
		LastSeq:     s.sink.LastSeq(),
	}
}
