package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
)

// newSupervisor builds a started session from the command line's configuration, for the
// agent setup of its working directory, on the store sessions opened.
func newSupervisor(cfg *config, setup *agentSetup, tools []core.Tool, providerProblem string, sessions *startSessions, writer session.Sink, ids *session.IDs, log zerolog.Logger) *session.Supervisor {
	sup := session.New(session.Config{
		Agent: core.Options{
			Provider: setup.provider, Model: setup.model, ThinkingLevel: setup.thinking,
			Tools: tools, SystemPrompt: setup.systemPrompt,
		},
		ProviderProblem: providerProblem,
		Store:           sessions.store,
		Sessions:        sessions.catalog,
		Sink:            writer,
		Retry:           cfg.retrySettings(),
		Compaction:      cfg.compactionSettings(),
		Approval:        cfg.approval,
		ApprovalFixed:   cfg.approval != "",
		Shell:           shellRunner(setup.cwd),
		IDs:             ids,
		Logger:          log,
	})
	sup.StartSession()
	return sup
}

// sessionFactory opens the sessions createSession asks for: the provider, models and flags of
// the process, with the session's own working directory (its tools, system prompt, context
// files and session directory), model and, optionally, a resumed session file. The process's
// MCP servers serve every session.
func sessionFactory(cfg *config, base *agentSetup, host *mcpHost, writer *rpc.Writer, log zerolog.Logger) rpc.NewSession {
	return func(req rpc.SessionRequest) (*rpc.OpenedSession, error) {
		setup := *base
		setup.warnings = nil
		if req.Cwd != "" {
			cwd := req.Cwd
			if !filepath.IsAbs(cwd) {
				cwd = filepath.Join(base.cwd, cwd)
			}
			if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
				return nil, &session.Error{Kind: session.KindInvalidState, Message: fmt.Sprintf("cwd %s is not a directory", cwd)}
			}
			setup.cwd = filepath.Clean(cwd)
		}
		if err := setup.setupTools(cfg, time.Now()); err != nil {
			return nil, &session.Error{Kind: session.KindInvalidState, Message: err.Error()}
		}
		problem := ""
		if len(base.problems) > 0 {
			problem = base.problems[0].Message
		}
		if req.Model != "" {
			if setup.models == nil {
				return nil, &session.Error{Kind: session.KindProviderNotConfigured, Message: "No provider is configured"}
			}
			provider, id := "", req.Model
			if i := strings.Index(req.Model, "/"); i > 0 {
				provider, id = req.Model[:i], req.Model[i+1:]
			}
			model, p, err := setup.models.Resolve(provider, id)
			if err != nil {
				kind := session.KindNotFound
				if _, ok := err.(*rpc.ProviderProblem); ok {
					kind = session.KindProviderNotConfigured
				}
				return nil, &session.Error{Kind: kind, Message: err.Error()}
			}
			setup.model, setup.provider, problem = model, p, ""
			setup.thinking = model.ClampThinkingLevel(base.thinking)
		}
		sub := *cfg
		sub.sessionRef, sub.continueRecent = req.SessionFile, false
		if req.Model != "" {
			sub.model = req.Model
		}
		sessions, err := openSessions(&sub, &setup)
		if err != nil {
			return nil, &session.Error{Kind: session.KindInvalidState, Message: err.Error()}
		}
		sup := newSupervisor(cfg, &setup, host.toolsWith(setup.tools), problem, sessions, writer, req.IDs, log)
		host.attach(sup, setup.tools)
		st := sup.State()
		return &rpc.OpenedSession{
			Supervisor:   sup,
			ContextFiles: setup.contextFiles,
			Closed:       func() { host.detach(sup) },
			Result: protocol.CreateSessionResult{
				SessionID: st.SessionID, SessionFile: st.SessionFile, Cwd: setup.cwd, Model: st.Model,
			},
		}, nil
	}
}
