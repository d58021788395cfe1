package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Models is a process's model catalogue and the providers that serve it.
type Models interface {
	List() []core.Model
	// Resolve finds a model (provider may be empty) and the provider that serves it. A model
	// whose provider cannot be used (no API key) fails with a *ProviderProblem.
	Resolve(provider, modelID string) (core.Model, core.Provider, error)
}

// ProviderProblem is the error Models.Resolve returns when a model exists but its provider
// cannot be used: it is a providerNotConfigured error, not a notFound one.
type ProviderProblem struct{ Message string }

func (e *ProviderProblem) Error() string { return e.Message }

// Problem is a configuration problem in force (docs/protocol.md#initialize: noProvider,
// noApiKey, ...).
type Problem struct {
	Kind    string
	Message string
}

// OpenRequest is what a front end asks of a new session.
type OpenRequest struct {
	// Ctx, when set, ends when the front end gives up on the session (its connection shuts
	// down): what opening waits for (MCP servers starting) stops waiting then.
	Ctx context.Context
	// Cwd is the session's working directory, relative to the process's or absolute; empty:
	// the process's.
	Cwd string
	// Model is "provider/id" or an id; empty: the process's model.
	Model string
	// SessionFile is a session file or id to resume; empty: a new session.
	SessionFile string
	// Extra is what only the front end and the process's opener know of (the JSON-RPC front
	// end's per-session MCP servers; ACP's, and the client's file and terminal access).
	Extra any
	// Sink receives the session's events.
	Sink sessionapi.Sink
	// IDs is set by the host: the process's id source.
	IDs *IDs
}

// Opened is a started session an [Opener] built.
type Opened struct {
	Supervisor *Supervisor
	// Cwd is the session's working directory.
	Cwd string
	// ContextFiles are the AGENTS.md / CLAUDE.md files of its system prompt.
	ContextFiles []string
	// Closed, when set, is called once the session has been closed.
	Closed func()
}

// Lister lists the saved sessions of a working directory (the process's for ""), newest
// first, a page of at most limit after cursor; the next page's cursor is "" after the last.
type Lister func(cwd, cursor string, limit int) ([]sessionapi.SessionInfo, string, error)

// Opener builds and starts a session: the process's configuration (tools, system prompt,
// session directory, MCP servers) lives with it, in cmd/pi-rpc.
type Opener func(OpenRequest) (*Opened, error)

// DefaultMaxSessions bounds the live sessions unless HostConfig.MaxSessions says otherwise.
const DefaultMaxSessions = 16

// HostConfig configures a [Host].
type HostConfig struct {
	Models Models
	// Problems are the configuration problems found at startup.
	Problems []Problem
	// IDs is the id source of every session; nil gives the host its own.
	IDs *IDs
	// MaxSessions bounds the live sessions (DefaultMaxSessions when 0).
	MaxSessions int
	// Open builds the sessions Open asks for; nil refuses them.
	Open Opener
	// List lists the saved sessions ListSaved asks for; nil lists none.
	List Lister
}

// ErrTooManySessions is what Open's error wraps (besides its *Error) when MaxSessions are
// open: a front end that words the limit its own way tests for it with errors.Is.
var ErrTooManySessions = errors.New("too many sessions")

// limitError is Open's refusal at MaxSessions: an invalidState *Error that is also
// ErrTooManySessions.
type limitError struct{ err *Error }

func (e *limitError) Error() string   { return e.err.Message }
func (e *limitError) Unwrap() []error { return []error{e.err, ErrTooManySessions} }

// Host owns what the sessions of a process share: the model catalogue and providers, the
// provider problems, the id source, and the live sessions in creation order (the first is
// the default of a request that names none). Every method is safe for concurrent use; the
// host's lock is never held while a session's is taken, except to read a session's id.
type Host struct {
	cfg HostConfig
	ids *IDs

	mu       sync.Mutex
	problems []Problem
	live     []*Opened
	// reserved counts sessions being opened, so that two opens cannot both pass the limit.
	reserved int
}

// NewHost returns a host without sessions.
func NewHost(cfg HostConfig) *Host {
	if cfg.IDs == nil {
		cfg.IDs = &IDs{}
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	return &Host{cfg: cfg, ids: cfg.IDs, problems: cfg.Problems}
}

// IDs is the id source every session of the host must be built with.
func (h *Host) IDs() *IDs { return h.ids }

// MaxSessions is the bound on live sessions.
func (h *Host) MaxSessions() int { return h.cfg.MaxSessions }

// Adopt adds a session the process built itself (the one it starts with). It counts
// against MaxSessions like any other.
func (h *Host) Adopt(o *Opened) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.live = append(h.live, o)
}

// Open builds a session beside the live ones, or fails when MaxSessions are open (or being
// opened) or the opener refuses.
func (h *Host) Open(req OpenRequest) (*Opened, error) {
	if h.cfg.Open == nil {
		return nil, &Error{Kind: KindInvalidState, Message: "This server cannot create sessions"}
	}
	h.mu.Lock()
	if len(h.live)+h.reserved >= h.cfg.MaxSessions {
		h.mu.Unlock()
		return nil, &limitError{&Error{Kind: KindInvalidState, Message: fmt.Sprintf("Too many sessions: %d are open (--max-sessions); close one with closeSession first", h.cfg.MaxSessions)}}
	}
	h.reserved++
	h.mu.Unlock()
	req.IDs = h.ids
	opened, err := h.cfg.Open(req)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reserved--
	if err != nil {
		return nil, err
	}
	h.live = append(h.live, opened)
	return opened, nil
}

