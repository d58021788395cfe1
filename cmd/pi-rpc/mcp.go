package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

// mcpHost owns the process's MCP servers: it starts them without holding up the protocol,
// keeps every session's tools (its built-ins, then the servers' tools) current, holds a
// session's prompt until the servers still starting are ready (mcpGate), reports each
// server's start to the sessions that use it (mcp_server_status, which only the JSON-RPC
// front end writes) and faults to every session as session_error, and implements
// rpc.MCPHost.
type mcpHost struct {
	set *mcp.Set
	// opts are the options of the process's servers, the base of a session's own.
	opts mcp.Options
	// configured are the servers of mcp.json and --mcp-config, started by start.
	configured []mcp.ServerConfig

	mu       sync.Mutex
	sessions []*mcpGate

	// toolsMu makes computing and setting a session's tools one step, so that of two
	// updates racing the later one has the newer tools.
	toolsMu sync.Mutex
}

// mcpGate is one session's part of the MCP servers: its built-in tools, its own servers
// (createSession's mcpServers, ACP's session/new) if any, and the session.ToolsGate that
// holds its prompts while a server it uses is still starting.
type mcpGate struct {
	h *mcpHost
	// Set by attach, under h.mu.
	sup      *session.Supervisor
	builtins []core.Tool
	own      *mcp.Set
}

// newGate returns the gate of a session not yet attached.
func (h *mcpHost) newGate() *mcpGate { return &mcpGate{h: h} }

// Pending implements session.ToolsGate: a server of the process's or of the session's own is
// still starting.
func (g *mcpGate) Pending() bool {
	_, _, own := g.attached()
	return g.h.set.Starting() || (own != nil && own.Starting())
}

// Wait implements session.ToolsGate: it waits for every start under way (each ends within
// --mcp-timeout, a late server failed and reported), then gives the session the tools.
func (g *mcpGate) Wait(ctx context.Context) {
	sup, builtins, own := g.attached()
	if g.h.set.WaitStarted(ctx) != nil {
		return
	}
	if own != nil && own.WaitStarted(ctx) != nil {
		return
	}
	if sup != nil {
		g.h.setTools(sup, builtins, own)
	}
}

func (g *mcpGate) attached() (*session.Supervisor, []core.Tool, *mcp.Set) {
	g.h.mu.Lock()
	defer g.h.mu.Unlock()
	return g.sup, g.builtins, g.own
}

// startMCP reads the servers of $PI_RPC_HOME/mcp.json and the --mcp-config files (later
// files replace servers of the same name); start starts them. An unreadable file is a
// startup error; a server that fails is reported and the others run.
func startMCP(c *config, setup *agentSetup, log zerolog.Logger) (*mcpHost, error) {
	var layers [][]mcp.ServerConfig
	paths := slices.Clone(c.mcpConfigs)
	if p := filepath.Join(setup.cwd, ".pi", "mcp.json"); setup.projectTrusted && fileExists(p) {
		// A trusted project's servers, as pi 1.6.0 reads them: after the user's, replacing
		// a server of the same name (docs/mcp.md).
		paths = append([]string{p}, paths...)
	}
	if p := filepath.Join(setup.home, "mcp.json"); fileExists(p) {
		paths = append([]string{p}, paths...)
	}
	for _, path := range paths {
		servers, err := mcp.LoadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--mcp-config: %w", err)
		}
		layers = append(layers, servers)
	}
	h := &mcpHost{configured: mcp.Merge(layers...)}
	h.opts = mcp.Options{
		CallTimeout: c.mcpTimeout, Cwd: setup.cwd, ClientVersion: version, Logger: log,
		OnToolsChanged: h.refresh, OnFault: h.fault,
		OnStatus: func(st mcp.ServerStatus) { h.status(nil, st) },
	}
	h.set = mcp.NewSet(h.opts)
	return h, nil
}

// start starts the configured servers and returns at once: the front end serves meanwhile,
// and a prompt waits for the servers still starting. The sessions attached by then get the
// servers' status events.
func (h *mcpHost) start() {
	if len(h.configured) > 0 {
		_ = h.set.Start(h.configured) // failures are in the servers' status
	}
}

// status hands a server's new status on: the sessions' tools first, then an event to each
// session that uses the server (only sup for a server of its own; every session for the
// process's, sup nil).
func (h *mcpHost) status(sup *session.Supervisor, st mcp.ServerStatus) {
	h.refresh()
	ev := protocol.MCPServerStatusUpdate{MCPServerStatus: protocolStatus(st), ToolCount: len(st.Tools)}
	if sup != nil {
		sup.ReportMCPStatus(ev)
		return
	}
	for _, g := range h.attached() {
		g.sup.ReportMCPStatus(ev)
	}
}

// toolsWith are a session's tools: its built-ins, then every connected server's of the
// process, then those of the session's own servers (own may be nil).
func (h *mcpHost) toolsWith(builtins []core.Tool, own *mcp.Set) []core.Tool {
	tools := append(slices.Clone(builtins), h.set.Tools()...)
	if own != nil {
		tools = append(tools, own.Tools()...)
	}
	return tools
}

