package tools

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// rawFile is an open handle of [openRegularFD].
type rawFile = windows.Handle

// closeRaw closes a [rawFile].
func closeRaw(h rawFile) error { return windows.CloseHandle(h) }

// readRaw reads from a [rawFile]; the end of the file is (0, nil), as read(2) says it.
func readRaw(h rawFile, b []byte) (int, error) {
	var n uint32
	err := windows.ReadFile(h, b, &n, nil)
	if errors.Is(err, windows.ERROR_HANDLE_EOF) || errors.Is(err, windows.ERROR_BROKEN_PIPE) {
		return int(n), nil
	}
	return int(n), err
}

// isLink reports whether a Lstat result is a reparse point [resolvePath] must follow: a
// symbolic link, or a directory junction (a mount point), which Go reports as an irregular
// directory and which would otherwise lead out of the working directory unnoticed.
func isLink(fi fs.FileInfo) bool {
	m := fi.Mode()
	return m&fs.ModeSymlink != 0 || (m.IsDir() && m&fs.ModeIrregular != 0)
}

// isProcFDPath is false on Windows: it has no file-descriptor links (a console or a pipe
// is refused by [openRegularFD]'s GetFileType).
func isProcFDPath(string) bool { return false }

// openRegularFD opens path for reading and checks on the handle itself that it is a regular
// file on disk (GetFileType, then GetFileInformationByHandle's attributes), so a path swapped
// for a pipe, a console or a directory after an earlier check is still refused. Unless follow,
// a final reparse point (a link or junction that appeared after the path was resolved) is
// opened itself (FILE_FLAG_OPEN_REPARSE_POINT) and refused. Other programs may read, write,
// rename and delete the file while it is open. It returns the handle and the file's size.
func openRegularFD(path string, follow bool) (rawFile, int64, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return windows.InvalidHandle, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	flags := uint32(windows.FILE_FLAG_BACKUP_SEMANTICS) // so a directory opens, to be refused by name
	if !follow {
		flags |= windows.FILE_FLAG_OPEN_REPARSE_POINT
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, flags, 0)
	if err != nil {
		return windows.InvalidHandle, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	kind, size, err := handleKind(h)
	if err != nil {
		_ = windows.CloseHandle(h)
		return windows.InvalidHandle, 0, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if kind != "" {
		_ = windows.CloseHandle(h)
		return windows.InvalidHandle, 0, &specialFileError{path: path, kind: kind}
	}
	return h, size, nil
}

// handleKind names what an open handle is when it is not a regular file ("" when it is) and
// the file's size.
func handleKind(h windows.Handle) (string, int64, error) {
	t, err := windows.GetFileType(h)
	if err != nil {
		return "", 0, err
	}
	switch t {
	case windows.FILE_TYPE_DISK:
	case windows.FILE_TYPE_PIPE:
		return "a named pipe (FIFO)", 0, nil
	case windows.FILE_TYPE_CHAR:
		return "a character device", 0, nil
	default:
		return "a special file", 0, nil
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return "", 0, err
	}
	switch a := info.FileAttributes; {
	case a&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		return "a symbolic link", 0, nil
	case a&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return "a directory", 0, nil
	}
	return "", int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow), nil
}

// openDir opens a directory for listing; anything else is refused (a pipe or device opens
// without blocking on Windows, and is closed again).
func openDir(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		_ = f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}
