package session

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// SetProvider switches the provider serving the model (setModel across providers) and clears
// the startup problem that kept inputs from reaching a model.
func (s *Supervisor) SetProvider(p core.Provider) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agent.SetProvider(p)
	s.cfg.Agent.Provider = p // compaction and branch summaries use it too
	s.cfg.ProviderProblem = ""
}

// Messages returns the model context.
func (s *Supervisor) Messages() []core.Message { return s.agent.Messages() }

// SetModel switches the model: it is recorded in the session, the thinking level is clamped
// to it, and model_changed (and thinking_level_changed if the level changed) is emitted.
func (s *Supervisor) SetModel(m core.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agent.SetModel(m)
	s.appendLocked(&Entry{Type: EntryModelChange, Provider: m.Provider, ModelID: m.ID})
	s.emitLocked(sessionapi.EventModelChanged, sessionapi.ModelChanged{Model: m})
	st := s.agent.State()
	s.setThinkingLocked(st.Model.ClampThinkingLevel(st.ThinkingLevel))
}

// SetThinkingLevel sets the thinking level, clamped to the model, and returns the level set.
func (s *Supervisor) SetThinkingLevel(l core.ThinkingLevel) core.ThinkingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.agent.State()
	return s.setThinkingLocked(st.Model.ClampThinkingLevel(l))
}

func (s *Supervisor) setThinkingLocked(l core.ThinkingLevel) core.ThinkingLevel {
	if s.agent.State().ThinkingLevel == l {
		return l
	}
	s.agent.SetThinkingLevel(l)
	s.appendLocked(&Entry{Type: EntryThinkingLevelChange, ThinkingLevel: l})
	s.emitLocked(sessionapi.EventThinkingLevelChanged, sessionapi.ThinkingLevelChanged{Level: l})
	return l
}

// OptionsPatch changes some options; nil fields stay as they are.
type OptionsPatch struct {
	SteeringMode   *core.QueueMode
	FollowUpMode   *core.QueueMode
	AutoRetry      *bool
	AutoCompaction *bool
	ToolExecution  *core.ExecutionMode
	Approval       *string
}

// SetOptions applies a patch and returns the options in force.
func (s *Supervisor) SetOptions(p OptionsPatch) sessionapi.Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.SteeringMode != nil {
		s.options.SteeringMode = *p.SteeringMode
	}
	if p.FollowUpMode != nil {
		s.options.FollowUpMode = *p.FollowUpMode
	}
	if p.AutoRetry != nil {
		s.options.AutoRetry = *p.AutoRetry
	}
	if p.AutoCompaction != nil {
		s.options.AutoCompaction = *p.AutoCompaction
	}
	if p.ToolExecution != nil {
		s.options.ToolExecution = *p.ToolExecution
		s.agent.SetToolExecution(*p.ToolExecution)
	}
	if p.Approval != nil {
		s.options.Approval = *p.Approval
		s.approvalChosen = true
	}
	return s.options
}
