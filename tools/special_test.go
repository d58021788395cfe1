//go:build linux

package tools

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// The special-file tests are Linux-only: they name /proc/self/fd links and make a character
// device with mknod.

const (
	pipeMarker = "PIPE-MARKER\n"
	fifoMarker = "FIFO-MARKER\n"
)

// specialFixture is a working directory holding every kind of file a tool may meet, and a
// pipe standing for pi-rpc's protocol pipes (/proc/self/fd/<pipeR>, /proc/self/fd/<pipeW>).
// The pipe and the FIFO hold a marker; a tool that reads either consumes it.
type specialFixture struct {
	dir          string
	pipeR, pipeW int
	fifoFD       int    // the FIFO held open read-write: a writer exists, so an open never blocks on it
	chardev      string // a character device that may be clobbered: made with mknod in dir when possible
	links        map[string]string
}

func newSpecialFixture(t *testing.T) *specialFixture {
	t.Helper()
	// A short directory: a unix socket's path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "pisf-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	fx := &specialFixture{dir: dir, links: map[string]string{}}
	writeFiles(t, dir, map[string]string{"regular.txt": "hello MARKER\n", "sub/inner.txt": "inner MARKER\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.fifoFD, err = syscall.Open(filepath.Join(dir, "fifo"), syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	fx.pipeR, fx.pipeW = p[0], p[1]
	if err := syscall.SetNonblock(fx.pipeR, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ln.Close()
		_ = syscall.Close(fx.fifoFD)
		_ = syscall.Close(fx.pipeR)
		_ = syscall.Close(fx.pipeW)
	})
	fx.fill(t)
	fx.chardev = filepath.Join(dir, "chardev")
	if err := syscall.Mknod(fx.chardev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // 1,3: like /dev/null
		// Without CAP_MKNOD use /dev/null itself, but only where a broken write could not
		// replace it (/dev not writable).
		if syscall.Access("/dev", 2 /* W_OK */) == nil {
			t.Fatalf("cannot mknod a test device (%v) and /dev is writable: refusing to aim writes at /dev/null", err)
		}
		fx.chardev = "/dev/null"
	}
	for name, target := range map[string]string{
		"link-null":     "/dev/null",
		"link-chardev":  fx.chardev,
		"link-stdin":    "/dev/stdin",
		"link-stdout":   "/dev/stdout",
		"link-procfd-r": "/proc/self/fd/" + strconv.Itoa(fx.pipeR),
		"link-procfd-w": "/proc/self/fd/" + strconv.Itoa(fx.pipeW),
		"link-fifo":     "fifo",
		"link-sock":     "sock",
		"dangling":      "missing.txt",
		"dangling-dir":  "missing-dir/file.txt",
		"link-dir":      "sub",
		"link-regular":  "regular.txt",
		"link-link":     "link-regular",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		fx.links[name] = target
	}
	return fx
}

// fill puts the markers into the pipe and the FIFO.
func (fx *specialFixture) fill(t *testing.T) {
	t.Helper()
	if _, err := syscall.Write(fx.pipeW, []byte(pipeMarker)); err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.Write(fx.fifoFD, []byte(fifoMarker)); err != nil {
		t.Fatal(err)
	}
}

// unblock closes the pipe's and the FIFO's writers, so a tool blocked reading them sees EOF.
func (fx *specialFixture) unblock() {
	_ = syscall.Close(fx.pipeW)
	_ = syscall.Close(fx.fifoFD)
}

// heal undoes unblock for the cases that follow: a new pipe and FIFO descriptor at the same
// numbers (so the /proc/self/fd links still name them), with fresh markers.
func (fx *specialFixture) heal(t *testing.T) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(filepath.Join(fx.dir, "fifo"), syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Move the new descriptors above every target number first: they may have been given the
	// very numbers unblock freed.
	fresh := []int{p[0], p[1], fd}
	for i, f := range fresh {
		moved, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(f), syscall.F_DUPFD_CLOEXEC, 1000)
		if errno != 0 {
			t.Fatal(errno)
		}
		fresh[i] = int(moved)
	}
	for _, f := range []int{p[0], p[1], fd} {
		_ = syscall.Close(f)
	}
	for i, target := range []int{fx.pipeR, fx.pipeW, fx.fifoFD} {
		if err := syscall.Dup3(fresh[i], target, syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		_ = syscall.Close(fresh[i])
	}
	if err := syscall.SetNonblock(fx.pipeR, true); err != nil {
		t.Fatal(err)
	}
	fx.fill(t)
}

// check fails the test if a tool consumed the markers, replaced a link or special file, or
// left anything new in the directory; then it refills the markers.
func (fx *specialFixture) check(t *testing.T, before []string) {
	t.Helper()
	buf := make([]byte, 64)
	if n, err := syscall.Read(fx.pipeR, buf); err != nil || string(buf[:n]) != pipeMarker {
		t.Errorf("pipe data consumed by the tool: read %q, %v", buf[:max(n, 0)], err)
	}
	if n, err := syscall.Read(fx.fifoFD, buf); err != nil || string(buf[:n]) != fifoMarker {
		t.Errorf("FIFO data consumed by the tool: read %q, %v", buf[:max(n, 0)], err)
	}
	for name, target := range fx.links {
		got, err := os.Readlink(filepath.Join(fx.dir, name))
		if err != nil || got != target {
			t.Errorf("link %s replaced: readlink = %q, %v", name, got, err)
		}
	}
	for name, mode := range map[string]fs.FileMode{"fifo": fs.ModeNamedPipe, "sock": fs.ModeSocket, "sub": fs.ModeDir} {
		if st, err := os.Lstat(filepath.Join(fx.dir, name)); err != nil || st.Mode().Type() != mode {
			t.Errorf("%s replaced: %v, %v", name, st, err)
		}
	}
	if st, err := os.Lstat(fx.chardev); err != nil || st.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
		t.Errorf("%s replaced: %v, %v", fx.chardev, st, err)
	}
	if after := listTree(t, fx.dir); !slices.Equal(before, after) {
		t.Errorf("directory changed:\nbefore %v\nafter  %v", before, after)
	}
	writeFiles(t, fx.dir, map[string]string{"regular.txt": "hello MARKER\n"})
	fx.fill(t)
}

