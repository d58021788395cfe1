package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
)

// The transports a server can use.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// ServerConfig is one MCP server as configured: a command to run (stdio) or a URL to reach
// (streamable HTTP or SSE). It is the value of one entry of an mcpServers object, in the shape
// Claude Code, Cursor and Zed use; callers with another shape (ACP's session/new) fill it
// directly.
type ServerConfig struct {
	// Name is the entry's key; it is the <server> part of the tool names.
	Name string `json:"-"`
	// Type is stdio, http or sse; empty means stdio with a command, http with a url.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Cwd is the server's working directory (default the agent's).
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Source says where the entry came from (a file path, "initialize"), for messages.
	Source string `json:"-"`

	// err is why the entry could not be read; Connect reports it as the server's failure.
	err error
}

// Transport is the transport the server uses: Type, or what Command and URL imply.
func (c ServerConfig) Transport() string {
	switch {
	case c.Type != "":
		return c.Type
	case c.URL != "" && c.Command == "":
		return TransportHTTP
	}
	return TransportStdio
}

// Validate reports what keeps the entry from being used.
func (c ServerConfig) Validate() error {
	if c.err != nil {
		return c.err
	}
	if c.Name == "" {
		return errors.New("the server has no name")
	}
	switch c.Transport() {
	case TransportStdio:
		if c.Command == "" {
			return errors.New(`a stdio server needs "command"`)
		}
		if c.URL != "" {
			return errors.New(`a stdio server takes "command", not "url"`)
		}
	case TransportHTTP, TransportSSE:
		if c.URL == "" {
			return fmt.Errorf(`an %s server needs "url"`, c.Transport())
		}
		if c.Command != "" {
			return fmt.Errorf(`an %s server takes "url", not "command"`, c.Transport())
		}
	default:
		return fmt.Errorf(`unknown type %q (use stdio, http or sse)`, c.Type)
	}
	return nil
}

// UnmarshalJSON reads an entry; "command" may also be Zed's object {"path", "args", "env"}.
func (c *ServerConfig) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type    string            `json:"type"`
		Command json.RawMessage   `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		Cwd     string            `json:"cwd"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	*c = ServerConfig{Name: c.Name, Source: c.Source, Type: raw.Type, Args: raw.Args, Env: raw.Env, Cwd: raw.Cwd, URL: raw.URL, Headers: raw.Headers}
	cmd := bytes.TrimSpace(raw.Command)
	switch {
	case len(cmd) == 0 || string(cmd) == "null":
	case cmd[0] == '"':
		return json.Unmarshal(cmd, &c.Command)
	case cmd[0] == '{':
		var zed struct {
			Path string            `json:"path"`
			Args []string          `json:"args"`
			Env  map[string]string `json:"env"`
		}
		if err := json.Unmarshal(cmd, &zed); err != nil {
			return fmt.Errorf("command: %w", err)
		}
		c.Command = zed.Path
		c.Args = append(zed.Args, c.Args...)
		if len(zed.Env) > 0 && c.Env == nil {
			c.Env = map[string]string{}
		}
		for k, v := range zed.Env {
			if _, ok := c.Env[k]; !ok {
				c.Env[k] = v
			}
		}
	default:
		return errors.New(`"command" must be a string or an object with "path"`)
	}
	return nil
}

// ParseServers reads an mcpServers object ({"name": {...}, ...}). A malformed whole is an
// error; a malformed entry becomes a server whose Validate fails, so the others still run.
// The servers are sorted by name.
func ParseServers(data []byte, source string) ([]ServerConfig, error) {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("mcpServers must be an object of servers by name: %w", err)
	}
	out := make([]ServerConfig, 0, len(entries))
	for name, raw := range entries {
		c := ServerConfig{Name: name, Source: source}
		if err := json.Unmarshal(raw, &c); err != nil {
			c = ServerConfig{Name: name, Source: source, err: fmt.Errorf("invalid entry: %w", err)}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ParseConfig reads a config file's content: {"mcpServers": {...}}.
func ParseConfig(data []byte, source string) ([]ServerConfig, error) {
	var file struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	servers, err := ParseServers(file.MCPServers, source)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return servers, nil
}

// LoadFile reads a config file.
func LoadFile(path string) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data, path)
}

// Merge combines layers of servers; a later layer's server replaces an earlier one of the
// same name. The result is sorted by name.
func Merge(layers ...[]ServerConfig) []ServerConfig {
	byName := map[string]ServerConfig{}
	for _, layer := range layers {
		for _, c := range layer {
			byName[c.Name] = c
		}
	}
	out := make([]ServerConfig, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// resolve returns the entry with ${VAR} and ${VAR:-default} references in its command,
// args, env, cwd, url and headers replaced from lookup. A reference to an unset variable
// without a default is an error naming it.
func (c ServerConfig) resolve(lookup func(string) (string, bool)) (ServerConfig, error) {
	var missing []string
	expand := func(s string) string {
		out, miss := expandVars(s, lookup)
		missing = append(missing, miss...)
		return out
	}
	r := c
	r.Command = expand(c.Command)
	r.Cwd = expand(c.Cwd)
	r.URL = expand(c.URL)
	r.Args = make([]string, len(c.Args))
	for i, a := range c.Args {
		r.Args[i] = expand(a)
	}
	r.Env = expandMap(c.Env, expand)
	r.Headers = expandMap(c.Headers, expand)
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		return c, fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	if r.URL != "" {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("url %q is not an http or https URL", r.URL)
		}
	}
	return r, nil
}

func expandMap(m map[string]string, expand func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v)
	}
	return out
}

// expandVars replaces ${NAME} and ${NAME:-default}; it returns the names that were unset and
// had no default. Text without "${" is returned unchanged, so a lone $ stays as it is.
func expandVars(s string, lookup func(string) (string, bool)) (string, []string) {
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if v, ok := lookup(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else {
			missing = append(missing, name)
		}
		s = s[i+end+1:]
	}
}
