// Package fsmode names the kind of a file for the errors that refuse anything but a regular
// file: the file tools (a path the model names) and the session store (a session path a
// client names) say it in the same words.
package fsmode

import "io/fs"

// Kind names a file mode: "a regular file", "a directory", "a named pipe (FIFO)", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