// listTree lists every path under dir (not following links).
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+d.Type().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hangGuard only turns a tool blocked on a pipe (the bug) into a failure instead of a hung
// suite; it never decides a passing result.
const hangGuard = 30 * time.Second

// callUnblocked runs a tool call; if it has not returned within hangGuard it is blocked
// reading a pipe or FIFO, so the writers are closed to let it finish, and the test fails.
func (fx *specialFixture) callUnblocked(t *testing.T, tool core.Tool, args map[string]any) (string, error) {
	t.Helper()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, _, err := runCtx(context.Background(), t, tool, args, nil)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-time.After(hangGuard):
	}
	fx.unblock()
	select {
	case r := <-done:
		fx.heal(t)
		t.Fatalf("%s %v blocked reading a pipe or FIFO; after its writers closed it returned %q, %v", tool.Info().Name, args, clip(r.text), r.err)
	case <-time.After(hangGuard):
		fx.heal(t)
		t.Fatalf("%s %v blocked reading a pipe or FIFO (still blocked)", tool.Info().Name, args)
	}
	return "", nil
}

// specialCase is one path given to a tool and what must come of it: an error containing
// wantErr, or (wantErr empty) a result containing want.
type specialCase struct {
	path    string
	wantErr string
	want    string
}

const (
	errChar   = "is a character device, not a regular file"
	errFIFO   = "is a named pipe (FIFO), not a regular file"
	errSocket = "is a socket, not a regular file"
	errProcFD = "which is a link to a process's open file descriptor"
)

