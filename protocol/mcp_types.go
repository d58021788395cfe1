package protocol

// MCPServerConfig is one MCP server of initialize's mcpServers: a command to run (stdio) or a
// URL (streamable HTTP or SSE). The shape is that of Claude Code's, Cursor's and Zed's
// mcpServers; ${VAR} in command, args, env, cwd, url and headers is resolved from pi-rpc's
// environment.
type MCPServerConfig struct {
	// Type is stdio, http or sse; by default stdio with a command, http with a url.
	Type    string            `json:"type,omitempty" jsonschema:"enum=stdio,enum=http,enum=sse"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// ToolDescription is one tool the model is offered.
type ToolDescription struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is builtin or mcp.
	Source string `json:"source" jsonschema:"enum=builtin,enum=mcp"`
	// Server is the MCP server of an mcp tool.
	Server string `json:"server,omitempty"`
	// NeedsApproval: in approval mode ask, a call asks the client first.
	NeedsApproval bool `json:"needsApproval"`
}

// MCPServerStatus is one MCP server's state.
type MCPServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport" jsonschema:"enum=stdio,enum=http,enum=sse"`
	State     string `json:"state" jsonschema:"enum=connecting,enum=connected,enum=failed,enum=closed"`
	// Error is why the server failed.
	Error string `json:"error,omitempty"`
	// LastError is the last fault of a call (timeout, bad answer), cleared by a good call.
	LastError string `json:"lastError,omitempty"`
	// ServerInfo is what the server said it is.
	ServerInfo *ServerInfo `json:"serverInfo,omitempty"`
	// Source is the config file the server came from, or "initialize".
	Source string          `json:"source,omitempty"`
	Tools  []MCPToolStatus `json:"tools"`
}

// MCPToolStatus is one tool of an MCP server.
type MCPToolStatus struct {
	// Name is the agent's name for it, mcp__<server>__<tool>; ServerTool the server's.
	Name        string `json:"name"`
	ServerTool  string `json:"serverTool"`
	Description string `json:"description,omitempty"`
	ReadOnly    bool   `json:"readOnly"`
	Destructive bool   `json:"destructive"`
}

// ListToolsResult is listTools' result.
type ListToolsResult struct {
	Tools      []ToolDescription `json:"tools"`
	MCPServers []MCPServerStatus `json:"mcpServers"`
}
