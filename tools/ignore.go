package tools

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// This file is a small .gitignore matcher. The Go candidates were weighed first:
// sabhiram/go-gitignore and denormal/go-gitignore have had no release since 2021 and 2018,
// and go-git's plumbing/format/gitignore, though maintained, lives in the go-git module and
// would pull its whole dependency graph into go.mod for ~200 lines. The subset git documents
// (gitignore(5)) is small enough to implement and test here.

// ignorePattern is one line of a .gitignore file.
type ignorePattern struct {
	negate   bool
	dirOnly  bool
	anchored bool     // the pattern had a "/" before its end: match the path from the file's dir
	segs     []string // "/"-separated glob segments; "**" matches any number of segments
}

// ignoreFile holds the patterns of one .gitignore and the directory they are relative to.
type ignoreFile struct {
	dir      string // absolute, slash-separated, no trailing slash
	patterns []ignorePattern
}

// ignoreStack is the chain of .gitignore files that apply in a directory, deepest first.
// Deeper files take precedence over shallower ones, as in git.
type ignoreStack struct {
	file   *ignoreFile
	parent *ignoreStack
}

// parseIgnore parses .gitignore content for the directory dir (absolute).
func parseIgnore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: filepath.ToSlash(dir)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if p, ok := parseIgnoreLine(sc.Text()); ok {
			f.patterns = append(f.patterns, p)
		}
	}
	return f
}

func parseIgnoreLine(line string) (ignorePattern, bool) {
	var p ignorePattern
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return p, false
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	for _, s := range strings.Split(line, "/") {
		if s == "" {
			continue
		}
		p.segs = append(p.segs, convertClass(s))
	}
	return p, len(p.segs) > 0
}

// convertClass rewrites gitignore's "[!...]" negated class into path.Match's "[^...]".
func convertClass(s string) string {
	if !strings.Contains(s, "[!") {
		return s
	}
	return strings.ReplaceAll(s, "[!", "[^")
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

func segMatch(pat, name string) bool {
	if !hasMeta(pat) {
		return pat == name
	}
	if pat == "*" {
		return true
	}
	if strings.HasPrefix(pat, "*") && !hasMeta(pat[1:]) {
		return strings.HasSuffix(name, pat[1:])
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

func matchSegs(pat, p []string) bool {
	if len(pat) == 0 {
		return len(p) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(p) >= 1 // "dir/**" matches what is inside, not dir itself
		}
		for i := 0; i <= len(p); i++ {
			if matchSegs(pat[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 || !segMatch(pat[0], p[0]) {
		return false
	}
	return matchSegs(pat[1:], p[1:])
}

// match reports whether the pattern matches rel (slash path relative to the pattern's file).
func (p *ignorePattern) match(rel, base string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if !p.anchored {
		return segMatch(p.segs[0], base)
	}
	return matchSegs(p.segs, strings.Split(rel, "/"))
}

// ignored decides abs (slash path) with git's precedence: the deepest file with a matching
// pattern decides, and within a file the last matching pattern wins.
func (s *ignoreStack) ignored(abs string, isDir bool) bool {
	base := abs[strings.LastIndexByte(abs, '/')+1:]
	for ; s != nil; s = s.parent {
		f := s.file
		rel := strings.TrimPrefix(abs, f.dir+"/")
		if f.dir == "/" {
			rel = strings.TrimPrefix(abs, "/")
		}
		for i := len(f.patterns) - 1; i >= 0; i-- {
			if f.patterns[i].match(rel, base, isDir) {
				return !f.patterns[i].negate
			}
		}
	}
	return false
}

// push returns the stack with f on top; a nil or empty f leaves it unchanged.
func (s *ignoreStack) push(f *ignoreFile) *ignoreStack {
	if f == nil || len(f.patterns) == 0 {
		return s
	}
	return &ignoreStack{file: f, parent: s}
}

// parentIgnores loads the .gitignore files that apply to root from above it: those of the
// enclosing repository's directories, from the repository root down to root's parent, as
// ripgrep and fd do. Outside a repository there are none.
func parentIgnores(root string) *ignoreStack {
	var dirs []string
	found := false
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			found = true
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil || !found {
		return nil
	}
	var s *ignoreStack
	for i := len(dirs) - 1; i >= 0; i-- {
		if data, err := readRegularFile(filepath.Join(dirs[i], ".gitignore")); err == nil {
			s = s.push(parseIgnore(dirs[i], data))
		}
	}
	return s
}
