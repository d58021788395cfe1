package tools

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globMatcher applies the glob rule of docs/tools.md to find's pattern and grep's glob: a
// pattern without "/" matches the base name at any depth (fd's default, ripgrep's --glob);
// one with "/" matches the path relative to the search root as if prefixed with "**/" (what
// pi gets from fd --full-path with "**/" prepended). A leading "/" anchors at the file-system
// root.
type globMatcher struct {
	pattern string
	full    bool
	abs     bool
}

func newGlob(p string) (globMatcher, error) {
	if !doublestar.ValidatePattern(p) {
		return globMatcher{}, fmt.Errorf("Invalid glob pattern: %s", p)
	}
	g := globMatcher{pattern: p}
	if strings.Contains(p, "/") {
		g.full = true
		switch {
		case strings.HasPrefix(p, "/"):
			g.abs = true
		case strings.HasPrefix(p, "**/") || p == "**":
		default:
			g.pattern = "**/" + p
		}
	}
	return g, nil
}

func (g globMatcher) match(e walkEntry) bool {
	var s string
	switch {
	case g.abs:
		s = toSlashRel(e.abs)
	case g.full:
		s = e.rel
	default:
		s = e.rel[strings.LastIndexByte(e.rel, '/')+1:]
	}
	ok, _ := doublestar.Match(g.pattern, s)
	return ok
}