func TestSpecialFilesRead(t *testing.T) {
	fx := newSpecialFixture(t)
	r := strconv.Itoa(fx.pipeR)
	w := strconv.Itoa(fx.pipeW)
	cases := []specialCase{
		{path: "/dev/null", wantErr: "Cannot read /dev/null: it " + errChar},
		{path: "/dev/stdin", wantErr: errProcFD},
		{path: "/dev/stdout", wantErr: errProcFD},
		{path: "/proc/self/fd/" + r, wantErr: errProcFD},
		{path: "/proc/self/fd/" + w, wantErr: errProcFD},
		{path: "/proc/thread-self/fd/" + r, wantErr: errProcFD},
		{path: "/dev/fd/" + r, wantErr: errProcFD},
		{path: "fifo", wantErr: "Cannot read fifo: it " + errFIFO},
		{path: "sock", wantErr: "Cannot read sock: it " + errSocket},
		{path: fx.chardev, wantErr: errChar},
		{path: "link-null", wantErr: "Cannot read link-null: it resolves to /dev/null, which " + errChar},
		{path: "link-chardev", wantErr: errChar},
		{path: "link-stdin", wantErr: errProcFD},
		{path: "link-stdout", wantErr: errProcFD},
		{path: "link-procfd-r", wantErr: errProcFD},
		{path: "link-procfd-w", wantErr: errProcFD},
		{path: "link-fifo", wantErr: "resolves to " + filepath.Join(fx.dir, "fifo") + ", which " + errFIFO},
		{path: "link-sock", wantErr: errSocket},
		{path: "dangling", wantErr: "ENOENT: no such file or directory"},
		{path: "link-dir", wantErr: "EISDIR: illegal operation on a directory"},
		{path: "sub", wantErr: "EISDIR: illegal operation on a directory"},
		// Links to regular files are followed, as pi does.
		{path: "link-regular", want: "hello MARKER"},
		{path: "link-link", want: "hello MARKER"},
	}
	runSpecialCases(t, fx, toolFor(t, "read", Options{Cwd: fx.dir}), func(c specialCase) map[string]any { return map[string]any{"path": c.path} }, cases)
}

func TestSpecialFilesGrep(t *testing.T) {
	fx := newSpecialFixture(t)
	r := strconv.Itoa(fx.pipeR)
	cases := []specialCase{
		{path: "/dev/null", wantErr: "Cannot search /dev/null: it " + errChar},
		{path: "/dev/stdin", wantErr: errProcFD},
		{path: "/proc/self/fd/" + r, wantErr: errProcFD},
		{path: "/dev/fd/" + r, wantErr: errProcFD},
		{path: "fifo", wantErr: "Cannot search fifo: it " + errFIFO},
		{path: "sock", wantErr: errSocket},
		{path: "link-stdin", wantErr: errProcFD},
		{path: "link-procfd-w", wantErr: errProcFD},
		{path: "link-fifo", wantErr: errFIFO},
		{path: "link-sock", wantErr: errSocket},
		{path: "dangling", wantErr: "Path not found"},
		{path: "link-regular", want: "link-regular:1: hello MARKER"},
		{path: "link-dir", want: "inner.txt:1: inner MARKER"},
		// Walking the tree skips every special file and link without opening it.
		{path: ".", want: "regular.txt:1: hello MARKER\nsub/inner.txt:1: inner MARKER"},
	}
	runSpecialCases(t, fx, toolFor(t, "grep", Options{Cwd: fx.dir}), func(c specialCase) map[string]any {
		return map[string]any{"pattern": "MARKER", "path": c.path}
	}, cases)
}

// TestSpecialFilesFindLs guards that listing a tree with every kind of special file in it
// neither opens nor blocks on them, and that a special file is not listed as a directory.
func TestSpecialFilesFindLs(t *testing.T) {
	fx := newSpecialFixture(t)
	runSpecialCases(t, fx, toolFor(t, "find", Options{Cwd: fx.dir}), func(c specialCase) map[string]any {
		return map[string]any{"pattern": "*", "path": c.path}
	}, []specialCase{
		{path: ".", want: "dangling\ndangling-dir\nfifo\nlink-chardev\nlink-dir\nlink-fifo"},
		{path: "fifo", wantErr: "Not a directory"},
		{path: "link-fifo", wantErr: "Not a directory"},
		{path: "link-procfd-r", wantErr: "Not a directory"},
	})
	runSpecialCases(t, fx, toolFor(t, "ls", Options{Cwd: fx.dir}), func(c specialCase) map[string]any { return map[string]any{"path": c.path} }, []specialCase{
		{path: ".", want: "fifo\nlink-chardev\nlink-dir/\nlink-fifo\nlink-link\nlink-null"},
		{path: "fifo", wantErr: "Not a directory"},
		{path: "link-sock", wantErr: "Not a directory"},
		{path: "/dev/stdin", wantErr: "Not a directory"},
	})
}

