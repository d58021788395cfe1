package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"

	"github.com/pi-rpc/pi-rpc/internal/proctree"
)

// ShellOptions configure one [RunShell] command.
type ShellOptions struct {
	// Command is run with "<shell> -c".
	Command string
	// Dir is the working directory; it must exist.
	Dir string
	// Env is the environment; nil means the server's.
	Env []string
	// Shell is the shell binary; empty means /bin/bash, else bash on PATH, else sh.
	Shell string
	// Timeout kills the command after this long; 0 means no timeout.
	Timeout time.Duration
	// OnChunk, if set, receives each piece of sanitized output as it arrives (append
	// semantics), from the reading goroutine.
	OnChunk func(text string)
	// OnUpdate, if set, receives throttled snapshots of the output tail (replace semantics):
	// at most one per UpdateInterval, and a last one before RunShell returns if output arrived
	// since the previous. Calls never overlap and none happens after RunShell returns.
	OnUpdate func(ShellSnapshot)
	// UpdateInterval defaults to 100 ms.
	UpdateInterval time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL on cancellation; default 50 ms.
	KillGrace time.Duration
	// TempDir receives the full-output file; empty means os.TempDir.
	TempDir string
	// Clock defaults to the real clock.
	Clock clock.Clock
	// Sandbox, when set, confines the command ([Confinement]).
	Sandbox Confinement
}

// ShellSnapshot is the output so far: the tail within 2,000 lines / 50 KB.
type ShellSnapshot struct {
	Output         string
	Truncation     Truncation
	FullOutputPath string
}

// ShellResult is the outcome of [RunShell]; its JSON form is pi's BashResult, the result of
// the RPC bash command.
type ShellResult struct {
	// Output is the sanitized combined stdout and stderr, tail-truncated.
	Output string `json:"output"`
	// ExitCode is nil when the command was killed (cancelled, timed out or by a signal).
	ExitCode  *int `json:"exitCode,omitempty"`
	Cancelled bool `json:"cancelled"`
	// TimedOut is true when Timeout killed the command.
	TimedOut  bool `json:"-"`
	Truncated bool `json:"truncated"`
	// FullOutputPath is the temp file holding the whole output, set once it exceeded the
	// limits.
	FullOutputPath string `json:"fullOutputPath,omitempty"`
	// Truncation details the tail cut.
	Truncation Truncation `json:"-"`
	// LastLineBytes is the size of the last (possibly partial) line, for pi's notice.
	LastLineBytes int `json:"-"`
	// Dropped reports that a [CommandRunner] kept only the end of the output.
	Dropped bool `json:"-"`
}

// drainGrace is how long output is still read after the shell exits, for background
// processes that keep the pipe open (a server started with "&"): their output up to then is
// kept, and the command does not hang on them. What the pipe already holds when it runs out
// is read too ([drainBuffered]).
const drainGrace = 100 * time.Millisecond

// groupGoneWait bounds the wait for killed processes to disappear.
const groupGoneWait = 250 * time.Millisecond

// RunShell runs a shell command in its own process group and collects its output; it is the
// executor of the bash tool and of the RPC bash command. Cancelling ctx or the timeout
// sends SIGTERM to the whole group, then SIGKILL after KillGrace, so no grandchild survives;
// RunShell returns only after the group is gone. The error is for failures to start
// (missing directory, missing shell); a cancelled, timed-out or failing command is a result.
func RunShell(ctx context.Context, o ShellOptions) (ShellResult, error) {
	o.setDefaults()
	if ctx.Err() != nil {
		return ShellResult{Cancelled: true}, nil // cancellation is a result (cancelled:true), not a failure to run
	}
	if !dirExists(o.Dir) {
		return ShellResult{}, fmt.Errorf("Working directory does not exist: %s\nCannot execute bash commands.", o.Dir)
	}
	p, err := startShell(o)
	if err != nil {
		return ShellResult{}, err
	}
	defer p.tree.Release()

	acc := newOutputAccumulator(MaxLines, MaxBytes, o.TempDir)
	th := &throttle{clock: o.Clock, interval: o.UpdateInterval, acc: acc, emit: o.OnUpdate}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		pumpOutput(p.out, acc, th, o.OnChunk)
	}()

	k := &groupKiller{tree: p.tree, clock: o.Clock, grace: o.KillGrace, killedHard: make(chan struct{})}
	stopTimeout := func() bool { return false }
	if o.Timeout > 0 {
		stopTimeout = o.Clock.AfterFunc(o.Timeout, func() { k.kill("timeout") }).Stop
	}
	waitDone := make(chan error, 1)
	go func() { waitDone <- p.cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		k.kill("cancel")
		waitErr = <-waitDone
	}
	stopTimeout()
	reason := k.waitGone()
	_ = p.out.SetReadDeadline(time.Now().Add(drainGrace))
	<-readDone
	p.out.Close()
	acc.finish()
	th.finish()
	return shellResult(acc, p, reason, waitErr)
}

