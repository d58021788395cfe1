package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// fakeEditor is a client's buffers: what it holds by absolute path, and every read and
// write it was asked for.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []TextFile
	writes  []TextFile
	fail    error
}

func (f *fakeEditor) ReadText(_ context.Context, tf TextFile) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, tf)
	if f.fail != nil {
		return "", f.fail
	}
	text, ok := f.buffers[tf.Path]
	if !ok {
		return "", errors.New("Resource not found: " + tf.Path)
	}
	return text, nil
}

func (f *fakeEditor) WriteText(_ context.Context, tf TextFile, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, tf)
	if f.fail != nil {
		return f.fail
	}
	f.buffers[tf.Path] = content
	return nil
}

func editorTool(t *testing.T, name, cwd string, ed *fakeEditor, read, write bool) core.Tool {
	t.Helper()
	var a Access
	if read {
		a.Reader = ed
	}
	if write {
		a.Writer = ed
	}
	return toolFor(t, name, Options{Cwd: cwd, Access: a})
}

func TestReadThroughEditorSeesTheBuffer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "on disk\n"})
	abs := filepath.Join(dir, "a.txt")
	ed := &fakeEditor{buffers: map[string]string{abs: "one\nunsaved two\nthree", filepath.Join(dir, "new.txt"): "only in the editor"}}
	read := editorTool(t, "read", dir, ed, true, false)

	got, _, err := run(t, read, map[string]any{"path": "a.txt", "offset": 2.0, "limit": 1.0})
	if err != nil || got != "unsaved two\n\n[1 more lines in file. Use offset=3 to continue.]" {
		t.Fatalf("read = %q, %v", got, err)
	}
	if len(ed.reads) != 1 || ed.reads[0] != (TextFile{ToolCallID: "1", Path: abs}) {
		t.Fatalf("reads = %+v", ed.reads)
	}
	// A path missing on disk is still asked for: an unsaved buffer.
	if got, _, err := run(t, read, map[string]any{"path": "new.txt"}); err != nil || got != "only in the editor" {
		t.Fatalf("read new = %q, %v", got, err)
	}
	// The editor's error is the tool's.
	_, _, err = run(t, read, map[string]any{"path": "gone.txt"})
	if err == nil || err.Error() != "Could not read gone.txt: the editor answered: Resource not found: "+filepath.Join(dir, "gone.txt") {
		t.Fatalf("read gone = %v", err)
	}
	// Paging a buffer reports offsets past its end as for a file.
	if _, _, err := run(t, read, map[string]any{"path": "a.txt", "offset": 9.0}); err == nil || err.Error() != "Offset 9 is beyond end of file (3 lines total)" {
		t.Fatalf("offset past end = %v", err)
	}
}

func TestReadThroughEditorJudgesDiskFilesFirst(t *testing.T) {
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 16)
	writeFiles(t, dir, map[string]string{"img.txt": png, "bin.dat": "ab\x00cd", "sub/x": ""})
	testkit.Mkfifo(t, filepath.Join(dir, "fifo"), 0o644)
	ed := &fakeEditor{buffers: map[string]string{}}
	read := editorTool(t, "read", dir, ed, true, true)

	res, err := read.Execute(context.Background(), core.ToolCall{ID: "1", Name: "read", Args: map[string]any{"path": "img.txt"}}, nil)
	if err != nil || len(res.Content) != 2 || res.Content[1].Type != core.ContentImage || res.Content[1].MimeType != "image/png" {
		t.Fatalf("image = %+v, %v", res, err)
	}
	if _, _, err := run(t, read, map[string]any{"path": "bin.dat"}); err == nil || err.Error() != "Cannot read binary file: bin.dat" {
		t.Fatalf("binary = %v", err)
	}
	if _, _, err := run(t, read, map[string]any{"path": "fifo"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo = %v", err)
	}
	if _, _, err := run(t, read, map[string]any{"path": "sub"}); err == nil || !strings.Contains(err.Error(), "EISDIR") {
		t.Fatalf("dir = %v", err)
	}
	if len(ed.reads) != 0 {
		t.Fatalf("the editor was asked for %+v", ed.reads)
	}
}

