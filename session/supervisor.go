package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
)

// ErrorKind classifies a supervisor error; the RPC layer maps each to its code
// (docs/protocol.md#errors).
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

// Disposition says what happened to an accepted input.
type Disposition string

// The dispositions.
const (
	DispositionStarted Disposition = "started"
	DispositionQueued  Disposition = "queued"
)

// Accepted is the answer to an accepted input.
type Accepted struct {
	InputID     string      `json:"inputId"`
	Disposition Disposition `json:"disposition"`
}

// Options are the session options a client can change (setOptions).
type Options struct {
	SteeringMode   core.QueueMode     `json:"steeringMode"`
	FollowUpMode   core.QueueMode     `json:"followUpMode"`
	AutoRetry      bool               `json:"autoRetry"`
	AutoCompaction bool               `json:"autoCompaction"`
	ToolExecution  core.ExecutionMode `json:"toolExecution"`
	Approval       string             `json:"approval" jsonschema:"enum=auto,enum=ask,enum=deny-writes"`
}

// Config configures a [Supervisor].
type Config struct {
	// Agent configures the agent; Clock and SessionID are set by the supervisor.
	Agent core.Options
	// ProviderProblem, when set, is why no model can be called (a missing API key, no
	// provider): inputs that need the model fail with it.
	ProviderProblem string
	Store           Store
	Sink            Sink
	Clock           core.Clock
	Retry           RetrySettings
	Compaction      CompactionSettings
	// Approval is the initial approval mode; ApprovalFixed says it came from the command line
	// and initialize must not change it.
	Approval      string
	ApprovalFixed bool
	// Shell runs the user's own commands (the bash method); nil disables them.
	Shell ShellRunner
	// Sessions is where sessions are created and opened (newSession, openSession, fork);
	// nil keeps them in memory.
	Sessions *Catalog
	// IDs hands out input, run, permission and bash ids; sessions of one process share it.
	// Nil gives the session its own.
	IDs    *IDs
	Logger zerolog.Logger
}

// Supervisor runs one agent for one client. See the package documentation.
type Supervisor struct {
	agent *core.Agent
	clock core.Clock
	log   zerolog.Logger
	ids   *IDs

	// mu guards everything below, and is held while an event is given its seq and handed to
	// the sink, so that a state snapshot reflects exactly the events up to its lastSeq.
	mu              sync.Mutex
	cfg             Config
	store           Store
	sink            Sink
	runID           string
	period          *period
	settledByInput  map[string]*Settled
	knownInputs     map[string]bool
	lastSettled     *Settled
	settleCh        chan struct{}
	ledger          ledger
	options         Options
	persistErr      error
	persistReported bool
	shuttingDown    bool
	asker           PermissionAsker
	approvalChosen  bool
	allowed         map[string]bool
	bash            bashState
}

// ledger is the part of the busy ledger that events change (getState.busy,
// docs/protocol.md#getstate).
type ledger struct {
	streaming          bool
	toolsRunning       []string
	retryUntil         int64
	compacting         bool
	permissionsPending []PendingPermission
}

// PendingPermission is a permission request waiting for the client.
type PendingPermission struct {
	RequestID  string `json:"requestId"`
	ToolCallID string `json:"toolCallId"`
}

