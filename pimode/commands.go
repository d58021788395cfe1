package pimode

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/session"
)

// handler serves one command. It writes its own success response (synchronously, placed
// among the events an input causes, or from a goroutine) and returns an error for the
// failure response.
type handler func(s *Server, r *request) error

// commands is pi 0.73.1's command table plus the later additions its current clients use.
var commands map[string]handler

func init() {
	commands = map[string]handler{
		"prompt":                        (*Server).prompt,
		"steer":                         (*Server).steer,
		"follow_up":                     (*Server).steer,
		"abort":                         (*Server).abort,
		"new_session":                   (*Server).newSession,
		"get_state":                     (*Server).getState,
		"get_messages":                  (*Server).getMessages,
		"set_model":                     (*Server).setModel,
		"cycle_model":                   (*Server).cycleModel,
		"get_available_models":          (*Server).getAvailableModels,
		"set_thinking_level":            (*Server).setThinkingLevel,
		"cycle_thinking_level":          (*Server).cycleThinkingLevel,
		"get_available_thinking_levels": (*Server).getThinkingLevels,
		"set_steering_mode":             (*Server).setQueueMode,
		"set_follow_up_mode":            (*Server).setQueueMode,
		"compact":                       (*Server).compact,
		"set_auto_compaction":           (*Server).setToggle,
		"set_auto_retry":                (*Server).setToggle,
		"abort_retry":                   (*Server).abortRetry,
		"bash":                          (*Server).bash,
		"abort_bash":                    (*Server).abortBash,
		"get_session_stats":             (*Server).getSessionStats,
		"export_html":                   (*Server).exportHTML,
		"switch_session":                (*Server).switchSession,
		"fork":                          (*Server).fork,
		"clone":                         (*Server).clone,
		"get_fork_messages":             (*Server).getForkMessages,
		"get_last_assistant_text":       (*Server).getLastAssistantText,
		"set_session_name":              (*Server).setSessionName,
		"get_commands":                  (*Server).getCommands,
		"clear_queue":                   (*Server).clearQueue,
		"get_entries":                   (*Server).getEntries,
		"get_tree":                      (*Server).getTree,
	}
}

// busyText is pi's refusal of a prompt while a run streams.
const busyText = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."

type disposition struct {
	Disposition session.Disposition `json:"disposition"`
}

func (r *request) messageAndImages() (string, []core.Content, error) {
	var msg string
	if err := r.required("message", &msg); err != nil {
		return "", nil, err
	}
	var images []core.Content
	if _, err := r.field("images", &images); err != nil {
		return "", nil, err
	}
	return msg, images, nil
}

// prompt answers as pi does: a started prompt's response precedes agent_start; a queued
// one's follows its queue_update (submit).
func (s *Server) prompt(r *request) error {
	msg, images, err := r.messageAndImages()
	if err != nil {
		return err
	}
	var behavior string
	if _, err := r.field("streamingBehavior", &behavior); err != nil {
		return err
	}
	whenBusy := "reject"
	switch behavior {
	case "":
	case "steer", "followUp":
		whenBusy = behavior
	default:
		return errors.New(`Invalid prompt command: streamingBehavior must be "steer" or "followUp"`)
	}
	req := session.PromptRequest{Message: msg, Images: images, WhenBusy: whenBusy}
	err = s.startPrompt(r, req)
	var se *session.Error
	if !errors.As(err, &se) || se.Kind != session.KindBusy {
		return err
	}
	if wait := s.finishingPeriod(); wait != nil {
		// The run has ended (its agent_end is out) and the engine is only settling it: pi is
		// idle by then, so the prompt starts as soon as the period settles.
		s.pending.Add(1)
		go func() {
			defer s.pending.Done()
			if _, err := wait.Wait(s.ctx); err != nil {
				s.w.Write(failure(r.id, r.typ, errorText(err)))
				return
			}
			if err := s.startPrompt(r, req); err != nil {
				if errors.As(err, &se) && se.Kind == session.KindBusy {
					err = errors.New(busyText)
				}
				s.w.Write(failure(r.id, r.typ, errorText(err)))
			}
		}()
		return nil
	}
	return errors.New(busyText)
}

// startPrompt submits a prompt (submit).
func (s *Server) startPrompt(r *request, req session.PromptRequest) error {
	return s.submit(r, func() (session.Accepted, error) { return s.sup.Prompt(req) })
}

// submit calls an input method and writes its response where pi writes it: a started
// input's before its agent_start, a queued one's after its queue_update. The session emits
// the input's events from the moment it accepts it, on the run's goroutine too, so the
// events are held while the method runs and until the response is placed: right after the
// last event before the input's (Accepted.AfterSeq) when started, after everything queued
// so far when queued.
func (s *Server) submit(r *request, call func() (session.Accepted, error)) error {
	s.w.Hold()
	defer s.w.Release()
	a, err := call()
	if err != nil {
		return err
	}
	res := success(r.id, r.typ, disposition{a.Disposition})
	if a.Disposition == session.DispositionStarted {
		s.w.WriteAfter(res, a.AfterSeq)
	} else {
		s.w.Write(res)
	}
	return nil
}

