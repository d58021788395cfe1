package resources

import (
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file holds the path rules of resource discovery: pi's tilde and relative resolution,
// and the settings' include, exclude and exact-path patterns.

// resolvePath is pi's resolvePath with trimming: "~" and "~/" are the home directory, a
// relative path is from base.
func resolvePath(p, base, home string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// realPath is a path with its symbolic links resolved, or the path when that fails.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// within says whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// enabledByOverrides is pi's isEnabledByOverrides for a discovered file: "!glob" disables,
// "+path" enables again, "-path" disables in any case.
func enabledByOverrides(path string, entries []string, base, home string) bool {
	p := splitPatterns(entries)
	enabled := !matchesAny(path, p.excl, base, home)
	if matchesExact(path, p.forceIncl, base, home) {
		enabled = true
	}
	if matchesExact(path, p.forceExcl, base, home) {
		enabled = false
	}
	return enabled
}

// patternSets are settings patterns sorted by their prefix, as pi reads them: a bare glob
// includes, "!" excludes, "+" includes an exact path in any case and "-" excludes one.
type patternSets struct {
	incl, excl, forceIncl, forceExcl []string
}

func splitPatterns(patterns []string) patternSets {
	var s patternSets
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "+"):
			s.forceIncl = append(s.forceIncl, p[1:])
		case strings.HasPrefix(p, "-"):
			s.forceExcl = append(s.forceExcl, p[1:])
		case strings.HasPrefix(p, "!"):
			s.excl = append(s.excl, p[1:])
		default:
			s.incl = append(s.incl, p)
		}
	}
	return s
}

// applyPatterns is pi's applyPatterns: bare globs keep the matching files (all when there
// are none), then "!" excludes, "+" adds back and "-" removes.
func applyPatterns(files, patterns []string, base, home string) map[string]bool {
	p := splitPatterns(patterns)
	out := map[string]bool{}
	for _, f := range files {
		on := len(p.incl) == 0 || matchesAny(f, p.incl, base, home)
		if on && matchesAny(f, p.excl, base, home) {
			on = false
		}
		if !on && matchesExact(f, p.forceIncl, base, home) {
			on = true
		}
		if matchesExact(f, p.forceExcl, base, home) {
			on = false
		}
		out[f] = on
	}
	return out
}

// matchesAny is pi's matchesAnyPattern: a glob against the path relative to base, the file
// name or the whole path; for a SKILL.md also against its directory's.
func matchesAny(path string, patterns []string, base, home string) bool {
	if len(patterns) == 0 {
		return false
	}
	cands := []string{relSlash(base, path), filepath.Base(path), filepath.ToSlash(path)}
	if filepath.Base(path) == "SKILL.md" {
		dir := filepath.Dir(path)
		cands = append(cands, relSlash(base, dir), filepath.Base(dir), filepath.ToSlash(dir))
	}
	for _, p := range patterns {
		p = filepath.ToSlash(expandTilde(p, home))
		for _, c := range cands {
			if ok, _ := doublestar.Match(p, c); ok {
				return true
			}
		}
	}
	return false
}

// matchesExact is pi's matchesAnyExactPattern: the pattern (without a leading "./") equals
// the path relative to base or the whole path, or for a SKILL.md its directory's.
func matchesExact(path string, patterns []string, base, home string) bool {
	if len(patterns) == 0 {
		return false
	}
	cands := []string{relSlash(base, path), filepath.ToSlash(path)}
	if filepath.Base(path) == "SKILL.md" {
		dir := filepath.Dir(path)
		cands = append(cands, relSlash(base, dir), filepath.ToSlash(dir))
	}
	for _, p := range patterns {
		p = filepath.ToSlash(expandTilde(strings.TrimPrefix(p, "./"), home))
		if slices.Contains(cands, p) {
			return true
		}
	}
	return false
}

func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

func relSlash(base, path string) string {
	rel, err := filepath.Rel(base, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// walked yields the entries of dir (as os.ReadDir listed them) that pi's resource walks look
// at, each with its path and what os.Stat says of it: dot entries and node_modules are passed
// over, a symbolic link is followed and a broken one skipped.
func walked(dir string, entries []os.DirEntry) iter.Seq2[string, fs.FileInfo] {
	return func(yield func(string, fs.FileInfo) bool) {
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			full := filepath.Join(dir, name)
			fi, err := os.Stat(full)
			if err != nil {
				continue
			}
			if !yield(full, fi) {
				return
			}
		}
	}
}