// New returns an idle supervisor.
func New(cfg Config) *Supervisor {
	if cfg.Clock == nil {
		cfg.Clock = core.SystemClock
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
		settledByInput: map[string]*Settled{},
		knownInputs:    map[string]bool{},
		settleCh:       make(chan struct{}),
		allowed:        map[string]bool{},
	}
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
	s.options = Options{
		SteeringMode:   st.SteeringMode,
		FollowUpMode:   st.FollowUpMode,
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
	return s.sink.Emit(&Event{Type: typ, RunID: s.runID, SessionID: s.store.SessionID(), Payload: payload})
}

func (s *Supervisor) newInputLocked(kind inputKind, text string, images []core.Content) *input {
	in := &input{id: s.ids.input(), kind: kind, text: text}
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

// PromptRequest is a prompt.
type PromptRequest struct {
	Message string
	Images  []core.Content
	// WhenBusy is "", "reject", "steer" or "followUp".
	WhenBusy string
}

// Prompt accepts a prompt. When idle it starts a busy period; when busy it is refused unless
// WhenBusy says to queue it. ack is called with the answer before any event the input causes
// is emitted.
func (s *Supervisor) Prompt(req PromptRequest, ack func(Accepted)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return err
	}
	if s.period != nil {
		switch req.WhenBusy {
		case "steer":
			return s.queueLocked(kindSteer, req.Message, req.Images, ack)
		case "followUp":
			return s.queueLocked(kindFollowUp, req.Message, req.Images, ack)
		case "reject":
			return errBusy("Agent is busy")
		}
		return errBusy(`Agent is busy. Send the message with whenBusy "steer" or "followUp" to queue it, or wait for agent_settled.`, "steer", "followUp")
	}
	if err := s.providerLocked(); err != nil {
		return err
	}
	return s.startLocked(kindPrompt, req.Message, req.Images, ack)
}

// QueueRequest is a steer or a follow-up.
type QueueRequest struct {
	Message string
	Images  []core.Content
	// WhenIdle is "" or "start" (start a run like a prompt), or "reject".
	WhenIdle string
}

// Steer queues a message for delivery after the current tool batch, or starts a run when
// idle.
func (s *Supervisor) Steer(req QueueRequest, ack func(Accepted)) error {
	return s.enqueue(kindSteer, req, ack)
}

// FollowUp queues a message for delivery when the agent would stop, or starts a run when
// idle.
func (s *Supervisor) FollowUp(req QueueRequest, ack func(Accepted)) error {
	return s.enqueue(kindFollowUp, req, ack)
}

func (s *Supervisor) enqueue(kind inputKind, req QueueRequest, ack func(Accepted)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return err
	}
	if s.period != nil {
		return s.queueLocked(kind, req.Message, req.Images, ack)
	}
	if req.WhenIdle == "reject" {
		return &Error{Kind: KindInvalidState, Message: "Agent is idle: nothing to queue behind (whenIdle is \"reject\")"}
	}
	if err := s.providerLocked(); err != nil {
		return err
	}
	return s.startLocked(kind, req.Message, req.Images, ack)
}

// queueLocked adds an input to the current period's queue.
func (s *Supervisor) queueLocked(kind inputKind, text string, images []core.Content, ack func(Accepted)) error {
	in := s.newInputLocked(kind, text, images)
	in.state = stateQueued
	s.period.inputs = append(s.period.inputs, in)
	ci := core.Input{ID: in.id, Message: in.msg}
	if kind == kindSteer {
		s.agent.Steer(ci)
	} else {
		s.agent.FollowUp(ci)
	}
	ack(Accepted{InputID: in.id, Disposition: DispositionQueued})
	s.emitQueueLocked()
	return nil
}

func (s *Supervisor) queueSnapshotLocked() QueueUpdate {
	q := QueueUpdate{Steering: []QueuedInput{}, FollowUp: []QueuedInput{}}
	if s.period == nil {
		return q
	}
	for _, in := range s.period.inputs {
		if in.state != stateQueued {
			continue
		}
		if in.kind == kindSteer {
			q.Steering = append(q.Steering, in.queued())
		} else {
			q.FollowUp = append(q.FollowUp, in.queued())
		}
	}
	return q
}

func (s *Supervisor) emitQueueLocked() {
	s.emitLocked(EventQueueUpdate, s.queueSnapshotLocked())
}

// startLocked starts a busy period with an input and its run.
func (s *Supervisor) startLocked(kind inputKind, text string, images []core.Content, ack func(Accepted)) error {
	in := s.newInputLocked(kind, text, images)
	in.state = stateDelivered
	p := s.newPeriodLocked()
	p.inputs = append(p.inputs, in)
	ack(Accepted{InputID: in.id, Disposition: DispositionStarted})
	if s.needsPrePromptCompactionLocked() {
		go s.drive(p, in)
		return nil
	}
	s.startRunLocked(p, in)
	return nil
}

// startRunLocked starts the prompt's run and its driver. The input is already accepted, so a
// failure to start (which cannot happen while the period is idle) settles the period as
// failed rather than failing the request.
func (s *Supervisor) startRunLocked(p *period, in *input) {
	run, err := s.agent.Prompt(core.Input{ID: in.id, Message: in.msg})
	if err != nil {
		p.failure = &SettleError{Kind: SettleErrorProvider, Message: err.Error()}
		s.settleLocked(p)
		return
	}
	p.run = run
	go s.drive(p, nil)
}