// finishingPeriod returns the wait for the current busy period when no run streams and
// none is coming (no retry backoff, no compaction): the period is only being settled.
func (s *Server) finishingPeriod() *session.Pending[*session.Settled] {
	if s.sup.Agent().IsStreaming() {
		return nil
	}
	st := s.sup.State()
	if !st.Busy.Running || st.Busy.RetryUntil > 0 || st.Busy.Compacting || len(st.Busy.PermissionsPending) > 0 {
		return nil
	}
	wait, err := s.sup.Wait("")
	if err != nil {
		return nil
	}
	return wait
}

// steer serves steer and follow_up. Their response follows the queue_update they cause.
func (s *Server) steer(r *request) error {
	msg, images, err := r.messageAndImages()
	if err != nil {
		return err
	}
	req := session.QueueRequest{Message: msg, Images: images}
	method := s.sup.FollowUp
	if r.typ == "steer" {
		method = s.sup.Steer
	}
	return s.submit(r, func() (session.Accepted, error) { return method(req) })
}

// abort answers once the aborted run has ended: after its agent_end and agent_settled.
func (s *Server) abort(r *request) error {
	wait, err := s.sup.Wait("")
	if err != nil {
		return err
	}
	if !s.sup.Abort() {
		s.w.Write(success(r.id, r.typ, nil))
		return nil
	}
	s.async(r, func() (any, error) {
		_, err := wait.Wait(s.ctx)
		return nil, err
	})
	return nil
}

// settle aborts a busy period and waits for it, for the commands pi runs whatever the agent
// is doing (new_session, switch_session, fork, compact), which the engine runs only idle.
func (s *Server) settle() error {
	wait, err := s.sup.Wait("")
	if err != nil {
		return err
	}
	if s.sup.Abort() {
		_, err = wait.Wait(s.ctx)
	}
	return err
}

type cancelled struct {
	Cancelled bool `json:"cancelled"`
}

func (s *Server) newSession(r *request) error {
	var parent string
	if _, err := r.field("parentSession", &parent); err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		if _, err := s.sup.NewSession(); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	})
	return nil
}

func (s *Server) switchSession(r *request) error {
	var path string
	if err := r.required("sessionPath", &path); err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		if _, err := s.sup.OpenSession(path); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	})
	return nil
}

func (s *Server) fork(r *request) error {
	var entryID string
	if err := r.required("entryId", &entryID); err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		res, err := s.sup.ForkSession(entryID)
		if err != nil {
			return nil, err
		}
		return struct {
			Text      string `json:"text"`
			Cancelled bool   `json:"cancelled"`
		}{res.Text, false}, nil
	})
	return nil
}

// clone duplicates the current branch into a new session file and continues there (pi's
// fork at the leaf): after the run settles, as fork.
func (s *Server) clone(r *request) error {
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		// pi refuses a session with nothing selected; pi-rpc's new session already holds
		// its model entries, so "nothing" is no message yet.
		if len(s.sup.Messages()) == 0 {
			return nil, errors.New("Cannot clone session: no current entry selected")
		}
		ref, err := s.sup.CloneBranch()
		if err != nil {
			return nil, err
		}
		if _, err := s.sup.OpenSession(ref.SessionFile); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	})
	return nil
}

