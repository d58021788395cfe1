package core

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/internal/toolschema"
)

// Errors returned by [Agent] methods. Their texts are the ones clients see.
var (
	ErrBusy             = errors.New("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.")
	ErrBusyContinue     = errors.New("Agent is already processing. Wait for completion before continuing.")
	ErrBusyReset        = errors.New("Agent is already processing. Wait for completion before resetting.")
	ErrNoMessages       = errors.New("No messages to continue from")
	ErrNothingToResume  = errors.New("Nothing to continue: the last message is a finished reply; send a prompt")
	ErrNoProvider       = errors.New("core: no provider configured")
	errStreamIncomplete = "Provider stream ended without a done or error event"
)

// Listener receives every event of every run, in order, on the run's goroutine; the run waits
// for it to return (pi's awaited listeners), so a slow listener slows the run. ctx is the
// run's context: it is cancelled when the run is aborted.
type Listener func(ctx context.Context, ev Event)

// Options configure an [Agent]. Hooks run on the run's goroutine.
type Options struct {
	Provider      Provider
	SystemPrompt  string
	Model         Model
	ThinkingLevel ThinkingLevel
	Tools         []Tool
	Messages      []Message
	SessionID     string
	// MaxTokens caps each response; 0 leaves it to the provider.
	MaxTokens int

	// ConvertToLLM projects the transcript for the model; default [ConvertToLLM].
	ConvertToLLM func(ctx context.Context, messages []Message) ([]Message, error)
	// TransformContext, if set, rewrites the transcript before ConvertToLLM.
	TransformContext func(ctx context.Context, messages []Message) ([]Message, error)
	// BeforeToolCall runs for each call during the sequential prepare phase, in source order.
	BeforeToolCall func(ctx context.Context, c *BeforeToolCallContext) (*BeforeToolCallResult, error)
	// AfterToolCall runs after each executed call.
	AfterToolCall func(ctx context.Context, c *AfterToolCallContext) (*AfterToolCallResult, error)
	// ShouldStopAfterTurn ends the run after a turn when it returns true; queues are not polled.
	ShouldStopAfterTurn func(ctx context.Context, t *TurnInfo) bool

	// ToolExecution is ExecutionParallel when empty.
	ToolExecution ExecutionMode
	// Queues are polled by the loop on the run's goroutine, without the agent's lock held.
	Queues Queues

	// Clock stamps messages and times the abandon timer; nil means [clock.System].
	Clock clock.Clock
	// AbandonAfter is how long a tool may ignore an abort before it is abandoned; 50 ms when
	// zero.
	AbandonAfter time.Duration
}

// State is a snapshot of the agent's state.
type State struct {
	SystemPrompt  string
	Model         Model
	ThinkingLevel ThinkingLevel
	Tools         []Tool
	Messages      []Message
	// IsStreaming is true from the moment a run starts until its agent_end listeners return.
	IsStreaming bool
	// StreamingMessage is the message between its message_start and message_end.
	StreamingMessage Message
	// PendingToolCalls are the ids between tool_execution_start and tool_execution_end.
	PendingToolCalls []string
	// ErrorMessage is the last run's error, if its last turn failed.
	ErrorMessage  string
	SessionID     string
	ToolExecution ExecutionMode
}

// Agent runs pi's two-level agent loop (agent-loop.ts) around one conversation. See the package
// documentation for its concurrency contract.
type Agent struct {
	opts       Options
	clock      clock.Clock
	validators *toolschema.Cache

	mu        sync.Mutex
	state     State
	listeners []*listener
	active    *Run
	// load, when not nil, makes the transcript the first time it is needed
	// (SetMessagesFunc): a resumed session's branch is decoded on its first prompt or read,
	// not when the session is opened.
	load func() []Message
}

type listener struct{ fn Listener }

// Run is one run of the loop, from agent_start to agent_end.
type Run struct {
	done     chan struct{}
	cancel   context.CancelFunc
	messages []Message
}

// Done is closed when the run has ended and its agent_end listeners have returned.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait waits for the run to end and returns the messages it produced (agent_end's messages).
func (r *Run) Wait() []Message {
	<-r.done
	return r.messages
}

// New returns an idle agent.
func New(opts Options) *Agent {
	if opts.ToolExecution == "" {
		opts.ToolExecution = ExecutionParallel
	}
	if opts.ThinkingLevel == "" {
		opts.ThinkingLevel = ThinkingOff
	}
	if opts.Clock == nil {
		opts.Clock = clock.System
	}
	if opts.AbandonAfter == 0 {
		opts.AbandonAfter = 50 * time.Millisecond
	}
	if opts.ConvertToLLM == nil {
		opts.ConvertToLLM = func(_ context.Context, ms []Message) ([]Message, error) { return ConvertToLLM(ms), nil }
	}
	if opts.Model.ID == "" {
		opts.Model = Model{ID: "unknown", Name: "unknown", API: "unknown", Provider: "unknown", Input: []string{"text"}}
	}
	return &Agent{
		opts:       opts,
		clock:      opts.Clock,
		validators: toolschema.NewCache(),
		state: State{
			SystemPrompt:  opts.SystemPrompt,
			Model:         opts.Model,
			ThinkingLevel: opts.ThinkingLevel,
			Tools:         slices.Clone(opts.Tools),
			Messages:      slices.Clone(opts.Messages),
			SessionID:     opts.SessionID,
			ToolExecution: opts.ToolExecution,
		},
	}
}

