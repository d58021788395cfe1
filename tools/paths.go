package tools

import (
	"errors"
	"fmt"
	"io/fs"
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
		if strings.HasPrefix(p, "~/") {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// resolve turns a model-supplied path into an absolute, cleaned path against the cwd.
func (e *env) resolve(p string) string {
	p = expandPath(p, e.home)
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.cwd, p)
	}
	return filepath.Clean(p)
}

// realPathForWrite is where a write to abs really lands: the path with every symlink
// resolved, or, for a path that does not exist yet, its nearest existing ancestor's real
// path joined with the missing components.
func realPathForWrite(abs string) (string, error) {
	missing := []string{}
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(missing) - 1; i >= 0; i-- {
				real = filepath.Join(real, missing[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		missing = append(missing, filepath.Base(cur))
		cur = parent
	}
}

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

// checkWritable enforces the write confinement of DESIGN.md §6: write and edit may only
// touch files whose real path is inside the real working directory, unless the server was
// started with --allow-outside-cwd. It returns the real path, which is what the caller locks
// and renames onto, so a symlink inside cwd pointing inside cwd keeps working.
func (e *env) checkWritable(display, abs string) (string, error) {
	real, err := realPathForWrite(abs)
	if err != nil {
		return "", err
	}
	if e.allowOutsideCwd {
		return real, nil
	}
	root, err := filepath.EvalSymlinks(e.cwd)
	if err != nil {
		root = e.cwd
	}
	if !within(real, root) {
		return "", fmt.Errorf("Refusing to write outside the working directory: %s resolves to %s, which is not under %s. Writes outside the working directory are disabled (start pi-rpc with --allow-outside-cwd to allow them).", display, real, root)
	}
	return real, nil
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
