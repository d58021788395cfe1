package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// methods is the method table: every method the server answers. Scoped methods apply to one
// session, named by params.sessionId (absent: the connection's first open session).
// Every front end declares its table this way (rpc.methods, acp.methods, pimode.commands):
// one package-level map literal of the package's entry type, with no init() adding to it.
var methods = map[string]method{
	protocol.MethodInitialize:    {handle: typed((*Server).initialize)},
	protocol.MethodShutdown:      {handle: typed((*Server).shutdown), allowedAfterShutdown: true},
	protocol.MethodExit:          {notification: true, handle: (*Server).exitNotification},
	protocol.MethodCancelRequest: {notification: true, handle: (*Server).cancelRequest},
	protocol.MethodDescribe:      {handle: typed((*Server).describe), allowedAfterShutdown: true},

	protocol.MethodPrompt:      {scoped: true, handle: typed((*Server).prompt)},
	protocol.MethodContinue:    {scoped: true, handle: typed((*Server).continueRun)},
	protocol.MethodSteer:       {scoped: true, handle: typed((*Server).steer)},
	protocol.MethodFollowUp:    {scoped: true, handle: typed((*Server).followUp)},
	protocol.MethodAbort:       {scoped: true, handle: typed((*Server).abort)},
	protocol.MethodWaitSettled: {scoped: true, handle: typed((*Server).waitSettled), allowedAfterShutdown: true},
	protocol.MethodClearQueues: {scoped: true, handle: typed((*Server).clearQueues)},
	protocol.MethodCancelInput: {scoped: true, handle: typed((*Server).cancelInput)},
	protocol.MethodGetState:    {scoped: true, handle: typed((*Server).getState), allowedAfterShutdown: true},
	protocol.MethodGetMessages: {scoped: true, handle: typed((*Server).getMessages), allowedAfterShutdown: true},

	protocol.MethodListModels:       {handle: typed((*Server).listModels)},
	protocol.MethodSetModel:         {scoped: true, handle: typed((*Server).setModel)},
	protocol.MethodSetThinkingLevel: {scoped: true, handle: typed((*Server).setThinkingLevel)},
	protocol.MethodSetOptions:       {scoped: true, handle: typed((*Server).setOptions)},
	protocol.MethodCompact:          {scoped: true, handle: typed((*Server).compact)},

	protocol.MethodCreateSession: {handle: typed((*Server).createSession)},
	protocol.MethodCloseSession:  {handle: typed((*Server).closeSession)},

	protocol.MethodNewSession:      {scoped: true, handle: typed((*Server).newSession)},
	protocol.MethodListSessions:    {scoped: true, handle: typed((*Server).listSessions)},
	protocol.MethodOpenSession:     {scoped: true, handle: typed((*Server).openSession)},
	protocol.MethodForkSession:     {scoped: true, handle: typed((*Server).forkSession)},
	protocol.MethodGetTree:         {scoped: true, handle: typed((*Server).getTree), allowedAfterShutdown: true},
	protocol.MethodGetEntries:      {scoped: true, handle: typed((*Server).getEntries), allowedAfterShutdown: true},
	protocol.MethodNavigateTree:    {scoped: true, handle: typed((*Server).navigateTree)},
	protocol.MethodSetLabel:        {scoped: true, handle: typed((*Server).setLabel)},
	protocol.MethodSetSessionName:  {scoped: true, handle: typed((*Server).setSessionName)},
	protocol.MethodGetSessionStats: {scoped: true, handle: typed((*Server).getSessionStats), allowedAfterShutdown: true},

	protocol.MethodBash:      {scoped: true, handle: typed((*Server).bash)},
	protocol.MethodAbortBash: {scoped: true, handle: typed((*Server).abortBash)},

	protocol.MethodListTools:    {scoped: true, handle: typed((*Server).listTools), allowedAfterShutdown: true},
	protocol.MethodListCommands: {scoped: true, handle: typed((*Server).listCommands), allowedAfterShutdown: true},
}

// requireMessage checks that params carry a string "message".
func requireMessage(raw *json.RawMessage) error {
	var probe struct {
		Message *json.RawMessage `json:"message"`
	}
	if raw != nil {
		_ = json.Unmarshal(*raw, &probe)
	}
	if probe.Message == nil {
		return invalidParams("params.message: required")
	}
	return nil
}

type promptParams protocol.PromptParams

