package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/acp"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/tools"
	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

// protocolACP selects the Agent Client Protocol front end (docs/editors.md).
const protocolACP = "acp"

func (c *config) validateACP() []error {
	if c.protocol == protocolACP && (c.sessionRef != "" || c.continueRecent) {
		return []error{errors.New("--protocol acp: sessions are opened with session/new and session/load, not --session or --continue")}
	}
	return nil
}

// acpToolNames are the tools of an ACP session: those of the command line, and update_plan
// unless --tools chose the list.
func acpToolNames(c *config) []string {
	switch {
	case c.noTools:
		return []string{}
	case c.toolsSet:
		return tools.ParseNames(c.tools)
	}
	return append(slices.Clone(tools.Names), tools.PlanToolName)
}

// runACP serves ACP on stdin/stdout until stdin ends, stdout breaks or a signal arrives.
// Each session gets the cwd session/new names, its own tools confined to it, the process's
// MCP servers and the ones the editor passed.
func runACP(cfg *config, setup *agentSetup, stdin io.Reader, stdout io.Writer, log zerolog.Logger, version string) int {
	host, err := startMCP(cfg, setup, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pi-rpc:", err)
		return 1
	}
	defer host.close()
	log.Info().Str("version", version).Str("protocol", "acp").Msg("pi-rpc started")
	problem := ""
	if len(setup.problems) > 0 {
		problem = setup.problems[0].Message
	}
	var models []core.Model
	if setup.models != nil {
		models = setup.models.List()
	}
	names := acpToolNames(cfg)
	server := acp.NewServer(acp.Options{
		In: stdin, Out: stdout,
		Open: func(req acp.OpenRequest) (*acp.Opened, error) {
			return openACPSession(cfg, setup, host, names, req, log)
		},
		List: func(cwd string) ([]acp.SessionSummary, error) {
			return listACPSessions(cfg, setup, cwd)
		},
		Models: models,
		ResolveModel: func(ref string) (core.Model, core.Provider, error) {
			if setup.models == nil {
				return core.Model{}, nil, errors.New("no provider is configured")
			}
			provider, id := "", ref
			if i := strings.Index(ref, "/"); i > 0 {
				provider, id = ref[:i], ref[i+1:]
			}
			return setup.models.Resolve(provider, id)
		},
		AuthProblem:     problem,
		Approval:        cfg.approval,
		MaxMessageBytes: cfg.maxMessageBytes,
		MaxSessions:     cfg.maxSessions,
		Version:         version,
		Logger:          log,
	})
	life := watchProcess(log)
	defer life.stop()
	inputClosed := make(chan struct{})
	go func() {
		defer close(inputClosed)
		if err := server.Serve(); err != nil {
			log.Warn().Err(err).Msg("reading stdin")
		}
	}()
	_, code := life.await(endings{input: inputClosed, output: server.Broken()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	server.Shutdown(ctx)
	return code
}

// openACPSession opens a new or saved session for the ACP front end, with the editor's MCP
// servers as tools of that session alone.
func openACPSession(cfg *config, setup *agentSetup, host *mcpHost, names []string, req acp.OpenRequest, log zerolog.Logger) (*acp.Opened, error) {
	b, err := buildSession(cfg, setup, host, sessionSpec{cwd: req.Cwd, sessionFile: req.LoadID, toolNames: names, sink: req.Sink, ids: req.IDs, access: req.Access}, log)
	if err != nil {
		return nil, err
	}
	sup := b.sup
	var own *mcp.Set
	if len(req.MCPServers) > 0 {
		own, err = mcp.Connect(req.Ctx, req.MCPServers, mcp.Options{
			CallTimeout: cfg.mcpTimeout, Cwd: b.setup.cwd, ClientVersion: version, Logger: log,
			OnToolsChanged: host.refresh,
			OnFault:        func(f mcp.Fault) { sup.ReportError(faultMessage(f)) },
		})
		if err != nil {
			log.Warn().Err(err).Msg("a session's MCP servers failed to start")
		}
	}
	host.attach(sup, b.setup.tools, own)
	// detach also stops the session's own servers
	return &acp.Opened{Supervisor: sup, Close: func() { host.detach(sup) }}, nil
}

// listACPSessions lists the saved sessions of cwd (of the process's cwd for "").
func listACPSessions(cfg *config, setup *agentSetup, cwd string) ([]acp.SessionSummary, error) {
	s := *setup
	if cwd != "" {
		s.cwd = cwd
	}
	cat, err := newCatalog(cfg, &s)
	if err != nil {
		return nil, err
	}
	var out []acp.SessionSummary
	cursor := ""
	for {
		infos, next, err := cat.List(s.cwd, cursor, 200)
		if err != nil {
			return nil, err
		}
		for _, in := range infos {
			title := in.Name
			if title == "" {
				title = in.FirstMessage
			}
			var updated time.Time
			if t, err := time.Parse(time.RFC3339Nano, in.Modified); err == nil {
				updated = t
			}
			out = append(out, acp.SessionSummary{ID: in.ID, Cwd: in.Cwd, Title: title, UpdatedAt: updated})
		}
		if next == "" || len(out) >= 1000 {
			return out, nil
		}
		cursor = next
	}
}