// TestSpecialFilesWriteEdit aims write and edit at every kind of special file through paths
// inside the fixture only: a broken write replaces what it is aimed at, so neither /dev/null
// nor links to the test's own stdin or stdout (which may be /dev/null or a log file) are
// targets; the fixture's pipe stands for pi-rpc's protocol pipes (/dev/stdout is
// /proc/self/fd/1).
func TestSpecialFilesWriteEdit(t *testing.T) {
	for _, outside := range []bool{false, true} {
		t.Run("allowOutsideCwd="+strconv.FormatBool(outside), func(t *testing.T) {
			fx := newSpecialFixture(t)
			// Without --allow-outside-cwd, links leaving the directory are refused by the
			// confinement; with it, by what they resolve to.
			leaving := func(kind string) string {
				if outside {
					return kind
				}
				return "Refusing to write outside the working directory"
			}
			charErr := errChar
			if fx.chardev == "/dev/null" {
				charErr = leaving(errChar)
			}
			for _, tool := range []string{"write", "edit"} {
				t.Run(tool, func(t *testing.T) {
					cases := []specialCase{
						{path: "fifo", wantErr: "Cannot " + tool + " fifo: it " + errFIFO},
						{path: "link-fifo", wantErr: errFIFO},
						{path: "sock", wantErr: errSocket},
						{path: "link-sock", wantErr: errSocket},
						{path: "link-chardev", wantErr: charErr},
						{path: "link-procfd-r", wantErr: leaving(errProcFD)},
						{path: "link-procfd-w", wantErr: leaving(errProcFD)},
						{path: "link-dir", wantErr: map[string]string{"write": "Cannot write link-dir: it resolves to " + filepath.Join(fx.dir, "sub") + ", which is a directory, not a regular file", "edit": "Error code: EISDIR"}[tool]},
						{path: "sub", wantErr: map[string]string{"write": "Cannot write sub: it is a directory", "edit": "Error code: EISDIR"}[tool]},
						{path: "dangling", wantErr: map[string]string{"write": "Cannot write dangling: " + filepath.Join(fx.dir, "dangling") + " is a symbolic link to " + filepath.Join(fx.dir, "missing.txt") + ", which does not exist", "edit": "Could not edit file: dangling. Error code: ENOENT."}[tool]},
						{path: "dangling-dir", wantErr: map[string]string{"write": "is a symbolic link to " + filepath.Join(fx.dir, "missing-dir/file.txt") + ", which does not exist", "edit": "Error code: ENOENT"}[tool]},
					}
					if fx.chardev != "/dev/null" {
						cases = append(cases, specialCase{path: "chardev", wantErr: "Cannot " + tool + " chardev: it " + errChar})
					}
					runSpecialCases(t, fx, toolFor(t, tool, Options{Cwd: fx.dir, AllowOutsideCwd: outside}), func(c specialCase) map[string]any {
						return map[string]any{"path": c.path, "content": "x", "edits": []any{map[string]any{"oldText": "MARKER", "newText": "x"}}}
					}, cases)
				})
			}
		})
	}
}

// runSpecialCases gives each case's path to tool in turn and checks the fixture after each.
func runSpecialCases(t *testing.T, fx *specialFixture, tool core.Tool, args func(specialCase) map[string]any, cases []specialCase) {
	t.Helper()
	name := tool.Info().Name
	for _, c := range cases {
		t.Run(name+" "+strings.ReplaceAll(c.path, "/", "|"), func(t *testing.T) {
			before := listTree(t, fx.dir)
			text, err := fx.callUnblocked(t, tool, args(c))
			switch {
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("error = %v (text %q), want containing %q", err, clip(text), c.wantErr)
			case c.wantErr == "" && err != nil:
				t.Errorf("error = %v, want a result containing %q", err, c.want)
			case c.wantErr == "" && !strings.Contains(text, c.want):
				t.Errorf("text = %q, want containing %q", clip(text), c.want)
			}
			fx.check(t, before)
		})
	}
}

// TestReadRegularRefusesOnDescriptor covers a path that became special after it was checked:
// the decision is made on the opened descriptor, and a FIFO does not block the open.
func TestReadRegularRefusesOnDescriptor(t *testing.T) {
	fx := newSpecialFixture(t)
	for _, p := range []string{filepath.Join(fx.dir, "fifo"), "/dev/null", fx.chardev, "/proc/self/fd/" + strconv.Itoa(fx.pipeR)} {
		_, _, err := readRegular(p, true)
		var se *specialFileError
		if !errors.As(err, &se) {
			t.Errorf("readRegular(%s) error = %v, want a special-file refusal", p, err)
		}
	}
	// A walk entry listed as a regular file that has become a link is not followed.
	if _, _, err := readRegular(filepath.Join(fx.dir, "link-regular"), false); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("readRegular(link, follow=false) error = %v, want ELOOP", err)
	}
	if _, err := readDirSorted(filepath.Join(fx.dir, "fifo")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("readDirSorted(fifo) error = %v, want ENOTDIR", err)
	}
	before := listTree(t, fx.dir)
	fx.check(t, before)
}

