package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/sessionapi"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
)

// ErrorKind classifies a supervisor error; a front end maps each to its code (docs/protocol.md#errors).
type ErrorKind string

// The error kinds, named as the wire's data.kind.
const (
	KindBusy                  ErrorKind = "busy"
	KindInvalidState          ErrorKind = "invalidState"
	KindNotFound              ErrorKind = "notFound"
	KindProviderNotConfigured ErrorKind = "providerNotConfigured"
	KindShuttingDown          ErrorKind = "shuttingDown"
	KindTimeout               ErrorKind = "timeout"
)

// Error is a supervisor error a client can act on.
type Error struct {
	Kind    ErrorKind
	Message string
	// Data holds extra fields for the wire's error data (besides kind).
	Data map[string]any
}

func (e *Error) Error() string { return e.Message }

func errBusy(message string, suggest ...string) *Error {
	e := &Error{Kind: KindBusy, Message: message}
	if len(suggest) > 0 {
		e.Data = map[string]any{"suggest": suggest}
	}
	return e
}

// The dispositions.
const (
	DispositionStarted sessionapi.Disposition = "started"
	DispositionQueued  sessionapi.Disposition = "queued"
)

// Config configures a [Supervisor].
type Config struct {
	// Agent configures the agent; Clock and SessionID are set by the supervisor.
	Agent core.Options
	// ProviderProblem, when set, is why no model can be called (a missing API key, no
	// provider): inputs that need the model fail with it.
	ProviderProblem string
	Store           Store
	Sink            sessionapi.Sink
	Clock           clock.Clock
	Retry           RetrySettings
	Compaction      CompactionSettings
	// Approval is the initial approval mode; ApprovalFixed says it came from the command line
	// and initialize must not change it.
	Approval      string
	ApprovalFixed bool
	// Shell runs the user's own commands (the bash method); nil disables them.
	Shell ShellRunner
	// SystemMessages records the prompt and tools as pi 1.6.0 does: a system message before
	// the first prompt of a context that declares none, and a checkpoint in each compaction
	// (pi mode).
	SystemMessages bool
	// Sessions is where sessions are created and opened (newSession, openSession, fork);
	// nil keeps them in memory.
	Sessions *Catalog
	// IDs hands out input, run, permission and bash ids; sessions of one process share it.
	// Nil gives the session its own.
	IDs *IDs
	// ToolsGate, when set, says whether tools of the session are still being prepared (MCP
	// servers starting): a prompt that starts a busy period meanwhile waits for them, after
	// its answer and before its run, so that its first model request offers them.
	ToolsGate ToolsGate
	// Commands are the session's prompt templates and skills: prompt, steer and follow-up
	// expand them before the text enters the agent (commands.go). Nil: none.
	Commands CommandSet
	Logger   zerolog.Logger
}

// ToolsGate is what a session asks of whoever prepares its tools (cmd/pi-rpc's MCP host).
type ToolsGate interface {
	// Pending reports, without blocking, whether tools are still being prepared.
	Pending() bool
	// Wait returns once nothing is pending any more, the session's tools then given to it
	// with SetTools, or when ctx ends (an abort). Tools that could not be prepared in time
	// are left out, and the preparer reports why.
	Wait(ctx context.Context)
}

// Supervisor runs one agent for one client. See the package documentation.
type Supervisor struct {
	agent *core.Agent
	clock clock.Clock
	log   zerolog.Logger
	ids   *IDs

	// mu guards everything below, and is held while an event is given its seq and handed to
	// the sink, so that a state snapshot reflects exactly the events up to its lastSeq.
	mu              sync.Mutex
	cfg             Config
	store           Store
	sink            sessionapi.Sink
	runID           string
	period          *period
	settledByInput  map[string]*sessionapi.Settled
	knownInputs     map[string]bool
	lastSettled     *sessionapi.Settled
	ledger          ledger
	options         sessionapi.Options
	persistErr      error
	persistReported bool
	shuttingDown    bool
	asker           PermissionAsker
	approvalChosen  bool
	allowed         map[string]bool
	bash            bashState
}

// ledger is the part of the busy ledger that events change (getState.busy, docs/protocol.md#getstate).
type ledger struct {
	streaming          bool
	toolsRunning       []string
	retryUntil         int64
	compacting         bool
	permissionsPending []sessionapi.PendingPermission
}

