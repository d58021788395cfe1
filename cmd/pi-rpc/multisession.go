package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

// newSupervisor builds a started session from the command line's configuration, for the
// agent setup of its working directory, on the store sessions opened.
func newSupervisor(cfg *config, setup *agentSetup, tools []core.Tool, providerProblem string, sessions *startSessions, sink sessionapi.Sink, ids *session.IDs, gate session.ToolsGate, log zerolog.Logger) *session.Supervisor {
	var commands session.CommandSet
	if setup.commands != nil {
		commands = setup.commands
	}
	sup := session.New(session.Config{
		Agent: core.Options{
			Provider: setup.provider, Model: setup.model, ThinkingLevel: setup.thinking,
			Tools: tools, SystemPrompt: setup.systemPrompt,
			BeforeToolCall: setup.beforeToolCall,
		},
		ProviderProblem: providerProblem,
		Store:           sessions.store,
		Sessions:        sessions.catalog,
		Sink:            sink,
		Retry:           cfg.retrySettings(),
		Compaction:      cfg.compactionSettings(),
		Approval:        cfg.approval,
		ApprovalFixed:   cfg.approval != "",
		Shell:           shellRunner(setup.cwd, setup.shell, setup.confinement),
		SystemMessages:  cfg.protocol == "pi",
		IDs:             ids,
		ToolsGate:       gate,
		Commands:        commands,
		Logger:          log,
	})
	setup.sandboxes.set(sup, setup.confinement)
	sup.StartSession()
	return sup
}

// sessionSpec is what a front end asks of a new session: its working directory (relative to
// the process's, or absolute), model ("provider/id" or id), a session file or id to resume,
// and where its events go. toolNames, when set, replace the tools of the command line.
type sessionSpec struct {
	cwd, model, sessionFile string
	toolNames               []string
	sink                    sessionapi.Sink
	ids                     *session.IDs
	access                  tools.Access
	// beforeToolCall is the agent's hook for the calls the session lets run (ACP's
	// in_progress).
	beforeToolCall func(context.Context, *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error)
	// sandbox, when set, tightens the process's sandbox for this session (createSession).
	sandbox *protocol.SandboxChoice
}

// builtSession is a started session, the setup it was built from (its cwd, tools and
// context files) and its MCP gate, to attach.
type builtSession struct {
	sup   *session.Supervisor
	setup agentSetup
	gate  *mcpGate
}

// buildSession opens a session with the provider, models and flags of the process and the
// spec's own working directory (its tools, system prompt, context files and session
// directory), model and, optionally, a resumed session file. It is shared by the front ends;
// the caller attaches it to the MCP host.
func buildSession(cfg *config, base *agentSetup, host *mcpHost, spec sessionSpec, log zerolog.Logger) (*builtSession, error) {
	setup := *base
	setup.warnings = nil
	if spec.cwd != "" {
		cwd := spec.cwd
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(base.cwd, cwd)
		}
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			return nil, &session.Error{Kind: session.KindInvalidState, Message: fmt.Sprintf("cwd %s is not a directory", cwd)}
		}
		setup.cwd = filepath.Clean(cwd)
	}
	setup.access = spec.access
	setup.beforeToolCall = spec.beforeToolCall
	if spec.sandbox != nil {
		setup.sandboxChoice = spec.sandbox
	}
	toolCfg := cfg
	if spec.toolNames != nil {
		c := *cfg
		c.noTools, c.toolsSet, c.tools = false, true, strings.Join(spec.toolNames, ",")
		toolCfg = &c
	}
	if err := setup.setupTools(toolCfg, time.Now()); err != nil {
		return nil, &session.Error{Kind: session.KindInvalidState, Message: err.Error()}
	}
	for _, d := range setup.commands.Diagnostics {
		log.Warn().Str("cwd", setup.cwd).Msg("resources: " + d.String())
	}
	problem := ""
	if len(base.problems) > 0 {
		problem = base.problems[0].Message
	}
	if spec.model != "" {
		if setup.models == nil {
			return nil, &session.Error{Kind: session.KindProviderNotConfigured, Message: "No provider is configured"}
		}
		provider, id := "", spec.model
		if i := strings.Index(spec.model, "/"); i > 0 {
			provider, id = spec.model[:i], spec.model[i+1:]
		}
		model, p, err := setup.models.Resolve(provider, id)
		if err != nil {
			kind := session.KindNotFound
			var pp *session.ProviderProblem
			if errors.As(err, &pp) {
				kind = session.KindProviderNotConfigured
			}
			return nil, &session.Error{Kind: kind, Message: err.Error()}
		}
		setup.model, setup.provider, problem = model, p, ""
		setup.thinking = model.ClampThinkingLevel(base.thinking)
	}
	sub := *cfg
	sub.sessionRef, sub.continueRecent = spec.sessionFile, false
	if spec.model != "" {
		sub.model = spec.model
	}
	sessions, err := openSessions(&sub, &setup, "")
	if err != nil {
		kind := session.KindInvalidState
		if errors.Is(err, session.ErrSessionNotFound) {
			kind = session.KindNotFound
		}
		return nil, &session.Error{Kind: kind, Message: err.Error()}
	}
	gate := host.newGate()
	sup := newSupervisor(cfg, &setup, host.toolsWith(setup.tools, nil), problem, sessions, spec.sink, spec.ids, gate, log)
	return &builtSession{sup: sup, setup: setup, gate: gate}, nil
}