func (p *promptParams) validate(raw *json.RawMessage) error {
	if err := requireMessage(raw); err != nil {
		return err
	}
	switch p.WhenBusy {
	case "", "reject", "steer", "followUp":
		return validateImages(p.Images)
	}
	return invalidParams(`params.whenBusy: expected "reject", "steer" or "followUp", got %q`, p.WhenBusy)
}

type queueParams protocol.QueueParams

func (p *queueParams) validate(raw *json.RawMessage) error {
	if err := requireMessage(raw); err != nil {
		return err
	}
	switch p.WhenIdle {
	case "", "start", "reject":
		return validateImages(p.Images)
	}
	return invalidParams(`params.whenIdle: expected "start" or "reject", got %q`, p.WhenIdle)
}

func validateImages(images []protocol.Image) error {
	for i, img := range images {
		if img.Data == "" || img.MimeType == "" {
			return invalidParams("params.images[%d]: data and mimeType are required", i)
		}
	}
	return nil
}

func toBlocks(images []protocol.Image) []core.Content {
	var out []core.Content
	for _, img := range images {
		out = append(out, core.ImageBlock(img.Data, img.MimeType))
	}
	return out
}

// inputResult is an accepted input's answer. The session emits the input's events from the
// moment it is accepted, possibly before the handler returns; the writer holds them until
// the answer is queued (Handle), so the response comes first.
func inputResult(a sessionapi.Accepted, err error) (*protocol.InputResult, error) {
	if err != nil {
		return nil, err
	}
	return &protocol.InputResult{InputID: a.InputID, Disposition: string(a.Disposition)}, nil
}

func (s *Server) initialize(_ context.Context, _ *session.Supervisor, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if len(p.MCPServers) > 0 && s.opts.MCP != nil {
		// Started, not waited for: a prompt waits for the servers still starting.
		s.opts.MCP.Add(p.MCPServers)
	}
	s.mu.Lock()
	s.caps = p.Capabilities
	s.initialized = true
	s.mu.Unlock()
	s.opts.Writer.SetPartialMessages(p.Capabilities.PartialMessages)
	var st session.Snapshot
	var first *session.Supervisor
	for i, sup := range s.host.Sessions() {
		sup.SettleApprovalDefault(p.Capabilities.Permissions)
		if i == 0 {
			st, first = sup.State(), sup
		}
	}
	return &protocol.InitializeResult{
		ProtocolVersion: protocol.ProtocolVersion,
		ServerInfo:      protocol.ServerInfo{Name: "pi-rpc", Version: s.opts.Version},
		Capabilities:    protocol.ServerCapabilities{PartialMessages: true, Permissions: true},
		Model:           s.configuredModel(st.Model),
		SessionID:       st.SessionID,
		SessionFile:     st.SessionFile,
		Problems:        nonNil(s.currentProblems()),
		Warnings:        nonNil(s.opts.Warnings),
		Sandbox:         s.sandboxOf(first),
	}, nil
}

// sandboxOf is sup's sandbox (nil: off).
func (s *Server) sandboxOf(sup *session.Supervisor) *protocol.SandboxStatus {
	if s.opts.Sandbox == nil {
		return nil
	}
	return s.opts.Sandbox.Status(sup)
}

// validSandbox checks a sandbox choice's values (where its directories are and whether it
// loosens the server's is the session's to judge).
func validSandbox(field string, c *protocol.SandboxChoice) error {
	if c == nil {
		return nil
	}
	switch c.Mode {
	case "", "off", "read-only", "workspace-write":
	default:
		return invalidParams(`params.%s.mode: expected "off", "read-only" or "workspace-write", got %q`, field, c.Mode)
	}
	switch c.Network {
	case "", "on", "off":
	default:
		return invalidParams(`params.%s.network: expected "on" or "off", got %q`, field, c.Network)
	}
	for i, d := range c.Write {
		if d == "" {
			return invalidParams("params.%s.write[%d]: a directory, not an empty string", field, i)
		}
	}
	return nil
}

// currentProblems are the configuration problems still in force, the MCP servers' included.
func (s *Server) currentProblems() []protocol.Problem {
	var problems []protocol.Problem
	for _, p := range s.host.Problems() {
		problems = append(problems, protocol.Problem{Kind: p.Kind, Message: p.Message})
	}
	if s.opts.MCP != nil {
		problems = append(problems, s.opts.MCP.Problems()...)
	}
	return problems
}

