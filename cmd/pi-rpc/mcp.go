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

// mcpHost owns the process's MCP servers: it keeps every session's tools (its built-ins, then
// the servers' tools) current, reports faults to every session as session_error, and
// implements rpc.MCPHost.
type mcpHost struct {
	set *mcp.Set
	// opts are the options of the process's servers, the base of a session's own.
	opts mcp.Options

	mu       sync.Mutex
	sessions []mcpSession
}

// mcpSession is a session the servers' tools are given to, with its own built-in tools and,
// for a session createSession opened with mcpServers, its own servers.
type mcpSession struct {
	sup      *session.Supervisor
	builtins []core.Tool
	own      *mcp.Set
}

// startMCP connects the servers of $PI_RPC_HOME/mcp.json and the --mcp-config files (later
// files replace servers of the same name). An unreadable file is a startup error; a server
// that fails is reported in the problems and the others run.
func startMCP(c *config, setup *agentSetup, log zerolog.Logger) (*mcpHost, error) {
	var layers [][]mcp.ServerConfig
	paths := slices.Clone(c.mcpConfigs)
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
	h := &mcpHost{}
	h.opts = mcp.Options{
		CallTimeout: c.mcpTimeout, Cwd: setup.cwd, ClientVersion: version, Logger: log,
		OnToolsChanged: h.refresh, OnFault: h.fault,
	}
	set, err := mcp.Connect(context.Background(), mcp.Merge(layers...), h.opts)
	if err != nil {
		log.Warn().Err(err).Msg("MCP servers failed to start")
	}
	h.set = set
	return h, nil
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

// attach hands tool changes and faults to the session from now on.
func (h *mcpHost) attach(sup *session.Supervisor, builtins []core.Tool, own *mcp.Set) {
	h.mu.Lock()
	h.sessions = append(h.sessions, mcpSession{sup: sup, builtins: builtins, own: own})
	h.mu.Unlock()
	sup.SetTools(h.toolsWith(builtins, own))
}

// detach stops handing tool changes and faults to a closed session, and stops its own
// servers.
func (h *mcpHost) detach(sup *session.Supervisor) {
	h.mu.Lock()
	var own *mcp.Set
	h.sessions = slices.DeleteFunc(h.sessions, func(s mcpSession) bool {
		if s.sup == sup {
			own = s.own
		}
		return s.sup == sup
	})
	h.mu.Unlock()
	if own != nil {
		_ = own.Close()
	}
}

// connectOwn connects a session's own servers (createSession's mcpServers), started in the
// session's cwd; their faults are reported to that session only.
func (h *mcpHost) connectOwn(ctx context.Context, servers map[string]protocol.MCPServerConfig, cwd string, sup *session.Supervisor) *mcp.Set {
	opts := h.opts
	opts.Cwd = cwd
	opts.OnFault = func(f mcp.Fault) { sup.ReportError(faultMessage(f)) }
	set := mcp.NewSet(opts)
	_ = set.Add(ctx, serverList(servers, "createSession")) // failures are in the servers' status
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

func (h *mcpHost) attached() []mcpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sessions)
}

// refresh gives every session the current tools; they apply from its next model request.
func (h *mcpHost) refresh() {
	for _, s := range h.attached() {
		s.sup.SetTools(h.toolsWith(s.builtins, s.own))
	}
}

func (h *mcpHost) fault(f mcp.Fault) {
	for _, s := range h.attached() {
		s.sup.ReportError(faultMessage(f))
	}
}

func faultMessage(f mcp.Fault) string {
	if f.Tool == "" {
		return fmt.Sprintf("MCP server %s failed: %s", f.Server, f.Message)
	}
	return fmt.Sprintf("MCP server %s: %s", f.Server, f.Message)
}

// Add implements rpc.MCPHost.
func (h *mcpHost) Add(ctx context.Context, servers map[string]protocol.MCPServerConfig) {
	_ = h.set.Add(ctx, serverList(servers, "initialize")) // failures are in the servers' status
	h.refresh()
}

// Servers implements rpc.MCPHost.
func (h *mcpHost) Servers() []protocol.MCPServerStatus {
	var out []protocol.MCPServerStatus
	for _, st := range h.set.Status() {
		ps := protocol.MCPServerStatus{Name: st.Name, Transport: st.Transport, State: st.State, Error: st.Error,
			LastError: st.LastError, Source: st.Source, Tools: []protocol.MCPToolStatus{}}
		if st.ServerName != "" {
			ps.ServerInfo = &protocol.ServerInfo{Name: st.ServerName, Version: st.ServerVersion}
		}
		for _, t := range st.Tools {
			ps.Tools = append(ps.Tools, protocol.MCPToolStatus{Name: t.Name, ServerTool: t.ServerTool, Description: t.Description,
				ReadOnly: t.ReadOnly, Destructive: t.Destructive})
		}
		out = append(out, ps)
	}
	return out
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
