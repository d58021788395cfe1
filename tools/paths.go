package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// unicodeSpaces are the space characters models sometimes emit inside paths (copied from
// rendered text); pi turns them into plain spaces before resolving.
var unicodeSpaces = strings.NewReplacer(
	"\u00A0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ",
	"\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// expandPath normalises a path as the model wrote it: unicode spaces become spaces, a leading
// "@" (a mention marker in many UIs) is dropped, and "~" or "~/" is the home directory.
func expandPath(p, home string) string {
	p = unicodeSpaces.Replace(p)
	p = strings.TrimPrefix(p, "@")
	if home != "" {
		if p == "~" {
			return home
		}
		if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// resolve turns a model-supplied path into an absolute, cleaned path against the cwd.
func (e *env) resolve(p string) string {
	p = expandPath(p, e.home)
	if !filepath.IsAbs(p) {
		p = joinCwd(e.cwd, p)
	}
	return filepath.Clean(p)
}

// checkWritable enforces the write confinement of docs/tools.md: write and edit may only
// touch files whose real path is inside the real working directory, unless the server was
// started with --allow-outside-cwd. It returns abs resolved ([resolvePath]); its path is what
// the caller locks and renames onto, so a symlink inside cwd pointing inside cwd keeps
// working. What the path is (a regular file, missing, special) is for the caller to judge.
func (e *env) checkWritable(display, abs string) (resolved, error) {
	r, err := resolvePath(abs)
	if err != nil {
		return resolved{}, err
	}
	if sb := e.opts.Sandbox; sb != nil {
		// The sandbox's write set holds whatever the flags say: the model gets the answer
		// its commands would get.
		if err := sb.CheckWrite(r.path); err != nil {
			return resolved{}, err
		}
	}
	if e.allowOutsideCwd {
		return r, nil
	}
	root, err := filepath.EvalSymlinks(e.cwd)
	if err != nil {
		root = e.cwd
	}
	if !within(r.path, root) {
		return resolved{}, fmt.Errorf("Refusing to write outside the working directory: %s resolves to %s, which is not under %s. Writes outside the working directory are disabled (start pi-rpc with --allow-outside-cwd to allow them).", display, r.path, root)
	}
	return r, nil
}

// dirExists reports whether p is an existing directory.
func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// resolveDir resolves the directory argument of grep, find and ls: the working directory
// when absent.
func (e *env) resolveDir(p string) string {
	if p == "" {
		p = "."
	}
	return e.resolve(p)
}