// State returns a snapshot; its slices are copies.
func (a *Agent) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loadLocked()
	s := a.state
	s.Tools = slices.Clone(s.Tools)
	s.Messages = slices.Clone(s.Messages)
	s.PendingToolCalls = slices.Clone(s.PendingToolCalls)
	return s
}

// Status is [Agent.State] without the transcript (Messages is nil): for callers that want the
// model, the thinking level, the modes or whether a run is active. It never makes a transcript
// set by SetMessagesFunc.
func (a *Agent) Status() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state
	s.Tools = slices.Clone(s.Tools)
	s.Messages = nil
	s.PendingToolCalls = slices.Clone(s.PendingToolCalls)
	return s
}

// loadLocked makes the transcript set by SetMessagesFunc, once. The caller holds a.mu.
func (a *Agent) loadLocked() {
	if a.load == nil {
		return
	}
	load := a.load
	a.load = nil
	a.state.Messages = load()
}

// Messages returns a copy of the transcript (never nil).
func (a *Agent) Messages() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loadLocked()
	return append(make([]Message, 0, len(a.state.Messages)), a.state.Messages...)
}

// IsStreaming reports whether a run is active.
func (a *Agent) IsStreaming() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.IsStreaming
}

func (a *Agent) set(f func(s *State)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.state)
}

// SetProvider replaces the provider; it applies from the next model request.
func (a *Agent) SetProvider(p Provider) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.Provider = p
}

// SetSystemPrompt replaces the system prompt; it applies from the next model request.
func (a *Agent) SetSystemPrompt(p string) { a.set(func(s *State) { s.SystemPrompt = p }) }

// SetModel replaces the model; it applies from the next model request.
func (a *Agent) SetModel(m Model) { a.set(func(s *State) { s.Model = m }) }

// SetThinkingLevel sets the thinking level; it applies from the next model request.
func (a *Agent) SetThinkingLevel(l ThinkingLevel) { a.set(func(s *State) { s.ThinkingLevel = l }) }

// SetTools replaces the tools (copying the slice); it applies from the next model request.
func (a *Agent) SetTools(tools []Tool) { a.set(func(s *State) { s.Tools = slices.Clone(tools) }) }

// SetMessages replaces the transcript (copying the slice). It must not be called during a run.
func (a *Agent) SetMessages(ms []Message) {
	a.set(func(s *State) {
		a.load = nil
		s.Messages = slices.Clone(ms)
	})
}

// SetMessagesFunc replaces the transcript with the one load returns, called the first time the
// transcript is needed (a run, State, Messages, AppendMessage) rather than now. load runs with
// the agent's lock held: it must not call the agent. It must not be called during a run.
func (a *Agent) SetMessagesFunc(load func() []Message) {
	a.set(func(s *State) {
		a.load = load
		s.Messages = nil
	})
}

// AppendMessage adds a message to the transcript outside a run (a bash execution, say).
func (a *Agent) AppendMessage(m Message) {
	a.set(func(s *State) {
		a.loadLocked()
		s.Messages = append(s.Messages, m)
	})
}

// SetSessionID sets the session id passed to the provider.
func (a *Agent) SetSessionID(id string) { a.set(func(s *State) { s.SessionID = id }) }

// SetToolExecution sets the default execution mode of tool batches.
func (a *Agent) SetToolExecution(m ExecutionMode) { a.set(func(s *State) { s.ToolExecution = m }) }

// Subscribe adds a listener and returns a function that removes it. Subscribing emits
// nothing; listeners are called in subscription order.
func (a *Agent) Subscribe(fn Listener) (unsubscribe func()) {
	l := &listener{fn: fn}
	a.mu.Lock()
	a.listeners = append(slices.Clone(a.listeners), l)
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		i := slices.Index(a.listeners, l)
		if i >= 0 {
			a.listeners = slices.Delete(slices.Clone(a.listeners), i, i+1)
		}
	}
}

// Prompt starts a run with the given messages and returns at once; the run goes on in its own
// goroutine. It fails with [ErrBusy] while a run is active.
func (a *Agent) Prompt(in ...Input) (*Run, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		return nil, ErrBusy
	}
	return a.startLocked(in, pollSteering), nil
}