// Sessions returns the live sessions, oldest first.
func (h *Host) Sessions() []*Supervisor {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Supervisor, len(h.live))
	for i, o := range h.live {
		out[i] = o.Supervisor
	}
	return out
}

// Find returns the live session named id, or the first one when id is empty. A session's id
// is read from the session, because newSession, openSession and forkSession change it.
func (h *Host) Find(id string) (*Supervisor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	o, err := h.findLocked(id)
	if err != nil {
		return nil, err
	}
	return o.Supervisor, nil
}

func (h *Host) findLocked(id string) (*Opened, error) {
	if id == "" {
		if len(h.live) == 0 {
			return nil, &Error{Kind: KindNotFound, Message: "No open session: createSession opens one"}
		}
		return h.live[0], nil
	}
	for _, o := range h.live {
		if o.Supervisor.SessionID() == id {
			return o, nil
		}
	}
	return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("No open session %s", id)}
}

// ContextFiles returns a live session's context files.
func (h *Host) ContextFiles(sup *Supervisor) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range h.live {
		if o.Supervisor == sup {
			return o.ContextFiles
		}
	}
	return nil
}

// Close takes the session named id out of the live ones at once, then, on its own
// goroutine, aborts its busy period, waits for its agent_settled, syncs and releases its
// file. The Pending's Seq is the last seq of the session's sink when it has closed.
func (h *Host) Close(id string) (*Pending[struct{}], error) {
	h.mu.Lock()
	o, err := h.findLocked(id)
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return h.CloseSession(context.Background(), o), nil
}

// CloseSession closes the session Open returned (or Adopt took) as Close does, giving up
// waiting for its agent_settled when ctx ends: for a front end that keeps the sessions it
// opened rather than naming them by id (two of them may briefly share one).
func (h *Host) CloseSession(ctx context.Context, o *Opened) *Pending[struct{}] {
	h.mu.Lock()
	h.removeLocked(o)
	h.mu.Unlock()
	done := newPending[struct{}]()
	go func() {
		err := o.Supervisor.Close(ctx)
		if o.Closed != nil {
			o.Closed()
		}
		done.finish(struct{}{}, o.Supervisor.sink.LastSeq(), err)
	}()
	return done
}

func (h *Host) removeLocked(o *Opened) {
	for i, x := range h.live {
		if x == o {
			h.live = append(h.live[:i], h.live[i+1:]...)
			return
		}
	}
}

// ListSaved lists the saved sessions of cwd (see [Lister]); a host without a lister has none.
func (h *Host) ListSaved(cwd, cursor string, limit int) ([]sessionapi.SessionInfo, string, error) {
	if h.cfg.List == nil {
		return nil, "", nil
	}
	return h.cfg.List(cwd, cursor, limit)
}

// Models lists the selectable models.
func (h *Host) Models() []core.Model {
	if h.cfg.Models == nil {
		return nil
	}
	return h.cfg.Models.List()
}

// AvailableModels lists the models that can be called now: those of Models whose provider
// resolves without a problem (pi's get_available_models and cycle_model list only these).
func (h *Host) AvailableModels() []core.Model {
	var out []core.Model
	for _, m := range h.Models() {
		if _, _, err := h.cfg.Models.Resolve(m.Provider, m.ID); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// SetModel switches a session to a model of the catalogue, with the provider that serves
// it. A usable provider solves the startup's provider problems, so they are dropped.
func (h *Host) SetModel(sup *Supervisor, provider, modelID string) error {
	if h.cfg.Models == nil {
		return &Error{Kind: KindProviderNotConfigured, Message: "No provider is configured"}
	}
	model, p, err := h.cfg.Models.Resolve(provider, modelID)
	var problem *ProviderProblem
	switch {
	case errors.As(err, &problem):
		return &Error{Kind: KindProviderNotConfigured, Message: problem.Message}
	case err != nil:
		return &Error{Kind: KindNotFound, Message: err.Error()}
	}
	sup.SetProvider(p)
	h.mu.Lock()
	h.problems = nil
	h.mu.Unlock()
	sup.SetModel(model)
	return nil
}

// Problems are the configuration problems still in force.
func (h *Host) Problems() []Problem {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Problem(nil), h.problems...)
}

// Shutdown shuts every live session down (abort, settle, sync) and returns the first error.
func (h *Host) Shutdown(ctx context.Context) error {
	var first error
	for _, sup := range h.Sessions() {
		if err := sup.Shutdown(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WaitSettled waits until every live session is idle, or ctx ends.
func (h *Host) WaitSettled(ctx context.Context) error {
	for _, sup := range h.Sessions() {
		if _, err := sup.WaitSettled(ctx, ""); err != nil {
			return err
		}
	}
	return nil
}