// setDefaults fills in the options left zero.
func (o *ShellOptions) setDefaults() {
	if o.Clock == nil {
		o.Clock = clock.System
	}
	if o.UpdateInterval <= 0 {
		o.UpdateInterval = 100 * time.Millisecond
	}
	if o.KillGrace <= 0 {
		o.KillGrace = 50 * time.Millisecond
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
}

// shellProcess is a started command: its process, its process group and the read end of the
// pipe its stdout and stderr share.
type shellProcess struct {
	cmd *exec.Cmd
	// tree is the process group, which cancellation and timeouts signal as a whole.
	tree *proctree.Tree
	out  *os.File
	// notice is the sandbox's note for the output, if it wrapped the command.
	notice string
}

// startShell starts o.Command in a process group of its own, confined by o.Sandbox if set.
func startShell(o ShellOptions) (*shellProcess, error) {
	shell, err := resolveShell(o.Shell)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	attr := &syscall.SysProcAttr{}
	proctree.Prepare(attr, true)
	path, argv, notice := shell, []string{shell, "-c", o.Command}, ""
	if o.Sandbox != nil {
		if path, argv, notice, err = o.Sandbox.Wrap(shell, []string{"-c", o.Command}, attr); err != nil {
			pr.Close()
			pw.Close()
			return nil, err
		}
	}
	// Not CommandContext: its cancellation kills only the shell, while we signal the whole
	// process group, SIGTERM first.
	cmd := exec.Command(path) //nolint:noctx // cancellation is handled by RunShell, for the whole process group.
	cmd.Args = argv
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	tree, err := proctree.Attach(cmd.Process, true)
	if err != nil {
		pr.Close()
		_ = cmd.Wait()
		return nil, err
	}
	return &shellProcess{cmd: cmd, tree: tree, out: pr, notice: notice}, nil
}

// pumpOutput reads the command's output until EOF (or the drain deadline), sanitised, into
// acc, telling onChunk and the throttle about each piece.
func pumpOutput(pr *os.File, acc *outputAccumulator, th *throttle, onChunk func(string)) {
	var san sanitizer
	buf := make([]byte, 32*1024)
	add := func(text []byte) {
		if len(text) == 0 {
			return
		}
		acc.append(text)
		if onChunk != nil {
			onChunk(string(text))
		}
		th.dirty()
	}
	for {
		n, rerr := pr.Read(buf)
		if n > 0 {
			add(san.write(buf[:n], false))
		}
		if rerr != nil {
			if errors.Is(rerr, os.ErrDeadlineExceeded) {
				drainBuffered(pr, buf, func(b []byte) { add(san.write(b, false)) })
			}
			add(san.write(nil, true))
			return
		}
	}
}

// groupKiller ends a process group once: SIGTERM, then SIGKILL after the grace period.
type groupKiller struct {
	tree       *proctree.Tree
	clock      clock.Clock
	grace      time.Duration
	killedHard chan struct{} // closed once SIGKILL has been sent

	mu     sync.Mutex
	reason string // "timeout" or "cancel" once killed
}

func (k *groupKiller) kill(reason string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.reason != "" {
		return
	}
	k.reason = reason
	k.tree.Terminate()
	k.clock.AfterFunc(k.grace, func() {
		k.tree.Kill()
		close(k.killedHard)
	})
}

// waitGone returns why the group was killed ("" if it was not). If some of it outlived
// SIGTERM it first waits for the SIGKILL, then (briefly) for the kernel to finish them, so the
// caller can rely on the group being gone. Zombies still count for kill(2); if nothing reaps
// them it stops waiting after groupGoneWait.
func (k *groupKiller) waitGone() string {
	k.mu.Lock()
	reason := k.reason
	k.mu.Unlock()
	if reason != "" && k.tree.Alive() {
		<-k.killedHard
		for deadline := time.Now().Add(groupGoneWait); k.tree.Alive() && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond)
		}
	}
	return reason
}