// rpcSessionState is pi's RpcSessionState.
type rpcSessionState struct {
	Model                 *core.Model        `json:"model,omitempty"`
	ThinkingLevel         core.ThinkingLevel `json:"thinkingLevel"`
	IsStreaming           bool               `json:"isStreaming"`
	IsCompacting          bool               `json:"isCompacting"`
	SteeringMode          core.QueueMode     `json:"steeringMode"`
	FollowUpMode          core.QueueMode     `json:"followUpMode"`
	SessionFile           string             `json:"sessionFile,omitempty"`
	SessionID             string             `json:"sessionId"`
	SessionName           string             `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool               `json:"autoCompactionEnabled"`
	MessageCount          int                `json:"messageCount"`
	PendingMessageCount   int                `json:"pendingMessageCount"`
}

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
	p := session.OptionsPatch{}
	if r.typ == "set_steering_mode" {
		p.SteeringMode = &mode
	} else {
		p.FollowUpMode = &mode
	}
	s.sup.SetOptions(p)
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

func (s *Server) setToggle(r *request) error {
	var on bool
	if err := r.required("enabled", &on); err != nil {
		return err
	}
	p := session.OptionsPatch{}
	if r.typ == "set_auto_compaction" {
		p.AutoCompaction = &on
	} else {
		p.AutoRetry = &on
	}
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

// compact aborts a running run first, as pi does, then compacts.
func (s *Server) compact(r *request) error {
	var instructions string
	if _, err := r.field("customInstructions", &instructions); err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		compaction, err := s.sup.Compact(instructions)
		if err != nil {
			return nil, err
		}
		res, err := compaction.Result()
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}

// bash runs the user's command. As pi 1.6.0, each piece of output is streamed as
// bash_execution_update {id, delta} (id: the command's, when it has one) before the response,
// and excludeFromContext keeps the output out of the model's context.
func (s *Server) bash(r *request) error {
	var command string
	if err := r.required("command", &command); err != nil {
		return err
	}
	var exclude bool
	if _, err := r.field("excludeFromContext", &exclude); err != nil {
		return err
	}
	run, err := s.sup.BashWith(command, session.BashOptions{ExcludeFromContext: exclude, OnChunk: func(delta string) {
		s.w.Write(bashExecutionUpdate(r.id, delta))
	}})
	if err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		res, err := run.Result()
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}

// bashExecutionUpdate is pi 1.6.0's {"type":"bash_execution_update","id"?,"delta"}.
func bashExecutionUpdate(id json.RawMessage, delta string) []byte {
	b := make([]byte, 0, 64+len(delta))
	b = append(b, `{"type":"bash_execution_update"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"delta":`...)
	b = jsonstring.Append(b, delta)
	return append(b, '}')
}

func (s *Server) abortBash(r *request) error {
	s.sup.AbortBash()
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

func (s *Server) getSessionStats(r *request) error {
	s.w.Write(success(r.id, r.typ, s.sup.Stats()))
	return nil
}

// getForkMessages lists the user messages of every branch, in file order, as pi does.
func (s *Server) getForkMessages(r *request) error {
	page, err := s.sup.FileEntries("", 0)
	if err != nil {
		return err
	}
	type forkMessage struct {
		EntryID string `json:"entryId"`
		Text    string `json:"text"`
	}
	out := []forkMessage{}
	for _, raw := range page.Entries {
		var e struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Type != "message" || e.Message.Role != "user" {
			continue
		}
		if text := contentText(e.Message.Content); text != "" {
			out = append(out, forkMessage{e.ID, text})
		}
	}
	s.w.Write(success(r.id, r.typ, struct {
		Messages []forkMessage `json:"messages"`
	}{out}))
	return nil
}

// contentText concatenates the text blocks of a message content (a string or blocks).
func contentText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// getLastAssistantText answers with the text of the last assistant message, as pi 1.6.0
// picks it: a message that did not stop normally (tool use, aborted, failed) counts only when
// it has text.
func (s *Server) getLastAssistantText(r *request) error {
	msgs := s.sup.Messages()
	var text *string
	for i := len(msgs) - 1; i >= 0; i-- {
		am, ok := msgs[i].(*core.AssistantMessage)
		if !ok {
			continue
		}
		var b strings.Builder
		for _, c := range am.Content {
			if c.Type == core.ContentText {
				b.WriteString(c.Text)
			}
		}
		t := strings.TrimSpace(b.String())
		if am.StopReason != core.StopReasonStop && t == "" {
			continue
		}
		if t != "" {
			text = &t
		}
		break
	}
	s.w.Write(success(r.id, r.typ, struct {
		Text *string `json:"text,omitempty"`
	}{text}))
	return nil
}

func (s *Server) setSessionName(r *request) error {
	var name string
	if err := r.required("name", &name); err != nil {
		return err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("Session name cannot be empty")
	}
	if _, err := s.sup.SetSessionName(name); err != nil {
		return err
	}
	// pi 1.6.0 announces the new name before it answers.
	ev := append([]byte(`{"type":"session_info_changed","name":`), jsonstring.Append(nil, name)...)
	s.w.Write(append(ev, '}'))
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

// getCommands lists no commands: pi-rpc has no extensions, prompt templates or skills.
func (s *Server) clearQueue(r *request) error {
	q := s.sup.ClearQueues()
	s.w.Write(success(r.id, r.typ, piQueue{Steering: queueTexts(q.Steering), FollowUp: queueTexts(q.FollowUp)}))
	return nil
}

func (s *Server) getEntries(r *request) error {
	var since string
	if _, err := r.field("since", &since); err != nil {
		return err
	}
	page, err := s.sup.FileEntries(since, 0)
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) && se.Kind == session.KindNotFound {
			return errors.New("Entry not found: " + since)
		}
		return err
	}
	entries := page.Entries
	if entries == nil {
		entries = []json.RawMessage{}
	}
	s.w.Write(success(r.id, r.typ, struct {
		Entries []json.RawMessage `json:"entries"`
		LeafID  *string           `json:"leafId"`
	}{entries, s.leafID()}))
	return nil
}

func (s *Server) getTree(r *request) error {
	page, err := s.sup.FileEntries("", 0)
	if err != nil {
		return err
	}
	roots, err := buildPiTree(page.Entries)
	if err != nil {
		return err
	}
	s.w.Write(success(r.id, r.typ, struct {
		Tree   []*piTreeNode `json:"tree"`
		LeafID *string       `json:"leafId"`
	}{roots, s.leafID()}))
	return nil
}

// leafID is the current leaf for get_entries and get_tree: null when the session has none.
func (s *Server) leafID() *string {
	if leaf := s.sup.Leaf(); leaf != "" {
		return &leaf
	}
	return nil
}