// TestWriteFileAtomicNeverReplacesALink covers a link or special file that appeared at the
// resolved path before the rename: it is refused, not replaced.
func TestWriteFileAtomicNeverReplacesALink(t *testing.T) {
	fx := newSpecialFixture(t)
	before := listTree(t, fx.dir)
	for _, name := range []string{"dangling", "link-regular", "link-procfd-w", "fifo", "sock"} {
		err := writeFileAtomic(context.Background(), filepath.Join(fx.dir, name), []byte("x"))
		var se *specialFileError
		if !errors.As(err, &se) {
			t.Errorf("writeFileAtomic(%s) error = %v, want a refusal", name, err)
		}
	}
	fx.check(t, before)
	if got := readFile(t, filepath.Join(fx.dir, "regular.txt")); got != "hello MARKER\n" {
		t.Errorf("link target written: %q", got)
	}
}

func TestResolvePath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/f.txt": "x"})
	for name, target := range map[string]string{
		"rel":       "a/f.txt",
		"up":        "a/../a/f.txt",
		"abs":       filepath.Join(dir, "a", "f.txt"),
		"chain":     "rel",
		"dirlink":   "a",
		"dangling":  "a/nope.txt",
		"dangle2":   "dangling",
		"loop1":     "loop2",
		"loop2":     "loop1",
		"a/back":    "../a",
		"link-zero": "/dev/zero",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(dir, "a", "f.txt")
	tests := []struct {
		path, want, dangling string
		exists               bool
		err                  error
	}{
		{path: "rel", want: real, exists: true},
		{path: "up", want: real, exists: true},
		{path: "abs", want: real, exists: true},
		{path: "chain", want: real, exists: true},
		{path: "dirlink/f.txt", want: real, exists: true},
		{path: "a/back/back/f.txt", want: real, exists: true},
		{path: "dirlink/new/x.txt", want: filepath.Join(dir, "a", "new", "x.txt")},
		{path: "dangling", want: filepath.Join(dir, "a", "nope.txt"), dangling: filepath.Join(dir, "dangling")},
		{path: "dangle2", want: filepath.Join(dir, "a", "nope.txt"), dangling: filepath.Join(dir, "dangle2")},
		{path: "loop1", err: syscall.ELOOP},
		{path: "a/f.txt/x", err: syscall.ENOTDIR},
	}
	for _, tc := range tests {
		r, err := resolvePath(filepath.Join(dir, tc.path))
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: error = %v, want %v", tc.path, err, tc.err)
			}
			continue
		}
		if err != nil || r.path != tc.want || (r.info != nil) != tc.exists || r.dangling != tc.dangling || r.procFD {
			t.Errorf("%s: resolved %+v, %v; want path %s exists %v dangling %q", tc.path, r, err, tc.want, tc.exists, tc.dangling)
		}
	}
	// /dev/zero is refused on what it is, before anything opens it. (The tool tables do not
	// read it: a regression would read it until memory runs out.)
	for _, p := range []string{"/dev/zero", filepath.Join(dir, "link-zero")} {
		r, err := resolvePath(p)
		if err != nil || r.path != "/dev/zero" {
			t.Fatalf("%s: resolved %+v, %v", p, r, err)
		}
		if err := refuseSpecial("read", p, p, r); err == nil || !strings.Contains(err.Error(), errChar) {
			t.Errorf("%s: refusal = %v, want containing %q", p, err, errChar)
		}
	}
	for _, p := range []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/1", "/proc/self/task/" + strconv.Itoa(syscall.Gettid()) + "/fd/2"} {
		if r, err := resolvePath(p); err != nil || !r.procFD {
			t.Errorf("%s: resolved %+v, %v; want a file-descriptor link", p, r, err)
		}
	}
}