func TestWriteThroughEditorLeavesTheDisk(t *testing.T) {
	dir := t.TempDir()
	ed := &fakeEditor{buffers: map[string]string{}}
	write := editorTool(t, "write", dir, ed, false, true)

	got, _, err := run(t, write, map[string]any{"path": "new/b.txt", "content": "héllo"})
	if err != nil || got != "Successfully wrote 5 bytes to new/b.txt" {
		t.Fatalf("write = %q, %v", got, err)
	}
	abs := filepath.Join(dir, "new", "b.txt")
	if ed.buffers[abs] != "héllo" || len(ed.writes) != 1 || ed.writes[0].ToolCallID != "1" {
		t.Fatalf("editor = %+v", ed)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Fatalf("the disk changed: %v", err)
	}
	// Confinement holds before the editor is asked.
	if _, _, err := run(t, write, map[string]any{"path": "/etc/x", "content": "x"}); err == nil || !strings.Contains(err.Error(), "Refusing to write outside the working directory") {
		t.Fatalf("outside = %v", err)
	}
	ed.fail = errors.New("read-only buffer")
	if _, _, err := run(t, write, map[string]any{"path": "c.txt", "content": "x"}); err == nil || err.Error() != "Could not write c.txt: the editor answered: read-only buffer" {
		t.Fatalf("failed write = %v", err)
	}
	if len(ed.writes) != 2 {
		t.Fatalf("writes = %+v", ed.writes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := runCtx(ctx, t, write, map[string]any{"path": "d.txt", "content": "x"}, nil); err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("aborted write = %v", err)
	}
}

func TestEditThroughEditorEditsTheBuffer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "saved line\n"})
	abs := filepath.Join(dir, "a.txt")
	ed := &fakeEditor{buffers: map[string]string{abs: "\uFEFFunsaved line\r\nmore\r\n", filepath.Join(dir, "n.txt"): "x = 1\n"}}
	edit := editorTool(t, "edit", dir, ed, true, true)

	got, details, err := run(t, edit, map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "unsaved", "newText": "edited"}}})
	if err != nil || got != "Successfully replaced 1 block(s) in a.txt." {
		t.Fatalf("edit = %q, %v", got, err)
	}
	if ed.buffers[abs] != "\uFEFFedited line\r\nmore\r\n" || readFile(t, abs) != "saved line\n" {
		t.Fatalf("buffer %q, disk %q", ed.buffers[abs], readFile(t, abs))
	}
	if d, ok := details.(EditDetails); !ok || d.FirstChangedLine != 1 || !strings.Contains(d.Diff, "+1 edited line") {
		t.Fatalf("details = %+v", details)
	}
	// A buffer with no file on disk yet is edited too.
	if _, _, err := run(t, edit, map[string]any{"path": "n.txt", "edits": []any{map[string]any{"oldText": "1", "newText": "2"}}}); err != nil || ed.buffers[filepath.Join(dir, "n.txt")] != "x = 2\n" {
		t.Fatalf("edit unsaved new file: %v, %q", err, ed.buffers[filepath.Join(dir, "n.txt")])
	}
	// The text not found in the buffer is pi's error about the buffer's text.
	_, _, err = run(t, edit, map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "saved line", "newText": "z"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "Could not find the exact text in a.txt.") {
		t.Fatalf("edit of disk text = %v", err)
	}
	ed.fail = errors.New("no buffer")
	if _, _, err := run(t, edit, map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}); err == nil || err.Error() != "Could not edit file: a.txt. The editor answered: no buffer" {
		t.Fatalf("failed edit = %v", err)
	}
	if n := len(ed.writes); n != 2 {
		t.Fatalf("writes = %d", n)
	}
}

// Edit reads and writes one place: with only a reader (or only a writer) it keeps the disk.
func TestEditWithOneSidedEditorUsesTheDisk(t *testing.T) {
	for _, side := range []string{"reader", "writer"} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.txt": "disk\n"})
		ed := &fakeEditor{buffers: map[string]string{filepath.Join(dir, "a.txt"): "buffer\n"}}
		edit := editorTool(t, "edit", dir, ed, side == "reader", side == "writer")
		if _, _, err := run(t, edit, map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "disk", "newText": "DISK"}}}); err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		if readFile(t, filepath.Join(dir, "a.txt")) != "DISK\n" || len(ed.reads)+len(ed.writes) != 0 {
			t.Fatalf("%s: disk %q, editor %+v", side, readFile(t, filepath.Join(dir, "a.txt")), ed)
		}
	}
}

func TestPreviewChangeFromReader(t *testing.T) {
	dir := t.TempDir()
	var asked string
	read := func(abs string) (string, bool, bool) { asked = abs; return "a\nb\n", true, true }
	p, ok := PreviewChangeFrom(dir, "edit", map[string]any{"path": "x.go", "edits": []any{map[string]any{"oldText": "b", "newText": "c"}}}, read)
	if !ok || asked != filepath.Join(dir, "x.go") || p != (Preview{Path: asked, OldText: "a\nb\n", NewText: "a\nc\n", Exists: true}) {
		t.Fatalf("preview = %+v, %v (asked %q)", p, ok, asked)
	}
	missing := func(string) (string, bool, bool) { return "", false, true }
	if p, ok := PreviewChangeFrom(dir, "write", map[string]any{"path": "y", "content": "z"}, missing); !ok || p.Exists || p.NewText != "z" {
		t.Fatalf("write preview = %+v, %v", p, ok)
	}
	if _, ok := PreviewChangeFrom(dir, "edit", map[string]any{"path": "y", "edits": []any{map[string]any{"oldText": "b", "newText": "c"}}}, missing); ok {
		t.Fatal("an edit of a missing file has a preview")
	}
}

