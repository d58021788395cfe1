package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

// authenticate has nothing to check but the provider: the first provider problem is the
// error the editor shows (its auth method explains it).
func (s *Server) authenticate(json.RawMessage) (any, *sdk.RequestError) {
	if problem := s.authProblem(); problem != "" {
		return nil, reqError(codeAuthRequired, problem, nil)
	}
	return sdk.AuthenticateResponse{}, nil
}

func (s *Server) initialize(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.InitializeRequest](params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.initialized = true
	s.mu.Unlock()
	res := sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersion(sdk.ProtocolVersionNumber),
		AgentInfo:       s.agentInfo(),
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:  &sdk.SessionListCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
			Meta: map[string]any{"pi-rpc": map[string]any{"steer": "_pi-rpc/steer"}},
		},
		AuthMethods: []sdk.AuthMethod{},
	}
	if problem := s.authProblem(); problem != "" {
		res.AuthMethods = append(res.AuthMethods, sdk.AuthMethod{Agent: &sdk.AuthMethodAgent{
			Id: "environment", Name: "Set the provider's API key", Description: sdk.Ptr(problem),
		}})
	}
	return res, nil
}

// agentInfo names pi-rpc and, in its _meta, says what sandbox its commands run in.
func (s *Server) agentInfo() *sdk.Implementation {
	info := &sdk.Implementation{Name: "pi-rpc", Title: sdk.Ptr("pi-rpc"), Version: s.opts.Version}
	if s.opts.Sandbox != nil {
		info.Meta = map[string]any{"pi-rpc": map[string]any{"sandbox": s.opts.Sandbox.Info()}}
	}
	return info
}

// authProblem is why no model can be called (a missing key), "" when one can: the host's
// first provider problem.
func (s *Server) authProblem() string {
	if ps := s.host.Problems(); len(ps) > 0 {
		return ps[0].Message
	}
	return ""
}

// mcpServers maps session/new's MCP servers to tools/mcp configurations.
func mcpServers(list []sdk.McpServer, cwd string) ([]mcp.ServerConfig, *sdk.RequestError) {
	out := make([]mcp.ServerConfig, 0, len(list))
	headers := func(hs []sdk.HttpHeader) map[string]string {
		m := map[string]string{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for i, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcp.ServerConfig{Name: m.Stdio.Name, Type: mcp.TransportStdio, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Cwd: cwd, Source: "session/new"})
		case m.Http != nil:
			out = append(out, mcp.ServerConfig{Name: m.Http.Name, Type: mcp.TransportHTTP, URL: m.Http.Url, Headers: headers(m.Http.Headers), Source: "session/new"})
		case m.Sse != nil:
			out = append(out, mcp.ServerConfig{Name: m.Sse.Name, Type: mcp.TransportSSE, URL: m.Sse.Url, Headers: headers(m.Sse.Headers), Source: "session/new"})
		default:
			return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: mcpServers[%d] has a transport pi-rpc does not support", i), nil)
		}
	}
	slices.SortFunc(out, func(a, b mcp.ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func checkCwd(cwd string) *sdk.RequestError {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return reqError(codeInvalidParams, fmt.Sprintf("Invalid params: cwd must be an absolute path, not %q", cwd), nil)
	}
	return nil
}

// notInitialized refuses a method that needs initialize first; nil once initialize is
// answered.
func (s *Server) notInitialized(method string) *sdk.RequestError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil
	}
	return reqError(codeInvalidRequest, "initialize must come first: "+method+" was sent before initialize", nil)
}
