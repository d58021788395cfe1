package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// maxToolName is the longest tool name providers accept (OpenAI: ^[a-zA-Z0-9_-]{1,64}$).
const maxToolName = 64

// sanitize keeps ASCII letters, digits, '_' and '-'; anything else becomes '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// shortHash is 8 hex digits of the SHA-256 of a server's and tool's original names.
func shortHash(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:4])
}

// toolKey is one tool of one server, by their original names.
type toolKey struct{ server, tool string }

// assignNames gives every tool its agent name: mcp__<server>__<tool>, sanitised. A name longer
// than 64 characters is cut and ends in _<hash of the original names>; when two tools sanitise
// to the same name, the first in (server, tool) order keeps it and the others get the hash
// suffix, so the same set of tools always gets the same names.
func assignNames(keys []toolKey) map[toolKey]string {
	keys = slices.Clone(keys)
	slices.SortFunc(keys, func(a, b toolKey) int {
		if c := strings.Compare(a.server, b.server); c != 0 {
			return c
		}
		return strings.Compare(a.tool, b.tool)
	})
	withHash := func(base string, k toolKey) string {
		suffix := "_" + shortHash(k.server, k.tool)
		if len(base) > maxToolName-len(suffix) {
			base = base[:maxToolName-len(suffix)]
		}
		return base + suffix
	}
	names := make(map[toolKey]string, len(keys))
	taken := map[string]bool{}
	for _, k := range keys {
		base := "mcp__" + sanitize(k.server) + "__" + sanitize(k.tool)
		name := base
		if len(name) > maxToolName || taken[name] {
			name = withHash(base, k)
		}
		taken[name] = true
		names[k] = name
	}
	return names
}
