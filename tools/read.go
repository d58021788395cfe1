package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/pi-rpc/pi-rpc/core"
)

var readSchema = schema(`{"type":"object","properties":{
"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},
"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},
"limit":{"type":"number","description":"Maximum number of lines to read"}},
"required":["path"]}`)

// ReadDetails is the details of a read result: present only when the text was truncated.
type ReadDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
}

func (e *env) readTool() core.Tool {
	return builtin("read", readSchema, e.runRead,
		fmt.Sprintf("Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "+
			"Images are sent as attachments. For text files, output is truncated to %d lines or %dKB (whichever is hit first). "+
			"Use offset/limit for large files. When you need the full file, continue with offset until complete.", MaxLines, MaxBytes/1024))
}

func (e *env) runRead(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Path   string   `json:"path"`
		Offset *float64 `json:"offset"`
		Limit  *float64 `json:"limit"`
	}
	if err := decodeCall(ctx, call, &in); err != nil {
		return core.ToolResult{}, err
	}
	abs := e.resolve(in.Path)
	r, err := resolvePath(abs)
	if err != nil {
		return core.ToolResult{}, fsError(err, abs)
	}
	if r.info == nil || !r.info.IsDir() { // a directory gets pi's EISDIR below
		if err := refuseSpecial("read", in.Path, abs, r); err != nil {
			return core.ToolResult{}, err
		}
	}
	if e.opts.Access.Reader != nil {
		return e.readThrough(ctx, call.ID, in.Path, abs, r, in.Offset, in.Limit)
	}
	data, release, err := readRegular(r.path, false)
	if err != nil {
		return core.ToolResult{}, readError(err, in.Path, abs)
	}
	defer release()
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	if mime := sniffImage(data); mime != "" {
		return e.readImage(data, mime)
	}
	head := data
	if len(head) > binarySniffBytes {
		head = head[:binarySniffBytes]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return core.ToolResult{}, fmt.Errorf("Cannot read binary file: %s", in.Path)
	}
	return readText(string(data), in.Path, in.Offset, in.Limit)
}

// binarySniffBytes is how much of a file is searched for a NUL byte to call it binary.
const binarySniffBytes = 8000

// readThrough is read with an [Access.Reader]: the text comes from the client (an editor's
// buffer, saved or not), paged and truncated as a file's would be. A file that exists on
// disk is first judged there: an image is read from disk (editors serve text only) and a
// binary file is refused as it would be without a client. A path missing on disk is still
// asked for: the editor may hold an unsaved buffer for it.
func (e *env) readThrough(ctx context.Context, callID, display, abs string, r resolved, offset, limit *float64) (core.ToolResult, error) {
	if r.info != nil {
		if r.info.IsDir() {
			return core.ToolResult{}, errors.New("EISDIR: illegal operation on a directory, read")
		}
		head, err := readHead(r.path, binarySniffBytes)
		if err != nil {
			return core.ToolResult{}, readError(err, display, abs)
		}
		if mime := sniffImage(head); mime != "" {
			data, release, err := readRegular(r.path, false)
			if err != nil {
				return core.ToolResult{}, readError(err, display, abs)
			}
			defer release()
			if ctx.Err() != nil {
				return core.ToolResult{}, errAborted
			}
			return e.readImage(data, mime)
		}
		if bytes.IndexByte(head, 0) >= 0 {
			return core.ToolResult{}, fmt.Errorf("Cannot read binary file: %s", display)
		}
	}
	text, err := e.opts.Access.Reader.ReadText(ctx, TextFile{ToolCallID: callID, Path: abs})
	if err != nil {
		return core.ToolResult{}, accessError(ctx, err, "Could not read %s: the editor answered", display)
	}
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	return readText(text, display, offset, limit)
}

// readHead reads at most n bytes from the start of the regular file at path (resolved: a
// final symlink is refused), with the descriptor checks of [readRegular].
func readHead(path string, n int) ([]byte, error) {
	fd, _, err := openRegularFD(path, false)
	if err != nil {
		return nil, err
	}
	defer func() { _ = closeRaw(fd) }()
	buf := make([]byte, n)
	got := 0
	for got < n {
		m, rerr := readRaw(fd, buf[got:])
		if errors.Is(rerr, syscall.EINTR) {
			continue
		}
		if rerr != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: rerr}
		}
		if m == 0 {
			break
		}
		got += m
	}
	return buf[:got], nil
}

// readText slices and truncates a text file exactly as pi's read tool does, including its
// continuation hints, so a model that learnt pi's protocol pages through files the same way.
func readText(text, path string, offset, limit *float64) (core.ToolResult, error) {
	all := strings.Split(text, "\n")
	start := 0
	if offset != nil && *offset > 0 {
		start = max(0, int(*offset)-1)
	}
	if start >= len(all) {
		return core.ToolResult{}, fmt.Errorf("Offset %s is beyond end of file (%d lines total)", jsNumber(*offset), len(all))
	}
	var selected string
	userLimited := -1
	if limit != nil {
		end := min(start+max(int(*limit), 0), len(all))
		selected = strings.Join(all[start:end], "\n")
		userLimited = end - start
	} else {
		selected = strings.Join(all[start:], "\n")
	}
	t := truncateHead(selected, MaxLines, MaxBytes)
	startDisplay := start + 1
	var out string
	var details any
	switch {
	case t.FirstLineExceedsLimit:
		out = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			startDisplay, formatSize(len(all[start])), formatSize(MaxBytes), startDisplay, path, MaxBytes)
		details = ReadDetails{Truncation: &t}
	case t.Truncated:
		end := startDisplay + t.OutputLines - 1
		out = t.Content
		if *t.TruncatedBy == "lines" {
			out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", startDisplay, end, len(all), end+1)
		} else {
			out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]", startDisplay, end, len(all), formatSize(MaxBytes), end+1)
		}
		details = ReadDetails{Truncation: &t}
	case userLimited >= 0 && start+userLimited < len(all):
		remaining := len(all) - (start + userLimited)
		out = fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", t.Content, remaining, start+userLimited+1)
	default:
		out = t.Content
	}
	return core.ToolResult{Content: []core.Content{core.TextBlock(out)}, Details: details}, nil
}

// jsNumber prints a number as JavaScript would in a template string (no trailing ".0").
func jsNumber(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

// fsError words a file-system error like Node's, which is what pi's messages carry
// ("ENOENT: no such file or directory, open '<path>'"), so models recognise it.
func fsError(err error, path string) error {
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("ENOENT: no such file or directory, open '%s'", path)
	case os.IsPermission(err):
		return fmt.Errorf("EACCES: permission denied, open '%s'", path)
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("EISDIR: illegal operation on a directory, read")
	}
	return err
}

// readError words a failed open or read of a resolved path: a directory gets pi's EISDIR
// message, a descriptor found not to be a regular file (the path changed after it was
// resolved) is refused like any special file, the rest gets Node's wording.
func readError(err error, display, abs string) error {
	var se *specialFileError
	if errors.As(err, &se) {
		if se.kind == "a directory" {
			return errors.New("EISDIR: illegal operation on a directory, read")
		}
		return wordSpecial(err, "read", display, abs)
	}
	return fsError(err, abs)
}