// fakeRunner is a terminal: it answers every command with out and records what it ran.
type fakeRunner struct {
	got []Command
	out CommandOutput
	err error
}

func (f *fakeRunner) RunCommand(_ context.Context, c Command) (CommandOutput, error) {
	f.got = append(f.got, c)
	return f.out, f.err
}

func intp(i int) *int { return &i }

func TestBashThroughRunner(t *testing.T) {
	dir := t.TempDir()
	r := &fakeRunner{out: CommandOutput{Output: "\x1b[31mred\x1b[0m\r\nok\n", ExitCode: intp(0)}}
	bash := toolFor(t, "bash", Options{Cwd: dir, Shell: "/bin/sh", CommandPrefix: "set -e", Env: []string{"A=1"}, Access: Access{Commands: r}})

	var updates int
	got, _, err := runCtx(context.Background(), t, bash, map[string]any{"command": "echo hi", "timeout": 2.5}, func(core.ToolResult) { updates++ })
	if err != nil || got != "red\nok\n" {
		t.Fatalf("bash = %q, %v", got, err)
	}
	c := r.got[0]
	if c.ToolCallID != "1" || c.Shell != "/bin/sh" || strings.Join(c.Args, "|") != "-c|set -e\necho hi" || c.Dir != dir ||
		strings.Join(c.Env, ",") != "A=1" || c.Timeout.Seconds() != 2.5 || c.OutputLimit != CommandOutputLimit || c.Clock == nil {
		t.Fatalf("command = %+v", c)
	}
	if updates != 1 {
		t.Fatalf("updates = %d", updates)
	}

	r.out = CommandOutput{Output: "boom\n", ExitCode: intp(3)}
	if _, _, err := run(t, bash, map[string]any{"command": "x"}); err == nil || err.Error() != "boom\n\n\nCommand exited with code 3" {
		t.Fatalf("exit 3 = %q", err)
	}
	r.out = CommandOutput{Output: "part", Cancelled: true}
	if _, _, err := run(t, bash, map[string]any{"command": "x"}); err == nil || err.Error() != "part\n\nCommand aborted" {
		t.Fatalf("cancelled = %q", err)
	}
	r.out = CommandOutput{TimedOut: true}
	if _, _, err := run(t, bash, map[string]any{"command": "x", "timeout": 1.0}); err == nil || err.Error() != "Command timed out after 1 seconds" {
		t.Fatalf("timed out = %q", err)
	}
	r.out, r.err = CommandOutput{}, errors.New("the editor cannot open terminals")
	if _, _, err := run(t, bash, map[string]any{"command": "x"}); err == nil || err.Error() != "the editor cannot open terminals" {
		t.Fatalf("create failed = %v", err)
	}
}

// What the runner kept is truncated like a local run's output, with its full-output file;
// output the runner dropped is said to be missing.
func TestBashThroughRunnerTruncates(t *testing.T) {
	dir := t.TempDir()
	lines := numberedLines(1, 2500) + "\n"
	r := &fakeRunner{out: CommandOutput{Output: lines, ExitCode: intp(0)}}
	bash := toolFor(t, "bash", Options{Cwd: dir, TempDir: dir, Access: Access{Commands: r}})

	got, details, err := run(t, bash, map[string]any{"command": "x"})
	d, _ := details.(*BashDetails)
	if err != nil || d == nil || d.Truncation == nil || d.Truncation.TotalLines != 2500 || !strings.HasPrefix(got, "Line 501\n") ||
		!strings.HasSuffix(got, "[Showing lines 501-2500 of 2500. Full output: "+d.FullOutputPath+"]") {
		t.Fatalf("bash = %q, %+v, %v", got[max(0, len(got)-200):], d, err)
	}
	if readFile(t, d.FullOutputPath) != lines {
		t.Fatal("the full-output file is not the whole output")
	}

	r.out = CommandOutput{Output: "tail\n", ExitCode: intp(0), Truncated: true}
	if got, _, err := run(t, bash, map[string]any{"command": "x"}); err != nil || got != "tail\n\n\n"+droppedNotice {
		t.Fatalf("dropped = %q, %v", got, err)
	}
}