// setTools gives a session its current tools.
func (h *mcpHost) setTools(sup *session.Supervisor, builtins []core.Tool, own *mcp.Set) {
	h.toolsMu.Lock()
	defer h.toolsMu.Unlock()
	sup.SetTools(h.toolsWith(builtins, own))
}

// attach hands tool changes and faults to the session from now on; gate is the one its
// supervisor was built with.
func (h *mcpHost) attach(gate *mcpGate, sup *session.Supervisor, builtins []core.Tool, own *mcp.Set) {
	h.mu.Lock()
	gate.sup, gate.builtins, gate.own = sup, builtins, own
	h.sessions = append(h.sessions, gate)
	h.mu.Unlock()
	h.setTools(sup, builtins, own)
}

// detach stops handing tool changes and faults to a closed session, and stops its own
// servers.
func (h *mcpHost) detach(sup *session.Supervisor) {
	h.mu.Lock()
	var own *mcp.Set
	h.sessions = slices.DeleteFunc(h.sessions, func(g *mcpGate) bool {
		if g.sup == sup {
			own = g.own
		}
		return g.sup == sup
	})
	h.mu.Unlock()
	if own != nil {
		_ = own.Close()
	}
}

// startOwn starts a session's own servers (createSession's mcpServers, ACP's session/new) in
// the session's cwd and returns at once; their faults are reported to that session only, and
// their status to it alone.
func (h *mcpHost) startOwn(servers []mcp.ServerConfig, cwd string, sup *session.Supervisor) *mcp.Set {
	opts := h.opts
	opts.Cwd = cwd
	opts.OnFault = func(f mcp.Fault) { sup.ReportError(faultMessage(f)) }
	opts.OnStatus = func(st mcp.ServerStatus) { h.status(sup, st) }
	set := mcp.NewSet(opts)
	_ = set.Start(servers) // failures are in the servers' status
	return set
}

// serverList turns the protocol's server map into the SDK layer's configs, sorted by name.
func serverList(servers map[string]protocol.MCPServerConfig, source string) []mcp.ServerConfig {
	list := make([]mcp.ServerConfig, 0, len(servers))
	for name, s := range servers {
		list = append(list, mcp.ServerConfig{Name: name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env,
			Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Source: source})
	}
	slices.SortFunc(list, func(a, b mcp.ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return list
}

func (h *mcpHost) attached() []*mcpGate {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sessions)
}

// refresh gives every session the current tools; they apply from its next model request.
func (h *mcpHost) refresh() {
	for _, g := range h.attached() {
		h.setTools(g.sup, g.builtins, g.own)
	}
}

func (h *mcpHost) fault(f mcp.Fault) {
	for _, g := range h.attached() {
		g.sup.ReportError(faultMessage(f))
	}
}

func faultMessage(f mcp.Fault) string {
	if f.Tool == "" {
		return fmt.Sprintf("MCP server %s failed: %s", f.Server, f.Message)
	}
	return fmt.Sprintf("MCP server %s: %s", f.Server, f.Message)
}

// Add implements rpc.MCPHost: the servers start without being waited for.
func (h *mcpHost) Add(servers map[string]protocol.MCPServerConfig) {
	_ = h.set.Start(serverList(servers, "initialize")) // failures are in the servers' status
}

// Servers implements rpc.MCPHost.
func (h *mcpHost) Servers() []protocol.MCPServerStatus {
	var out []protocol.MCPServerStatus
	for _, st := range h.set.Status() {
		out = append(out, protocolStatus(st))
	}
	return out
}

// protocolStatus is a server's status as the protocol shows it.
func protocolStatus(st mcp.ServerStatus) protocol.MCPServerStatus {
	ps := protocol.MCPServerStatus{Name: st.Name, Transport: st.Transport, State: st.State, Error: st.Error,
		LastError: st.LastError, Source: st.Source, Tools: []protocol.MCPToolStatus{}}
	if st.ServerName != "" {
		ps.ServerInfo = &protocol.ServerInfo{Name: st.ServerName, Version: st.ServerVersion}
	}
	for _, t := range st.Tools {
		ps.Tools = append(ps.Tools, protocol.MCPToolStatus{Name: t.Name, ServerTool: t.ServerTool, Description: t.Description,
			ReadOnly: t.ReadOnly, Destructive: t.Destructive})
	}
	return ps
}

// Problems implements rpc.MCPHost.
func (h *mcpHost) Problems() []protocol.Problem {
	var out []protocol.Problem
	for _, st := range h.set.Status() {
		switch {
		case st.State == mcp.StateFailed:
			out = append(out, protocol.Problem{Kind: "mcpServer", Server: st.Name, Message: faultMessage(mcp.Fault{Server: st.Name, Message: st.Error})})
		case st.LastError != "":
			out = append(out, protocol.Problem{Kind: "mcpServer", Server: st.Name, Message: faultMessage(mcp.Fault{Server: st.Name, Tool: "-", Message: st.LastError})})
		}
	}
	return out
}

// close ends every server and waits for their processes.
func (h *mcpHost) close() { _ = h.set.Close() }