// newSessionHost is the process's session host: the model catalogue, the startup's provider
// problems, the id source, --max-sessions, the saved sessions' listing and the front end's
// opener (nil: the host opens no session besides the one it adopts).
func newSessionHost(cfg *config, base *agentSetup, open session.Opener) *session.Host {
	var models session.Models
	if base.models != nil {
		models = base.models
	}
	problems := make([]session.Problem, 0, len(base.problems))
	for _, p := range base.problems {
		problems = append(problems, session.Problem{Kind: p.Kind, Message: p.Message})
	}
	return session.NewHost(session.HostConfig{
		Models: models, Problems: problems, MaxSessions: cfg.maxSessions,
		Open: open, List: savedSessions(cfg, base),
	})
}

// savedSessions lists the saved sessions of a cwd (the process's for "") in the session
// directory the command line gives that cwd.
func savedSessions(cfg *config, base *agentSetup) session.Lister {
	return func(cwd, cursor string, limit int) ([]sessionapi.SessionInfo, string, error) {
		s := *base
		if cwd != "" {
			s.cwd = cwd
		}
		cat, err := newCatalog(cfg, &s)
		if err != nil {
			return nil, "", err
		}
		return cat.List(s.cwd, cursor, limit)
	}
}

// sessionOpener opens the sessions the JSON-RPC front end asks for; OpenRequest.Extra holds
// createSession's params: the session's own MCP servers, started (not waited for) before it
// returns, and its sandbox choice.
func sessionOpener(cfg *config, base *agentSetup, host *mcpHost, log zerolog.Logger) session.Opener {
	return func(req session.OpenRequest) (*session.Opened, error) {
		params, _ := req.Extra.(*protocol.CreateSessionParams)
		if params == nil {
			params = &protocol.CreateSessionParams{}
		}
		b, err := buildSession(cfg, base, host, sessionSpec{cwd: req.Cwd, model: req.Model, sessionFile: req.SessionFile, sink: req.Sink, ids: req.IDs, sandbox: params.Sandbox}, log)
		if err != nil {
			return nil, err
		}
		sup := b.sup
		var own *mcp.Set
		if len(params.MCPServers) > 0 {
			own = host.startOwn(serverList(params.MCPServers, "createSession"), b.setup.cwd, sup)
		}
		host.attach(b.gate, sup, b.setup.tools, own)
		return &session.Opened{
			Supervisor:   sup,
			Cwd:          b.setup.cwd,
			ContextFiles: b.setup.contextFiles,
			Closed:       func() { host.detach(sup); base.sandboxes.forget(sup) },
		}, nil
	}
}
