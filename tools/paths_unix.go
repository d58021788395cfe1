//go:build !windows

package tools

import (
	"path/filepath"
	"strings"
)

// within reports whether p is dir or below it (both cleaned, absolute).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// joinCwd resolves a relative path against the working directory.
func joinCwd(cwd, p string) string { return filepath.Join(cwd, p) }