// shellResult is what a finished command produced: its output, and why it ended.
func shellResult(acc *outputAccumulator, p *shellProcess, reason string, waitErr error) (ShellResult, error) {
	snap := acc.snapshot()
	res := ShellResult{
		Output:         snap.Output,
		Truncated:      snap.Truncation.Truncated,
		Truncation:     snap.Truncation,
		FullOutputPath: snap.FullOutputPath,
		LastLineBytes:  acc.lastLineBytes(),
	}
	if p.notice != "" {
		res.Output = appendStatus(res.Output, p.notice)
	}
	switch reason {
	case "cancel":
		res.Cancelled = true
	case "timeout":
		res.TimedOut = true
	default:
		if ps := p.cmd.ProcessState; ps != nil {
			if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				break
			}
			code := ps.ExitCode()
			res.ExitCode = &code
		} else if waitErr != nil {
			return res, waitErr
		}
	}
	return res, nil
}

// outputAccumulator keeps a bounded tail of a command's output plus line and byte totals,
// and spills the whole output to a temp file once it exceeds the limits, so a command that
// prints gigabytes costs little memory and the model can still read everything.
type outputAccumulator struct {
	maxLines, maxBytes int
	tempDir            string

	mu             sync.Mutex
	tail           []byte
	tailAtLineHead bool
	totalBytes     int
	completedLines int
	curLineBytes   int
	openLine       bool
	file           *os.File
	filePath       string
	fileFailed     bool
}

func newOutputAccumulator(maxLines, maxBytes int, tempDir string) *outputAccumulator {
	return &outputAccumulator{maxLines: maxLines, maxBytes: maxBytes, tempDir: tempDir, tailAtLineHead: true}
}

func (a *outputAccumulator) append(p []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.totalBytes += len(p)
	nl := 0
	last := -1
	for i, c := range p {
		if c == '\n' {
			nl++
			last = i
		}
	}
	if nl == 0 {
		a.curLineBytes += len(p)
		a.openLine = true
	} else {
		a.completedLines += nl
		a.curLineBytes = len(p) - last - 1
		a.openLine = a.curLineBytes > 0
	}
	if a.file == nil && !a.fileFailed && a.overLimit() {
		a.openFile() // writes the tail, which is still the whole output
		if a.file != nil {
			_, _ = a.file.Write(p)
		}
	} else if a.file != nil {
		_, _ = a.file.Write(p)
	}
	a.tail = append(a.tail, p...)
	if rolling := 2 * a.maxBytes; len(a.tail) > 2*rolling {
		start := len(a.tail) - rolling
		for start < len(a.tail) && a.tail[start]&0xC0 == 0x80 {
			start++
		}
		a.tailAtLineHead = a.tail[start-1] == '\n'
		a.tail = append([]byte(nil), a.tail[start:]...)
	}
}

func (a *outputAccumulator) overLimit() bool {
	lines := a.completedLines
	if a.openLine {
		lines++
	}
	return a.totalBytes > a.maxBytes || lines > a.maxLines
}

func (a *outputAccumulator) openFile() {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	p := filepath.Join(a.tempDir, "pi-bash-"+hex.EncodeToString(rnd[:])+".log")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		a.fileFailed = true
		return
	}
	a.file, a.filePath = f, p
	_, _ = f.Write(a.tail)
}

func (a *outputAccumulator) finish() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		_ = a.file.Close()
		a.file = nil
	}
}

func (a *outputAccumulator) lastLineBytes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.curLineBytes
}

func (a *outputAccumulator) snapshot() ShellSnapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	text := string(a.tail)
	if !a.tailAtLineHead {
		if i := indexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	t := truncateTail(text, a.maxLines, a.maxBytes)
	total := a.completedLines
	if a.openLine {
		total++
	}
	truncated := total > a.maxLines || a.totalBytes > a.maxBytes
	if truncated && t.TruncatedBy == nil {
		if a.totalBytes > a.maxBytes {
			t.TruncatedBy = truncatedBy("bytes")
		} else {
			t.TruncatedBy = truncatedBy("lines")
		}
	}
	if !truncated {
		t.TruncatedBy = nil
	}
	t.Truncated = truncated
	t.TotalLines, t.TotalBytes = total, a.totalBytes
	return ShellSnapshot{Output: t.Content, Truncation: t, FullOutputPath: a.filePath}
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
