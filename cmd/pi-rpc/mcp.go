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

	mu       sync.Mutex
	sessions []mcpSession
}

// mcpSession is a session the servers' tools are given to, with its own built-in tools.
type mcpSession struct {
	sup      *session.Supervisor
	builtins []core.Tool
	// extra, when set, are the session's own tools after the servers' (the MCP servers an
	// ACP client gave the session).
	extra func() []core.Tool
}

// tools are the session's tools now.
func (s mcpSession) tools(h *mcpHost) []core.Tool {
	out := h.toolsWith(s.builtins)
	if s.extra != nil {
		out = append(out, s.extra()...)
	}
	return out
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
	set, err := mcp.Connect(context.Background(), mcp.Merge(layers...), mcp.Options{
		CallTimeout: c.mcpTimeout, Cwd: setup.cwd, ClientVersion: version, Logger: log,
		OnToolsChanged: h.refresh, OnFault: h.fault,
	})
	if err != nil {
		log.Warn().Err(err).Msg("MCP servers failed to start")
	}
	h.set = set
	return h, nil
}

// toolsWith are a session's tools: its built-ins, then every connected server's.
func (h *mcpHost) toolsWith(builtins []core.Tool) []core.Tool {
	return append(slices.Clone(builtins), h.set.Tools()...)
}

// attach hands tool changes and faults to the session from now on.
func (h *mcpHost) attach(sup *session.Supervisor, builtins []core.Tool) {
	h.attachWith(sup, builtins, nil)
}

// attachWith is attach for a session with tools of its own after the servers'.
func (h *mcpHost) attachWith(sup *session.Supervisor, builtins []core.Tool, extra func() []core.Tool) {
	s := mcpSession{sup: sup, builtins: builtins, extra: extra}
	h.mu.Lock()
	h.sessions = append(h.sessions, s)
	h.mu.Unlock()
	sup.SetTools(s.tools(h))
}

// detach stops handing tool changes and faults to a closed session.
func (h *mcpHost) detach(sup *session.Supervisor) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions = slices.DeleteFunc(h.sessions, func(s mcpSession) bool { return s.sup == sup })
}

func (h *mcpHost) attached() []mcpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sessions)
}

// refresh gives every session the current tools; they apply from its next model request.
func (h *mcpHost) refresh() {
	for _, s := range h.attached() {
		s.sup.SetTools(s.tools(h))
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
	list := make([]mcp.ServerConfig, 0, len(servers))
	for name, s := range servers {
		list = append(list, mcp.ServerConfig{Name: name, Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env,
			Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Source: "initialize"})
	}
	slices.SortFunc(list, func(a, b mcp.ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	_ = h.set.Add(ctx, list) // failures are in the servers' status
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
