package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pi-rpc/pi-rpc/internal/fsmode"
)

// The file tools open only regular files, and directories where they list them (the rule of
// docs/tools.md, "Special files"). Anything else is refused before it is opened: reading a
// FIFO, a terminal, /dev/stdin or /proc/self/fd/0 would consume pi-rpc's own protocol input
// (or block forever), /dev/zero never ends, and writing through a link to a device or a
// dangling link used to replace the link with a regular file.

// resolved is a path with every symlink followed, as [resolvePath] found it.
type resolved struct {
	// path is the real path: for an existing file every symlink resolved; for a missing one
	// the real path of its nearest existing directory joined with the missing components.
	path string
	// info is the Lstat of path (never a symlink) when it exists, else nil.
	info fs.FileInfo
	// dangling is set when path is missing because a symlink points at nothing: the link.
	dangling string
	// procFD is set when resolving went through a process's file-descriptor link
	// (/proc/<pid>/fd/N, /dev/fd/N); path is that link and info is nil.
	procFD bool
}

// maxLinkHops bounds symlink resolution, as the kernel's ELOOP does.
const maxLinkHops = 255

// resolvePath follows every symlink of abs (absolute, cleaned) component by component, the
// way the kernel would, recording what it finds instead of failing: where a missing file would
// be, whether a link dangles, and whether a /proc/<pid>/fd link was on the way (those are
// magic links whose target may be a pipe, not a path, so filepath.EvalSymlinks cannot tell).
// Errors other than "does not exist" (permission, ENOTDIR, ELOOP, a name too long) are
// returned.
func resolvePath(abs string) (resolved, error) {
	vol := filepath.VolumeName(abs)
	todo := splitPath(abs[len(vol):])
	via := make([]string, len(todo)) // the link whose target contributed each component
	cur := vol + string(filepath.Separator)
	hops := 0
	for i := 0; i < len(todo); i++ {
		c := todo[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if isProcFDPath(next) {
			return resolved{path: next, procFD: true}, nil
		}
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			rest := append([]string{next}, todo[i+1:]...)
			r := resolved{path: filepath.Join(rest...)}
			for j := i; j < len(todo); j++ {
				if via[j] != "" {
					r.dangling = via[j]
					break
				}
			}
			return r, nil
		}
		if err != nil {
			return resolved{}, err
		}
		last := i == len(todo)-1
		if isLink(fi) {
			hops++
			if hops > maxLinkHops {
				return resolved{}, &fs.PathError{Op: "open", Path: abs, Err: syscall.ELOOP}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return resolved{}, err
			}
			if filepath.IsAbs(target) {
				tvol := filepath.VolumeName(target)
				cur, target = tvol+string(filepath.Separator), target[len(tvol):]
			}
			tc := splitPath(target)
			newVia := make([]string, len(tc), len(tc)+len(todo)-i-1)
			for j := range newVia {
				newVia[j] = next
			}
			if via[i] != "" { // a link reached through another link: report the first one
				for j := range newVia {
					newVia[j] = via[i]
				}
			}
			todo = append(tc, todo[i+1:]...)
			via = append(newVia, via[i+1:]...)
			i = -1
			continue
		}
		if !last && !fi.IsDir() {
			return resolved{}, &fs.PathError{Op: "open", Path: next, Err: syscall.ENOTDIR}
		}
		cur = next
		if last {
			return resolved{path: next, info: fi}, nil
		}
	}
	fi, err := os.Lstat(cur)
	if err != nil {
		return resolved{}, err
	}
	return resolved{path: cur, info: fi}, nil
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// kindOf names a file mode for error messages: "a named pipe (FIFO)", "a directory", ...
func kindOf(m fs.FileMode) string { return fsmode.Kind(m) }

// procFDKind names a /proc/<pid>/fd/N link (/dev/stdin, /dev/stdout, /dev/fd/N lead there).
const procFDKind = "a link to a process's open file descriptor (such as pi-rpc's own stdin or stdout)"

// notRegularError refuses a path that is not a regular file. It names the path as the model
// wrote it, what it resolves to when that differs, and its kind.
type notRegularError struct {
	op       string // read, write, edit, search
	path     string // as the model wrote it
	resolved string // the real path when a link was followed, else ""
	kind     string
}

func (e *notRegularError) Error() string {
	if e.resolved != "" {
		return fmt.Sprintf("Cannot %s %s: it resolves to %s, which is %s, not a regular file. Only regular files can be %s.", e.op, e.path, e.resolved, e.kind, pastTense(e.op))
	}
	return fmt.Sprintf("Cannot %s %s: it is %s, not a regular file. Only regular files can be %s.", e.op, e.path, e.kind, pastTense(e.op))
}

func pastTense(op string) string {
	switch op {
	case "read":
		return "read"
	case "write":
		return "written"
	case "edit":
		return "edited"
	case "search":
		return "searched"
	}
	return op + "ed"
}

// refuseSpecial returns the error for a resolved path that exists but is not a regular
// file or is a file-descriptor link; nil for a regular file or a missing path. abs is the
// path before resolution, so the message says "resolves to" only when a link was followed.
func refuseSpecial(op, display, abs string, r resolved) error {
	shown := ""
	if r.path != abs {
		shown = r.path
	}
	switch {
	case r.procFD:
		return &notRegularError{op: op, path: display, resolved: shown, kind: procFDKind}
	case r.info != nil && !r.info.Mode().IsRegular():
		return &notRegularError{op: op, path: display, resolved: shown, kind: kindOf(r.info.Mode())}
	}
	return nil
}

// danglingError refuses a write through a symlink whose target does not exist: writing
// would either create a file somewhere the model did not name or, as the temp-file rename
// did, replace the link itself.
func danglingError(display, link, target string) error {
	return fmt.Errorf("Cannot write %s: %s is a symbolic link to %s, which does not exist. Writes through dangling links are refused; write to the target path itself.", display, link, target)
}

// specialFileError is what [readRegular] returns for a descriptor that is not a regular
// file; callers word it for the model.
type specialFileError struct {
	path string
	kind string
}

func (e *specialFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.path, e.kind)
}

// readRegularFile reads a whole regular file (following links), refusing anything else
// without blocking: for small files pi-rpc reads itself, such as .gitignore and AGENTS.md.
func readRegularFile(path string) ([]byte, error) {
	data, release, err := readRegular(path, true)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), data...)
	release()
	return out, nil
}

// readDirSorted is os.ReadDir through [openDir].
func readDirSorted(path string) ([]os.DirEntry, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	_ = f.Close()
	sortDirEntries(ents)
	return ents, err
}

// wordSpecial turns a [specialFileError] (a descriptor or path found not to be a regular
// file after it was resolved) into the refusal the model sees for op; other errors pass
// through.
func wordSpecial(err error, op, display, abs string) error {
	var se *specialFileError
	if !errors.As(err, &se) {
		return err
	}
	shown := ""
	if se.path != abs {
		shown = se.path
	}
	return &notRegularError{op: op, path: display, resolved: shown, kind: se.kind}
}