// TestFailedWriteLeavesNoDirectories: a write that fails after creating parent directories
// removes the ones it made, deepest first, and only those.
func TestFailedWriteLeavesNoDirectories(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"existing/keep.txt": "k"})
	tool := toolFor(t, "write", Options{Cwd: dir})
	for _, p := range []string{
		strings.Repeat("d/", 2500) + "f.txt",              // runs past PATH_MAX while creating directories
		"existing/new/deeper/" + strings.Repeat("x", 300), // the file name is too long
	} {
		before := listTree(t, dir)
		if _, _, err := run(t, tool, map[string]any{"path": p, "content": "x"}); err == nil {
			t.Errorf("write %.40s...: no error", p)
		}
		if after := listTree(t, dir); !slices.Equal(before, after) {
			t.Errorf("write %.40s... left %d entries behind (first %v)", p, len(after)-len(before), after[:min(len(after), 6)])
		}
	}
	// A long but valid name still gets its temp file beside it.
	long := strings.Repeat("é", 120) + ".txt" // 244 bytes
	if _, _, err := run(t, tool, map[string]any{"path": "existing/" + long, "content": "ok"}); err != nil {
		t.Errorf("write of a 244-byte name: %v", err)
	}
}

// TestWriteThroughLinks: a link to a regular file is written through (the link stays), a new
// file under a directory link lands in the target directory, and no temp file is left.
func TestWriteThroughLinks(t *testing.T) {
	fx := newSpecialFixture(t)
	tool := toolFor(t, "write", Options{Cwd: fx.dir})
	for _, p := range []string{"link-regular", "link-link"} {
		if _, _, err := run(t, tool, map[string]any{"path": p, "content": "via " + p}); err != nil {
			t.Fatalf("write %s: %v", p, err)
		}
		if got := readFile(t, filepath.Join(fx.dir, "regular.txt")); got != "via "+p {
			t.Errorf("regular.txt = %q after writing %s", got, p)
		}
	}
	if _, _, err := run(t, tool, map[string]any{"path": "link-dir/new.txt", "content": "new"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(fx.dir, "sub", "new.txt")); got != "new" {
		t.Errorf("sub/new.txt = %q", got)
	}
	if st, err := os.Stat(filepath.Join(fx.dir, "sub", "new.txt")); err != nil || st.Mode().Perm() != 0o644 || st.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Errorf("new file: %v, %v", st, err)
	}
	if err := os.Remove(filepath.Join(fx.dir, "sub", "new.txt")); err != nil {
		t.Fatal(err)
	}
	// check compares with the tree as made; regular.txt is restored by check itself.
	fx.check(t, listTree(t, fx.dir))
}

// TestSpecialContextAndIgnoreFiles: an AGENTS.md or a parent's .gitignore that is a FIFO is
// not read (reading one blocks, or takes what another process writes to it).
func TestSpecialContextAndIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: x\n", "sub/CLAUDE.md": "claude", "sub/a.txt": "MARKER\n"})
	var fds []int
	for _, p := range []string{"sub/AGENTS.md", ".gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
		fd, err := syscall.Open(filepath.Join(dir, p), syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := syscall.Write(fd, []byte("a.txt\n")); err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	t.Cleanup(func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	})
	done := make(chan string, 1)
	go func() {
		var b strings.Builder
		for _, f := range LoadContextFiles(filepath.Join(dir, "sub"), "") {
			b.WriteString(f.Path + "=" + f.Content + ";")
		}
		text, _, err := run(t, toolFor(t, "grep", Options{Cwd: filepath.Join(dir, "sub")}), map[string]any{"pattern": "MARKER"})
		done <- b.String() + " grep: " + text + " " + errString(err)
	}()
	var got string
	select {
	case got = <-done:
	case <-time.After(hangGuard):
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		select {
		case got = <-done:
			t.Fatalf("blocked reading a FIFO context or .gitignore file until its writer closed; then: %s", got)
		case <-time.After(hangGuard):
			t.Fatal("blocked reading a FIFO context or .gitignore file (still blocked)")
		}
	}
	if want := filepath.Join(dir, "sub", "CLAUDE.md") + "=claude; grep: a.txt:1: MARKER "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	buf := make([]byte, 16)
	for i, fd := range fds {
		if n, err := syscall.Read(fd, buf); err != nil || string(buf[:n]) != "a.txt\n" {
			t.Errorf("FIFO %d consumed: %q, %v", i, buf[:max(n, 0)], err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
