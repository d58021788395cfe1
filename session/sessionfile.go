package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/pi-rpc/pi-rpc/internal/fsmode"
)

// Session paths come from clients (createSession's sessionFile, openSession, ACP's
// session/load, pi mode's switch_session, --session), so any path may arrive, and the rule of
// docs/sessions.md ("Which files pi-rpc writes") holds for all of them: pi-rpc writes only to a
// file that does not exist yet, to an empty regular file, or to a regular file that is already a
// pi session (its first line a session header). Anything else is refused before anything else
// happens: no lock sidecar is made, nothing is read past the first line, and the file keeps
// its bytes, mode and owner. Paths are opened the way the file tools open them (no blocking
// open, regular files only), so a FIFO, a device or /proc/self/fd/0 can neither stall the
// connection nor feed it endless bytes.

// NotSessionFileError refuses a path that pi-rpc must not use as a session file.
type NotSessionFileError struct {
	File string
	// Reason says what the path is: "it is a directory", "its first line is not a session
	// header", ...
	Reason string
}

func (e *NotSessionFileError) Error() string {
	return fmt.Sprintf("%s is not a pi session file: %s. pi-rpc uses only a new file, an empty file or an existing session file as a session file; the file was left as it was", e.File, e.Reason)
}

// IsNotSessionFile reports whether err refuses a path as a session file.
func IsNotSessionFile(err error) bool {
	var ne *NotSessionFileError
	return errors.As(err, &ne)
}

// headerProbeSize bounds how much of a file is read to find its first line: a header is a
// few hundred bytes (a cwd is at most a few KB).
const headerProbeSize = 64 << 10

// CheckSessionPath says whether path may be used as a session file: nil when it does not exist,
// is an empty regular file, or is a regular file whose first line is a session header; a
// *NotSessionFileError otherwise (or the error that stopped the check, such as permission
// denied). It follows symlinks: a link to a session file is that session file.
func CheckSessionPath(path string) error {
	f, err := openSessionFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, headerProbeSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return checkHead(path, buf[:n], n == len(buf))
}

// checkHead is the header rule on the start of a file's content: empty, or a first line that
// is a session header. truncated says more content follows head.
func checkHead(path string, head []byte, truncated bool) error {
	if len(head) == 0 {
		return nil
	}
	first := bytes.TrimLeft(head, " \t\r\n")
	line, _, found := bytes.Cut(first, []byte("\n"))
	if !found && truncated {
		return &NotSessionFileError{File: path, Reason: fmt.Sprintf("its first line is longer than %d KB, so it is not a session header", headerProbeSize>>10)}
	}
	if _, ok := parseHeader(bytes.TrimRight(line, "\r")); !ok {
		return &NotSessionFileError{File: path, Reason: "its first line is not a session header"}
	}
	return nil
}

// openSessionFile opens path for reading without the side effects of a special file
// (O_NONBLOCK: a FIFO's open does not wait for a writer; O_NOCTTY: a terminal does not become
// ours) and checks on the descriptor that it is a regular file. A stat before the open refuses
// what it can without opening it at all (a device's open may act on the device).
func openSessionFile(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotSessionFileError{File: path, Reason: "it is " + fsmode.Kind(fi.Mode()) + ", not a regular file"}
	}
	return openRegular(path, os.O_RDONLY, 0)
}

// openRegular opens path with flags, without blocking (O_NONBLOCK: a FIFO's open does not wait
// for its other end) or taking a terminal (O_NOCTTY), and refuses on the descriptor anything
// but a regular file (one swapped in after a check).
func openRegular(path string, flags int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flags|syscall.O_NONBLOCK|syscall.O_NOCTTY, perm)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(f, path); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular refuses an open file that is not a regular file (one swapped in after a check).
func checkRegular(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotSessionFileError{File: path, Reason: "it is " + fsmode.Kind(fi.Mode()) + ", not a regular file"}
	}
	return nil
}

// readSessionFile reads a whole session file through [openSessionFile]: a missing file is
// fs.ErrNotExist, anything but a regular file a *NotSessionFileError.
func readSessionFile(path string) ([]byte, error) {
	f, err := openSessionFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllSized(f)
}

// readAllSized reads f to its end into one buffer of the file's size (as os.ReadFile does),
// growing it only if the file grew since its stat. io.ReadAll would start at 512 bytes and
// grow by a quarter at a time: a 60 MB session would allocate, zero and copy several times its
// size, and that was most of a 100,000-entry open (docs/benchmarks.md).
func readAllSized(f *os.File) ([]byte, error) {
	size := 0
	if fi, err := f.Stat(); err == nil && int64(int(fi.Size())) == fi.Size() {
		size = int(fi.Size())
	}
	// One byte more than the size, so that the read at the end sees EOF without growing.
	data := make([]byte, 0, size+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// openAppend is the default [FileOptions.OpenAppend]: the session file opened for appending
// (created if missing), without blocking on a FIFO and refusing anything but a regular file.
func openAppend(path string) (AppendFile, error) {
	f, err := openRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil AppendFile
	}
	return f, nil
}

// checkStillNew is the check before a new session's first write: the path must still be
// missing or an empty regular file (another program may have made a file there since the
// session was created).
func checkStillNew(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotSessionFileError{File: path, Reason: "it is " + fsmode.Kind(fi.Mode()) + ", not a regular file"}
	}
	if fi.Size() > 0 {
		return &NotSessionFileError{File: path, Reason: "another program wrote it after the session was created"}
	}
	return nil
}