// configuredModel is the model to report, or nil while no provider is configured (the
// noProvider problem): the agent's model is then only a default nothing can serve.
func (s *Server) configuredModel(m core.Model) *core.Model {
	for _, p := range s.currentProblems() {
		if p.Kind == "noProvider" {
			return nil
		}
	}
	return &m
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func (s *Server) shutdown(context.Context, *session.Supervisor, *protocol.Empty) (*later, error) {
	s.mu.Lock()
	s.shutdownSeen = true
	s.mu.Unlock()
	return deferred(func(ctx context.Context) (any, int64, error) {
		if err := s.ShutdownSessions(ctx); err != nil {
			s.log.Warn().Err(err).Msg("shutdown")
		}
		// The aborted periods' agent_settled are written before the response (docs/protocol.md).
		res := protocol.ShutdownResult{}
		if sup, err := s.host.Find(""); err == nil {
			res.SessionFile = sup.State().SessionFile
		}
		return res, s.opts.Writer.LastSeq(), nil
	}), nil
}

func (s *Server) exitNotification(_ context.Context, _ *call, _ *json.RawMessage) {
	code := 1
	if s.ShutdownRequested() {
		code = 0
	}
	s.exitOnce.Do(func() { s.exit <- code })
}

func (s *Server) cancelRequest(_ context.Context, _ *call, raw *json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if raw == nil || json.Unmarshal(*raw, &p) != nil || p.ID == nil {
		s.log.Warn().Msg("ignoring $/cancelRequest without an id")
		return
	}
	// A request that waits is cancelled under its key (keyOf).
	s.mu.Lock()
	cancel := s.cancels[keyOf(p.ID)]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *Server) describe(context.Context, *session.Supervisor, *protocol.Empty) (json.RawMessage, error) {
	return json.RawMessage(protocol.SchemaJSON()), nil
}

func (s *Server) prompt(_ context.Context, sup *session.Supervisor, p *promptParams) (*protocol.InputResult, error) {
	return inputResult(sup.Prompt(session.PromptRequest{Message: p.Message, Images: toBlocks(p.Images), WhenBusy: p.WhenBusy}))
}

func (s *Server) steer(_ context.Context, sup *session.Supervisor, p *queueParams) (*protocol.InputResult, error) {
	return inputResult(sup.Steer(session.QueueRequest{Message: p.Message, Images: toBlocks(p.Images), WhenIdle: p.WhenIdle}))
}

func (s *Server) followUp(_ context.Context, sup *session.Supervisor, p *queueParams) (*protocol.InputResult, error) {
	return inputResult(sup.FollowUp(session.QueueRequest{Message: p.Message, Images: toBlocks(p.Images), WhenIdle: p.WhenIdle}))
}

func (s *Server) continueRun(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.InputResult, error) {
	return inputResult(sup.Continue())
}

func (s *Server) abort(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.AbortResult, error) {
	// The events the abort causes are held until this answer is queued (Handle).
	return &protocol.AbortResult{Aborted: sup.Abort()}, nil
}

func (s *Server) waitSettled(_ context.Context, sup *session.Supervisor, p *protocol.WaitSettledParams) (*later, error) {
	if p.TimeoutMs < 0 {
		return nil, invalidParams("params.timeoutMs: must not be negative")
	}
	// Beyond about 292 years a duration in nanoseconds overflows; such a wait has no limit.
	if p.TimeoutMs > math.MaxInt64/int64(time.Millisecond) {
		p.TimeoutMs = 0
	}
	wait, err := sup.Wait(p.InputID)
	if err != nil {
		return nil, err
	}
	return deferred(func(ctx context.Context) (any, int64, error) {
		if p.TimeoutMs > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
			defer cancel()
		}
		st, err := wait.Wait(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			busy, lastSeq := sup.Busy()
			err = &session.Error{Kind: session.KindTimeout, Message: fmt.Sprintf("Not settled within %d ms", p.TimeoutMs),
				Data: map[string]any{"busy": busy, "lastSeq": lastSeq}}
		}
		if err != nil {
			return nil, 0, err
		}
		return st, st.LastSeq, nil
	}), nil
}

