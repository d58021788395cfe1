package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// trustGated are the entries of a project's .pi that need a trust decision (pi 1.6.0's
// TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES).
var trustGated = []string{"settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"}

// TrustOptions are what decides a project's trust.
type TrustOptions struct {
	// Cwd is the project (the session's working directory); AgentDir holds trust.json; Home
	// is the user's home (whose ~/.agents/skills is the user's, never the project's).
	Cwd, AgentDir, Home string
	// Override is --approve (true) or --no-approve (false); nil when neither was given.
	Override *bool
	// Default is the agent settings' defaultProjectTrust: "always", "never", or "ask" (or
	// empty, the same), which without a terminal to ask is "never".
	Default string
}

// ProjectTrusted decides, as pi 1.6.0 does without an interactive prompt (RPC mode), whether
// a project's own resources load: the command line's decision first; a project with none of
// the gated resources is trusted unless trust.json says otherwise; then the closest saved
// decision in trust.json for the directory or a parent; then defaultProjectTrust "always".
// Anything else skips them. An unreadable or malformed trust.json is an error, as in pi.
func ProjectTrusted(o TrustOptions) (bool, error) {
	if o.Override != nil {
		return *o.Override, nil
	}
	saved, err := savedTrust(filepath.Join(o.AgentDir, "trust.json"), o.Cwd)
	if err != nil {
		return false, err
	}
	if !NeedsTrust(o.Cwd, o.Home) {
		return saved == nil || *saved, nil
	}
	if saved != nil {
		return *saved, nil
	}
	return o.Default == "always", nil
}

// NeedsTrust reports whether cwd has resources that only a trusted project loads: a gated
// entry in its .pi, or an .agents/skills in it or any ancestor (the home directory's
// excepted).
func NeedsTrust(cwd, home string) bool {
	dir := realPath(cwd)
	for _, e := range trustGated {
		if _, err := os.Stat(filepath.Join(dir, ".pi", e)); err == nil {
			return true
		}
	}
	user := filepath.Join(realPath(home), ".agents", "skills")
	for d := dir; ; d = filepath.Dir(d) {
		if p := filepath.Join(d, ".agents", "skills"); p != user {
			if _, err := os.Stat(p); err == nil {
				return true
			}
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// savedTrust is trust.json's decision for cwd: the entry of cwd (its real path) or of its
// closest parent that has one. A missing file has none.
func savedTrust(path, cwd string) (*bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to read trust store %s: %w", path, err)
	}
	var raw any
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\uFEFF")), &raw); err != nil {
		return nil, fmt.Errorf("Failed to read trust store %s: %w", path, err)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Invalid trust store %s: expected an object", path)
	}
	entries := map[string]bool{}
	for k, v := range obj {
		switch v := v.(type) {
		case bool:
			entries[filepath.Clean(k)] = v
		case nil:
		default:
			b, _ := json.Marshal(k)
			return nil, fmt.Errorf("Invalid trust store %s: value for %s must be true, false, or null", path, b)
		}
	}
	for d := realPath(cwd); ; d = filepath.Dir(d) {
		if v, ok := entries[d]; ok {
			return &v, nil
		}
		if filepath.Dir(d) == d {
			return nil, nil
		}
	}
}