// initialPoll says whether a run polls steering before its first model call.
type initialPoll bool

const (
	pollSteering initialPoll = true
	// skipSteering: the run delivers queued steering as its prompts (pi's
	// skipInitialSteeringPoll).
	skipSteering initialPoll = false
)

// Continue starts a run from the current transcript (pi's Agent.continue, with the rule of
// docs/protocol.md#continue for a failed reply):
//   - a trailing assistant message that failed or was aborted leaves the transcript and the
//     run continues from the message before it;
//   - after a finished reply, queued steering is delivered as a new prompt (without the
//     initial steering poll), else queued follow-ups; with nothing queued it fails with
//     [ErrNothingToResume];
//   - after any other message (user, tool result, custom, bash execution) the model is called
//     again.
//
// queued is polled synchronously, under the agent's lock, on the caller's goroutine: the
// caller passes its queues in a form it can call from where it is (the session holds its own
// lock while it decides to continue, so it cannot pass the locking [Options.Queues]).
func (a *Agent) Continue(queued Queues) (*Run, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		return nil, ErrBusyContinue
	}
	a.loadLocked()
	ms := a.state.Messages
	if last, ok := lastAssistant(ms); ok && (last.StopReason == StopReasonError || last.StopReason == StopReasonAborted) {
		ms = ms[:len(ms)-1]
		a.state.Messages = ms
	}
	if _, reply := lastAssistant(ms); reply || len(ms) == 0 {
		if q := queued.steering(); len(q) > 0 {
			return a.startLocked(q, skipSteering), nil
		}
		if q := queued.followUp(); len(q) > 0 {
			return a.startLocked(q, pollSteering), nil
		}
		if len(ms) == 0 {
			return nil, ErrNoMessages
		}
		return nil, ErrNothingToResume
	}
	return a.startLocked(nil, pollSteering), nil
}

func lastAssistant(ms []Message) (*AssistantMessage, bool) {
	if len(ms) == 0 {
		return nil, false
	}
	m, ok := ms[len(ms)-1].(*AssistantMessage)
	return m, ok
}

// Abort cancels the active run and reports whether there was one. The run ends with
// agent_end shortly after; tools that ignore the cancellation are abandoned.
func (a *Agent) Abort() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active == nil {
		return false
	}
	a.active.cancel()
	return true
}

// ActiveRun returns the active run, or nil when idle.
func (a *Agent) ActiveRun() *Run {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.active
}

// WaitForIdle waits until no run is active (including its listeners) or ctx ends.
func (a *Agent) WaitForIdle(ctx context.Context) error {
	for {
		r := a.ActiveRun()
		if r == nil {
			return nil
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Reset clears the transcript and the error. It fails while a run is active.
func (a *Agent) Reset() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		return ErrBusyReset
	}
	a.load = nil
	a.state.Messages = nil
	a.state.StreamingMessage = nil
	a.state.PendingToolCalls = nil
	a.state.ErrorMessage = ""
	return nil
}

// startLocked starts a run; the caller holds a.mu and has checked that none is active.
func (a *Agent) startLocked(prompts []Input, poll initialPoll) *Run {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Run{done: make(chan struct{}), cancel: cancel}
	a.loadLocked()
	a.active = r
	a.state.IsStreaming = true
	a.state.StreamingMessage = nil
	a.state.ErrorMessage = ""
	l := &loop{
		a:        a,
		ctx:      ctx,
		messages: slices.Clone(a.state.Messages),
	}
	go func() {
		defer cancel()
		r.messages = l.run(prompts, poll)
		a.mu.Lock()
		a.state.IsStreaming = false
		a.state.StreamingMessage = nil
		a.state.PendingToolCalls = nil
		a.active = nil
		a.mu.Unlock()
		close(r.done)
	}()
	return r
}

// reduce applies an event to the state before listeners see it (as in pi). The caller holds
// a.mu.
func (a *Agent) reduce(ev *Event) {
	s := &a.state
	switch ev.Type {
	case MessageStart, MessageUpdate:
		s.StreamingMessage = ev.Message
	case MessageEnd:
		s.StreamingMessage = nil
		a.loadLocked()
		s.Messages = append(s.Messages, ev.Message)
	case ToolExecutionStart:
		s.PendingToolCalls = append(s.PendingToolCalls, ev.ToolCallID)
	case ToolExecutionEnd:
		if i := slices.Index(s.PendingToolCalls, ev.ToolCallID); i >= 0 {
			s.PendingToolCalls = slices.Delete(s.PendingToolCalls, i, i+1)
		}
	case TurnEnd:
		if m, ok := ev.Message.(*AssistantMessage); ok && m.ErrorMessage != "" {
			s.ErrorMessage = m.ErrorMessage
		}
	case AgentEnd:
		s.StreamingMessage = nil
	}
}
