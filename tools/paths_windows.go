package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// within reports whether p is dir or below it (both cleaned, absolute), as Windows compares
// paths: without regard to case (C:\Repo and c:\repo are one directory) and with the
// long-path prefixes \\?\ and \\?\UNC\ removed (\\?\C:\Repo is C:\Repo).
func within(p, dir string) bool {
	p, dir = plainPath(p), plainPath(dir)
	if strings.EqualFold(p, dir) {
		return true
	}
	rel, err := filepath.Rel(dir, p) // compares components with strings.EqualFold on Windows
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, `..\`) && !filepath.IsAbs(rel)
}

// joinCwd resolves a path that is not absolute against the working directory as Windows
// (and pi, with Node's path.resolve) does: one rooted without a drive (\etc\x, /etc/x) is on
// the working directory's drive, C:\etc\x for a cwd on C:, not a directory under the cwd.
func joinCwd(cwd, p string) string {
	if len(p) > 0 && os.IsPathSeparator(p[0]) && filepath.VolumeName(p) == "" {
		return filepath.VolumeName(cwd) + p
	}
	return filepath.Join(cwd, p)
}

// plainPath removes the long-path prefix: \\?\C:\x is C:\x, \\?\UNC\server\share\x is
// \\server\share\x.
func plainPath(p string) string {
	switch {
	case len(p) >= 8 && strings.EqualFold(p[:8], `\\?\UNC\`):
		return `\\` + p[8:]
	case strings.HasPrefix(p, `\\?\`):
		return p[4:]
	}
	return p
}
