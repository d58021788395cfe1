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
	todo := splitPath(abs)
	via := make([]string, len(todo)) // the link whose target contributed each component
	cur := string(filepath.Separator)
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
		if fi.Mode()&fs.ModeSymlink != 0 {
			hops++
			if hops > maxLinkHops {
				return resolved{}, &fs.PathError{Op: "open", Path: abs, Err: syscall.ELOOP}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return resolved{}, err
			}
			if filepath.IsAbs(target) {
				cur = string(filepath.Separator)
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

// isProcFDPath reports whether p (real, absolute) is an entry of a process's file-descriptor
// directory: /proc/<pid|self|thread-self>/fd/N, /proc/<pid>/task/<tid>/fd/N or /dev/fd/N.
// Opening one reopens whatever that descriptor is, which for pi-rpc's fds 0 and 1 are the
// protocol pipes.
func isProcFDPath(p string) bool {
	parts := splitPath(p)
	// parts[0] is "" (the root).
	switch {
	case len(parts) == 4 && parts[1] == "dev" && parts[2] == "fd":
		return true
	case len(parts) == 5 && parts[1] == "proc" && parts[3] == "fd":
		return true
	case len(parts) == 7 && parts[1] == "proc" && parts[3] == "task" && parts[5] == "fd":
		return true
	}
	return false
}

// kindOf names a file mode for error messages: "a named pipe (FIFO)", "a directory", ...
func kindOf(m fs.FileMode) string { return fsmode.Kind(m) }

// kindOfStat is kindOf for a raw stat mode (from fstat on an open descriptor).
func kindOfStat(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return "a regular file"
	case syscall.S_IFDIR:
		return "a directory"
	case syscall.S_IFIFO:
		return "a named pipe (FIFO)"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	case syscall.S_IFLNK:
		return "a symbolic link"
	}
	return "a special file"
}

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

// openFlags opens a file for reading without the side effects of a special file: O_NONBLOCK
// keeps a FIFO from blocking the open (the fstat that follows refuses it), O_NOCTTY keeps a
// terminal from becoming the controlling one, O_NOFOLLOW (unless follow) refuses a final
// symlink that appeared after the path was resolved.
func openFlags(follow bool) int {
	f := syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if !follow {
		f |= syscall.O_NOFOLLOW
	}
	return f
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

// openRegularFD opens path for reading and checks on the descriptor itself that it is a
// regular file, so a path swapped for a FIFO or device after an earlier check is still
// refused, and a FIFO never blocks. It returns the descriptor and the file's size.
func openRegularFD(path string, follow bool) (int, int64, error) {
	for {
		fd, err := syscall.Open(path, openFlags(follow), 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, 0, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		var st syscall.Stat_t
		for {
			err = syscall.Fstat(fd, &st)
			if err != syscall.EINTR {
				break
			}
		}
		if err != nil {
			_ = syscall.Close(fd)
			return -1, 0, &fs.PathError{Op: "fstat", Path: path, Err: err}
		}
		if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG { //nolint:unconvert // Mode is uint16 on darwin.
			_ = syscall.Close(fd)
			return -1, 0, &specialFileError{path: path, kind: kindOfStat(uint32(st.Mode))} //nolint:unconvert // as above.
		}
		return fd, st.Size, nil
	}
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

// openDir opens a directory for listing; O_DIRECTORY makes the open fail at once on
// anything else, where a plain open of a FIFO would block.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
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