func (s *Server) clearQueues(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (sessionapi.QueueUpdate, error) {
	return sup.ClearQueues(), nil
}

type cancelInputParams protocol.CancelInputParams

func (p *cancelInputParams) validate(*json.RawMessage) error {
	return requiredParam("inputId", p.InputID)
}

func (s *Server) cancelInput(_ context.Context, sup *session.Supervisor, p *cancelInputParams) (protocol.Empty, error) {
	return protocol.Empty{}, sup.CancelInput(p.InputID)
}

func (s *Server) getState(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.StateResult, error) {
	st := sup.State()
	return &protocol.StateResult{
		Model:         s.configuredModel(st.Model),
		ThinkingLevel: st.ThinkingLevel,
		Options:       st.Options,
		SessionID:     st.SessionID,
		SessionFile:   st.SessionFile,
		SessionName:   st.SessionName,
		Settled:       st.Settled,
		Busy:          st.Busy,
		BashRunning:   st.BashRunning,
		ContextFiles:  nonNil(s.host.ContextFiles(sup)),
		Problems:      nonNil(s.currentProblems()),
		LastSeq:       st.LastSeq,
		Sandbox:       s.sandboxOf(sup),
	}, nil
}

func (s *Server) getMessages(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.MessagesResult, error) {
	return &protocol.MessagesResult{Messages: nonNil(sup.Messages())}, nil
}

func (s *Server) listModels(context.Context, *session.Supervisor, *protocol.Empty) (*protocol.ModelsResult, error) {
	return &protocol.ModelsResult{Models: nonNil(s.host.Models())}, nil
}

type setModelParams protocol.SetModelParams

func (p *setModelParams) validate(*json.RawMessage) error {
	return requiredParam("modelId", p.ModelID)
}

func (s *Server) setModel(_ context.Context, sup *session.Supervisor, p *setModelParams) (*protocol.ModelResult, error) {
	if err := s.host.SetModel(sup, p.Provider, p.ModelID); err != nil {
		return nil, err
	}
	st := sup.State()
	return &protocol.ModelResult{Model: st.Model, ThinkingLevel: st.ThinkingLevel}, nil
}

type thinkingParams protocol.ThinkingLevelParams

func (p *thinkingParams) validate(*json.RawMessage) error {
	for _, l := range core.ThinkingLevels {
		if p.Level == l {
			return nil
		}
	}
	return invalidParams("params.level: expected one of off, minimal, low, medium, high, xhigh, got %q", p.Level)
}

func (s *Server) setThinkingLevel(_ context.Context, sup *session.Supervisor, p *thinkingParams) (*protocol.ThinkingLevelResult, error) {
	return &protocol.ThinkingLevelResult{Level: sup.SetThinkingLevel(p.Level)}, nil
}

type optionsParams protocol.OptionsParams

func (p *optionsParams) validate(*json.RawMessage) error {
	for name, v := range map[string]*core.QueueMode{"steeringMode": p.SteeringMode, "followUpMode": p.FollowUpMode} {
		if v != nil && *v != core.QueueOneAtATime && *v != core.QueueAll {
			return invalidParams(`params.%s: expected "one-at-a-time" or "all", got %q`, name, *v)
		}
	}
	if p.ToolExecution != nil && *p.ToolExecution != core.ExecutionParallel && *p.ToolExecution != core.ExecutionSequential {
		return invalidParams(`params.toolExecution: expected "parallel" or "sequential", got %q`, *p.ToolExecution)
	}
	if p.Approval != nil {
		switch *p.Approval {
		case "auto", "ask", "deny-writes":
		default:
			return invalidParams(`params.approval: expected "auto", "ask" or "deny-writes", got %q`, *p.Approval)
		}
	}
	return validSandbox("sandbox", p.Sandbox)
}

// setOptions changes the sandbox first: a choice the session refuses changes nothing.
func (s *Server) setOptions(_ context.Context, sup *session.Supervisor, p *optionsParams) (*protocol.OptionsResult, error) {
	if p.Sandbox != nil {
		if s.opts.Sandbox == nil {
			return nil, &session.Error{Kind: session.KindInvalidState, Message: "sandbox: this server has no sandbox to change"}
		}
		if err := s.opts.Sandbox.Set(sup, *p.Sandbox); err != nil {
			return nil, err
		}
	}
	opts := sup.SetOptions(session.OptionsPatch{
		SteeringMode: p.SteeringMode, FollowUpMode: p.FollowUpMode, AutoRetry: p.AutoRetry,
		AutoCompaction: p.AutoCompaction, ToolExecution: p.ToolExecution, Approval: p.Approval,
	})
	return &protocol.OptionsResult{Options: opts, Sandbox: s.sandboxOf(sup)}, nil
}

func (s *Server) compact(_ context.Context, sup *session.Supervisor, p *protocol.CompactParams) (*later, error) {
	compaction, err := sup.Compact(p.CustomInstructions)
	if err != nil {
		return nil, err
	}
	return after(compaction), nil
}