func (s *Supervisor) newPeriodLocked() *period {
	s.flushBashLocked()
	p := &period{abort: make(chan struct{})}
	s.period = p
	return p
}

// Continue starts a run from the current context (docs/protocol.md#continue). When the context
// ends in tool calls without results, the run first records an error result for each (see
// interruptedToolResults) and then calls the model.
func (s *Supervisor) Continue(ack func(Accepted)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return err
	}
	if s.period != nil {
		return errBusy("Agent is busy; wait for agent_settled before continuing")
	}
	if err := s.providerLocked(); err != nil {
		return err
	}
	s.flushBashLocked()
	var run *core.Run
	var err error
	if missing := interruptedToolResults(s.agent.Messages(), s.clock.Now().UnixMilli()); len(missing) > 0 {
		// Tool calls left without results (the process ended mid-tool): the run starts by
		// recording their results, so the file is whole again and the model sees them.
		ins := make([]core.Input, len(missing))
		for i, m := range missing {
			ins[i] = core.Input{Message: m}
		}
		run, err = s.agent.Prompt(ins...)
	} else {
		run, err = s.agent.Continue()
	}
	switch {
	case errors.Is(err, core.ErrNoMessages), errors.Is(err, core.ErrNothingToResume):
		return &Error{Kind: KindInvalidState, Message: err.Error()}
	case err != nil:
		return &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	in := s.newInputLocked(kindContinue, "", nil)
	in.state = stateDelivered
	p := s.newPeriodLocked()
	p.inputs = append(p.inputs, in)
	p.run = run
	ack(Accepted{InputID: in.id, Disposition: DispositionStarted})
	go s.drive(p, nil)
	return nil
}

// Abort ends the current busy period: the run's context is cancelled right after ack is
// called, a retry backoff or compaction stops, and the period settles as aborted. It reports
// false, and does nothing, when idle.
func (s *Supervisor) Abort(ack func(aborted bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.period
	if p == nil || p.aborted {
		ack(p != nil)
		return
	}
	ack(true)
	s.abortLocked(p)
}

func (s *Supervisor) abortLocked(p *period) {
	p.aborted = true
	close(p.abort)
	s.agent.Abort()
}

// ClearQueues removes every queued input; they settle as cancelled with the period.
func (s *Supervisor) ClearQueues() QueueUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := QueueUpdate{Steering: []QueuedInput{}, FollowUp: []QueuedInput{}}
	if s.period == nil {
		return removed
	}
	steering, followUp := s.agent.ClearQueues()
	taken := map[string]bool{}
	for _, q := range append(steering, followUp...) {
		taken[q.ID] = true
	}
	for _, in := range s.period.inputs {
		// An input the loop has already taken for delivery is no longer queued.
		if in.state != stateQueued || !taken[in.id] {
			continue
		}
		in.state = stateCancelled
		if in.kind == kindSteer {
			removed.Steering = append(removed.Steering, in.queued())
		} else {
			removed.FollowUp = append(removed.FollowUp, in.queued())
		}
	}
	if len(removed.Steering)+len(removed.FollowUp) > 0 {
		s.emitQueueLocked()
	}
	return removed
}

// CancelInput removes one queued input; it settles as cancelled with the period.
func (s *Supervisor) CancelInput(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.knownInputs[id] {
		return &Error{Kind: KindNotFound, Message: fmt.Sprintf("No input %s", id)}
	}
	var in *input
	if s.period != nil {
		in = s.period.find(id)
	}
	if in == nil || in.state != stateQueued || !s.agent.RemoveQueued(id) {
		// Not queued, or already taken by the loop for delivery: too late to cancel.
		return &Error{Kind: KindInvalidState, Message: fmt.Sprintf("Input %s is not queued", id)}
	}
	in.state = stateCancelled
	s.emitQueueLocked()
	return nil
}

// WaitSettled waits for the agent_settled that settles inputID, or, without an id, the one
// ending the current busy period (when idle: the last one, or an empty payload if none).
func (s *Supervisor) WaitSettled(ctx context.Context, inputID string) (*Settled, error) {
	wait, err := s.PrepareWait(inputID)
	if err != nil {
		return nil, err
	}
	return wait(ctx)
}

