package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/acp"
	"github.com/pi-rpc/pi-rpc/session"
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
	logSandbox(setup.sandbox, log)
	host, err := startMCP(cfg, setup, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pi-rpc:", err)
		return 1
	}
	defer host.close()
	log.Info().Str("version", version).Str("protocol", "acp").Msg("pi-rpc started")
	// ACP has no event for it: the servers' starts are in the log; a prompt waits for them.
	host.start()
	sessionHost := newSessionHost(cfg, setup, acpOpener(cfg, setup, host, acpToolNames(cfg), log))
	server := acp.NewServer(acp.Options{
		In: stdin, Out: stdout, Host: sessionHost,
		Approval:        cfg.approval,
		Sandbox:         acpSandboxes{setup.sandboxes, setup.sandbox},
		MaxMessageBytes: cfg.maxMessageBytes,
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
	end, code := life.await(endings{input: inputClosed, output: server.Broken()})
	if end == endInput {
		// Every request read before stdin ended is answered: the sessions still opening are
		// opened (and then closed with the rest); a signal cuts the wait short.
		if sigCode, signalled := life.untilSignal(func(sig context.Context) {
			drain, stop := context.WithTimeout(sig, drainTimeout)
			defer stop()
			server.Drain(drain)
		}); signalled {
			code = sigCode
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	server.Shutdown(ctx)
	return code
}

// drainTimeout bounds the wait, once stdin has ended, for the sessions still opening (their
// MCP servers starting): one not open by then is refused as the agent shutting down.
const drainTimeout = 10 * time.Second

// acpOpener opens the new and saved sessions of the ACP front end: the tools names gives,
// on the client's files and terminals where it offers them, and the editor's MCP servers as
// tools of that session alone (OpenRequest.Extra is an acp.OpenExtra), started without
// holding up session/new: the session's prompts wait for them.
func acpOpener(cfg *config, setup *agentSetup, host *mcpHost, names []string, log zerolog.Logger) session.Opener {
	return func(req session.OpenRequest) (*session.Opened, error) {
		extra, _ := req.Extra.(acp.OpenExtra)
		b, err := buildSession(cfg, setup, host, sessionSpec{cwd: req.Cwd, sessionFile: req.SessionFile, toolNames: names, sink: req.Sink, ids: req.IDs, access: extra.Access, beforeToolCall: extra.BeforeToolCall}, log)
		if err != nil {
			return nil, err
		}
		sup := b.sup
		var own *mcp.Set
		if len(extra.MCPServers) > 0 {
			own = host.startOwn(extra.MCPServers, b.setup.cwd, sup)
		}
		host.attach(b.gate, sup, b.setup.tools, own)
		return &session.Opened{
			Supervisor: sup, Cwd: b.setup.cwd, ContextFiles: b.setup.contextFiles,
			// detach also stops the session's own servers
			Closed: func() { host.detach(sup); setup.sandboxes.forget(sup) },
		}, nil
	}
}
