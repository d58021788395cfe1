//go:build !windows

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// rawFile is an open descriptor of [openRegularFD].
type rawFile = int

// closeRaw and readRaw are close(2) and read(2) on a [rawFile].
func closeRaw(fd rawFile) error                 { return syscall.Close(fd) }
func readRaw(fd rawFile, b []byte) (int, error) { return syscall.Read(fd, b) }

// isLink reports whether a Lstat result is a symbolic link [resolvePath] follows.
func isLink(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }

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

// openDir opens a directory for listing; O_DIRECTORY makes the open fail at once on
// anything else, where a plain open of a FIFO would block.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}