// New returns an idle supervisor.
func New(cfg Config) *Supervisor {
	if cfg.Clock == nil {
		cfg.Clock = clock.System
	}
	if cfg.Approval == "" {
		cfg.Approval = "auto"
	}
	if cfg.IDs == nil {
		cfg.IDs = &IDs{}
	}
	opts := cfg.Agent
	opts.Clock = cfg.Clock
	opts.SessionID = cfg.Store.SessionID()
	s := &Supervisor{
		clock:          cfg.Clock,
		log:            cfg.Logger,
		ids:            cfg.IDs,
		cfg:            cfg,
		store:          cfg.Store,
		sink:           cfg.Sink,
		settledByInput: map[string]*sessionapi.Settled{},
		knownInputs:    map[string]bool{},
		allowed:        map[string]bool{},
	}
	opts.Queues = s.pullQueues()
	userHook := opts.BeforeToolCall
	opts.BeforeToolCall = func(ctx context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error) {
		if res, err := s.beforeToolCall(ctx, c); res != nil || err != nil {
			return res, err
		}
		if userHook != nil {
			return userHook(ctx, c)
		}
		return nil, nil
	}
	s.agent = core.New(opts)
	st := s.agent.State()
	s.options = sessionapi.Options{
		SteeringMode:   core.QueueOneAtATime,
		FollowUpMode:   core.QueueOneAtATime,
		AutoRetry:      cfg.Retry.Enabled,
		AutoCompaction: cfg.Compaction.Enabled,
		ToolExecution:  st.ToolExecution,
		Approval:       cfg.Approval,
	}
	s.agent.Subscribe(s.onCoreEvent)
	return s
}

// Agent returns the supervised agent, for reading its state.
func (s *Supervisor) Agent() *core.Agent { return s.agent }

// emitLocked hands a session event to the sink, which gives it its seq. The caller holds
// s.mu.
func (s *Supervisor) emitLocked(typ string, payload any) int64 {
	return s.sink.Emit(&sessionapi.Event{Type: typ, RunID: s.runID, SessionID: s.store.SessionID(), Payload: payload})
}

// newInputLocked makes an input with id, or a new id when id is empty.
func (s *Supervisor) newInputLocked(kind inputKind, id, text string, images []core.Content) *input {
	if id == "" {
		id = s.ids.Input()
	}
	in := &input{id: id, kind: kind, text: text}
	if kind != kindContinue {
		in.msg = core.NewUserMessage(text, images, s.clock.Now().UnixMilli())
	}
	s.knownInputs[in.id] = true
	return in
}

func (s *Supervisor) readyLocked() error {
	if s.shuttingDown {
		return &Error{Kind: KindShuttingDown, Message: "The server is shutting down"}
	}
	return nil
}

func (s *Supervisor) providerLocked() error {
	if s.cfg.ProviderProblem != "" {
		return &Error{Kind: KindProviderNotConfigured, Message: s.cfg.ProviderProblem}
	}
	return nil
}

// appendLocked persists an entry. A failed append makes the session memory-only: the error
// is reported once as session_error and in the period's agent_settled.
func (s *Supervisor) appendLocked(e *Entry) {
	// The store keeps the entry in memory even when writing it fails, so the session goes
	// on memory-only; the failure is reported once.
	if err := s.store.Append(e); err != nil && s.persistErr == nil {
		s.persistErr = err
		s.emitLocked(sessionapi.EventSessionError, sessionapi.SessionError{Message: fmt.Sprintf("Cannot write the session file, the session is memory-only from now on: %v", err)})
	}
}

// Shutdown refuses new inputs, aborts the busy period if any, waits for it to settle (or
// ctx to end) and syncs the store.
func (s *Supervisor) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shuttingDown = true
	if s.bash.running {
		s.bash.cancel()
	}
	if p := s.period; p != nil && !p.aborted {
		s.abortLocked(p)
	}
	busy := s.period != nil
	s.mu.Unlock()
	if busy {
		if _, err := s.WaitSettled(ctx, ""); err != nil {
			return err
		}
	}
	return s.store.Sync()
}

// ShuttingDown reports whether Shutdown or Close has begun: an abort seen after it is the
// shutdown's.
func (s *Supervisor) ShuttingDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shuttingDown
}

// SessionID is the id of the session's current store; it changes with newSession,
// openSession and forkSession (session_changed says so).
func (s *Supervisor) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.SessionID()
}

// Close ends the session for good: as Shutdown (abort, settle, sync), then the store is
// closed, which releases its lock so that another process may open the file.
func (s *Supervisor) Close(ctx context.Context) error {
	err := s.Shutdown(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(err, s.store.Close())
}