// PrepareWait decides now which agent_settled a wait is for, and returns the wait. The RPC
// layer calls it while handling waitSettled, so a request that arrives after it (a prompt
// starting the next period) cannot change its answer.
func (s *Supervisor) PrepareWait(inputID string) (func(context.Context) (*Settled, error), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inputID == "" {
		p := s.period
		if p == nil {
			st := s.lastSettled
			if st == nil {
				st = &Settled{Inputs: []InputOutcome{}, LastSeq: s.sink.LastSeq()}
			}
			return func(context.Context) (*Settled, error) { return st, nil }, nil
		}
		return func(ctx context.Context) (*Settled, error) {
			return s.waitFor(ctx, func() *Settled { return p.settled })
		}, nil
	}
	if !s.knownInputs[inputID] {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("No input %s", inputID)}
	}
	return func(ctx context.Context) (*Settled, error) {
		return s.waitFor(ctx, func() *Settled { return s.settledByInput[inputID] })
	}, nil
}

// waitFor waits until settled (read under the lock) returns a payload.
func (s *Supervisor) waitFor(ctx context.Context, settled func() *Settled) (*Settled, error) {
	s.mu.Lock()
	for {
		if st := settled(); st != nil {
			s.mu.Unlock()
			return st, nil
		}
		ch := s.settleCh
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
}

// Busy reports whether a busy period is active and the last seq, for timeouts.
func (s *Supervisor) Busy() (busy bool, lastSeq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.period != nil, s.sink.LastSeq()
}

// BusyState is getState.busy.
type BusyState struct {
	Running            bool                `json:"running"`
	Streaming          bool                `json:"streaming"`
	ToolsRunning       []string            `json:"toolsRunning"`
	RetryUntil         int64               `json:"retryUntil,omitempty"`
	Compacting         bool                `json:"compacting"`
	PermissionsPending []PendingPermission `json:"permissionsPending"`
	Steering           []QueuedInput       `json:"steering"`
	FollowUp           []QueuedInput       `json:"followUp"`
}

// Snapshot is the supervisor's part of getState, consistent with the events up to LastSeq.
type Snapshot struct {
	Model         core.Model         `json:"model"`
	ThinkingLevel core.ThinkingLevel `json:"thinkingLevel"`
	Options       Options            `json:"options"`
	SessionID     string             `json:"sessionId"`
	SessionFile   string             `json:"sessionFile,omitempty"`
	SessionName   string             `json:"sessionName,omitempty"`
	Settled       bool               `json:"settled"`
	Busy          BusyState          `json:"busy"`
	BashRunning   bool               `json:"bashRunning"`
	LastSeq       int64              `json:"lastSeq"`
}

// State returns a snapshot computed under the lock that assigns seq.
func (s *Supervisor) State() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.agent.State()
	q := s.queueSnapshotLocked()
	perms := slices.Clone(s.ledger.permissionsPending)
	if perms == nil {
		perms = []PendingPermission{}
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
		Busy: BusyState{
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
	s.emitLocked(EventModelChanged, ModelChanged{Model: m})
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
	s.emitLocked(EventThinkingLevelChanged, ThinkingLevelChanged{Level: l})
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
func (s *Supervisor) SetOptions(p OptionsPatch) Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.SteeringMode != nil {
		s.options.SteeringMode = *p.SteeringMode
		s.agent.SetSteeringMode(*p.SteeringMode)
	}
	if p.FollowUpMode != nil {
		s.options.FollowUpMode = *p.FollowUpMode
		s.agent.SetFollowUpMode(*p.FollowUpMode)
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

// appendLocked persists an entry. A failed append makes the session memory-only: the error
// is reported once as session_error and in the period's agent_settled.
func (s *Supervisor) appendLocked(e *Entry) {
	// The store keeps the entry in memory even when writing it fails, so the session goes
	// on memory-only; the failure is reported once.
	if err := s.store.Append(e); err != nil && s.persistErr == nil {
		s.persistErr = err
		s.emitLocked(EventSessionError, SessionError{Message: fmt.Sprintf("Cannot write the session file, the session is memory-only from now on: %v", err)})
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
