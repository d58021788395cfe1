package tools

import "path/filepath"

// ignoreRuleFiles are the files whose patterns [IgnoreRules.Add] reads, in pi's order.
var ignoreRuleFiles = []string{".gitignore", ".ignore", ".fdignore"}

// IgnoreRules are the ignore files met on a walk down from a root: each directory's
// .gitignore, .ignore and .fdignore, with git's precedence (a deeper file's match decides).
// The zero value ignores nothing. The skill loader (package resources) skips what they name,
// as pi does.
type IgnoreRules struct {
	stack *ignoreStack
}

// Add returns the rules with dir's ignore files added; r is unchanged.
func (r IgnoreRules) Add(dir string) IgnoreRules {
	abs := filepath.ToSlash(filepath.Clean(dir))
	s := r.stack
	for _, name := range ignoreRuleFiles {
		if data, err := readRegularFile(filepath.Join(dir, name)); err == nil {
			s = s.push(parseIgnore(abs, data))
		}
	}
	return IgnoreRules{stack: s}
}

// Ignores reports whether path (absolute) is ignored; isDir says it is a directory.
func (r IgnoreRules) Ignores(path string, isDir bool) bool {
	return r.stack.ignored(filepath.ToSlash(filepath.Clean(path)), isDir)
}
