package pimode

import (
	"errors"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// handler serves one command. It writes its own success response (synchronously, placed
// among the events an input causes, or from a goroutine) and returns an error for the
// failure response.
type handler func(s *Server, r *request) error

// commands is pi 0.73.1's command table plus the later additions its current clients use.
// Every front end declares its table this way (rpc.methods, acp.methods, pimode.commands):
// one package-level map literal of the package's entry type, with no init() adding to it.
var commands = map[string]handler{
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

// busyText is pi's refusal of a prompt while a run streams.
const busyText = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."

type disposition struct {
	Disposition sessionapi.Disposition `json:"disposition"`
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
	return s.submit(r, func() (sessionapi.Accepted, error) { return s.sup.Prompt(req) })
}

// submit calls an input method and writes its response where pi writes it: a started
// input's before its agent_start, a queued one's after its queue_update. The session emits
// the input's events from the moment it accepts it, on the run's goroutine too, so the
// events are held while the method runs and until the response is placed: right after the
// last event before the input's (Accepted.AfterSeq) when started, after everything queued
// so far when queued.
func (s *Server) submit(r *request, call func() (sessionapi.Accepted, error)) error {
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
func (s *Server) finishingPeriod() *session.Pending[*sessionapi.Settled] {
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
	return s.submit(r, func() (sessionapi.Accepted, error) { return method(req) })
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

// asyncSettled answers a command that pi runs whatever the agent is doing (new_session,
// switch_session, fork, clone, compact), which the engine runs only idle: from its own
// goroutine, with what run returns once the busy period has been aborted and has settled.
func (s *Server) asyncSettled(r *request, run func() (any, error)) {
	s.async(r, func() (any, error) {
		if err := s.settle(); err != nil {
			return nil, err
		}
		return run()
	})
}

// settle aborts a busy period and waits for it (asyncSettled).
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

// switched answers a command that moves to another session with pi's {"cancelled": false},
// or with the error that kept it from moving. pi-rpc never cancels a switch: the busy
// period is aborted and settles first (asyncSettled).
func switched[T any](_ T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return cancelled{false}, nil
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
