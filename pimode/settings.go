package pimode

import (
	"errors"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

func (s *Server) getState(r *request) error {
	st := s.sup.State()
	out := rpcSessionState{
		ThinkingLevel: st.ThinkingLevel,
		// isStreaming is the busy period: true from the prompt's acceptance to agent_settled,
		// retry backoff included (pi: only while a run streams).
		IsStreaming:           st.Busy.Running,
		IsCompacting:          st.Busy.Compacting,
		SteeringMode:          st.Options.SteeringMode,
		FollowUpMode:          st.Options.FollowUpMode,
		SessionFile:           st.SessionFile,
		SessionID:             st.SessionID,
		SessionName:           st.SessionName,
		AutoCompactionEnabled: st.Options.AutoCompaction,
		MessageCount:          len(s.sup.Messages()),
		PendingMessageCount:   len(st.Busy.Steering) + len(st.Busy.FollowUp),
	}
	if st.Model.ID != "" {
		m := st.Model
		out.Model = &m
	}
	s.w.Write(success(r.id, r.typ, out))
	return nil
}

func (s *Server) getMessages(r *request) error {
	msgs := s.sup.Messages()
	if msgs == nil {
		msgs = []core.Message{}
	}
	s.w.Write(success(r.id, r.typ, struct {
		Messages []core.Message `json:"messages"`
	}{msgs}))
	return nil
}

// setModel switches through the host; every failure is pi's "Model not found" (pi looks
// the model up among the available ones).
func (s *Server) setModel(r *request) error {
	var provider, id string
	if err := r.required("provider", &provider); err != nil {
		return err
	}
	if err := r.required("modelId", &id); err != nil {
		return err
	}
	if err := s.host.SetModel(s.sup, provider, id); err != nil {
		return errors.New("Model not found: " + provider + "/" + id)
	}
	s.w.Write(success(r.id, r.typ, s.sup.State().Model))
	return nil
}

// modelList is the host's available models, [] when none.
func (s *Server) modelList() []core.Model {
	l := s.host.AvailableModels()
	if l == nil {
		l = []core.Model{}
	}
	return l
}

func (s *Server) cycleModel(r *request) error {
	list, scoped := s.modelList(), len(s.scope) > 0
	if scoped {
		list = s.scope
	}
	if len(list) <= 1 {
		s.w.Write(success(r.id, r.typ, nullData))
		return nil
	}
	cur := s.sup.State().Model
	next := 0
	for i, m := range list {
		if m.ID == cur.ID && m.Provider == cur.Provider {
			next = (i + 1) % len(list)
		}
	}
	if err := s.host.SetModel(s.sup, list[next].Provider, list[next].ID); err != nil {
		return err
	}
	st := s.sup.State()
	s.w.Write(success(r.id, r.typ, struct {
		Model         core.Model         `json:"model"`
		ThinkingLevel core.ThinkingLevel `json:"thinkingLevel"`
		IsScoped      bool               `json:"isScoped"`
	}{st.Model, st.ThinkingLevel, scoped}))
	return nil
}

func (s *Server) getAvailableModels(r *request) error {
	s.w.Write(success(r.id, r.typ, struct {
		Models []core.Model `json:"models"`
	}{s.modelList()}))
	return nil
}

func validLevel(l core.ThinkingLevel) bool {
	for _, v := range core.ThinkingLevels {
		if v == l {
			return true
		}
	}
	return false
}

func (s *Server) setThinkingLevel(r *request) error {
	var level core.ThinkingLevel
	if err := r.required("level", &level); err != nil {
		return err
	}
	if !validLevel(level) {
		return errors.New("Invalid thinking level: " + string(level))
	}
	s.sup.SetThinkingLevel(level)
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

func (s *Server) cycleThinkingLevel(r *request) error {
	st := s.sup.State()
	if !st.Model.Reasoning {
		s.w.Write(success(r.id, r.typ, nullData))
		return nil
	}
	levels := st.Model.SupportedThinkingLevels()
	next := levels[0]
	for i, l := range levels {
		if l == st.ThinkingLevel {
			next = levels[(i+1)%len(levels)]
		}
	}
	set := s.sup.SetThinkingLevel(next)
	s.w.Write(success(r.id, r.typ, struct {
		Level core.ThinkingLevel `json:"level"`
	}{set}))
	return nil
}

func (s *Server) getThinkingLevels(r *request) error {
	m := s.sup.State().Model
	s.w.Write(success(r.id, r.typ, struct {
		Levels []core.ThinkingLevel `json:"levels"`
	}{m.SupportedThinkingLevels()}))
	return nil
}

func (s *Server) setQueueMode(r *request) error {
	var mode core.QueueMode
	if err := r.required("mode", &mode); err != nil {
		return err
	}
	if mode != core.QueueAll && mode != core.QueueOneAtATime {
		return errors.New(`Invalid mode: expected "all" or "one-at-a-time"`)
	}
	if r.typ == "set_steering_mode" {
		return s.setOption(r, session.OptionsPatch{SteeringMode: &mode})
	}
	return s.setOption(r, session.OptionsPatch{FollowUpMode: &mode})
}

func (s *Server) setToggle(r *request) error {
	var on bool
	if err := r.required("enabled", &on); err != nil {
		return err
	}
	if r.typ == "set_auto_compaction" {
		return s.setOption(r, session.OptionsPatch{AutoCompaction: &on})
	}
	return s.setOption(r, session.OptionsPatch{AutoRetry: &on})
}

// setOption applies the one option a set_* command names and acknowledges the command.
func (s *Server) setOption(r *request, p session.OptionsPatch) error {
	s.sup.SetOptions(p)
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

// abortRetry cancels a retry backoff, which ends the busy period as aborted.
func (s *Server) abortRetry(r *request) error {
	if st := s.sup.State(); st.Busy.RetryUntil > 0 {
		s.sup.Abort()
	}
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

// getCommands lists no commands: pi-rpc has no extensions, prompt templates or skills.
func (s *Server) clearQueue(r *request) error {
	q := s.sup.ClearQueues()
	s.w.Write(success(r.id, r.typ, piQueue{Steering: queueTexts(q.Steering), FollowUp: queueTexts(q.FollowUp)}))
	return nil
}
