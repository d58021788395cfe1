package piclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stderrTailLines is how much of a dead server's stderr an [ExitError] keeps: enough for a
// panic's message and the top of its stack, or the last log lines before a fatal error.
const stderrTailLines = 20

// SpawnOptions say how to start pi-rpc.
type SpawnOptions struct {
	// Binary is the pi-rpc executable.
	Binary string
	// Args are its arguments. --framing ndjson is added unless Args has a --framing flag:
	// the client speaks newline-delimited JSON only.
	Args []string
	// Dir is its working directory ("" is the caller's).
	Dir string
	// Env is its environment; nil inherits the caller's.
	Env []string
	// Stderr, when set, receives a copy of its stderr as it is written.
	Stderr io.Writer
	// Options configure the client.
	Options Options
}

// ExitError reports that a spawned server exited: every call pending at that moment, and
// every later one, fails with it.
type ExitError struct {
	// Name is the executable's base name.
	Name string
	// Code is the exit status, or -1 when a signal ended the process.
	Code int
	// Signal names the signal that ended the process, if one did (never on Windows).
	Signal string
	// Killed reports that the client killed the process: Close after its grace period, or
	// Spawn's context ending. It is what tells a kill on Windows, where a killed process
	// exits with status 1 and no signal.
	Killed bool
	// Stderr is the end of its stderr (the last 20 lines).
	Stderr string
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s exited with status %d", e.Name, e.Code)
	switch {
	case e.Signal != "":
		msg = fmt.Sprintf("%s was killed by signal %s", e.Name, e.Signal)
	case e.Killed:
		msg = fmt.Sprintf("%s was killed (exit status %d)", e.Name, e.Code)
	}
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// process is a spawned server.
type process struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.Closer
	stderr *tailWriter
	exited chan struct{} // closed once Wait has returned
	exit   *ExitError
	killed *atomic.Bool // set before the client kills the process
}

// Spawn starts pi-rpc and connects to its stdin and stdout. The process lives until the
// client is closed, it exits, or ctx is done (which kills it).
func Spawn(ctx context.Context, opts SpawnOptions) (*Client, error) {
	cmd := exec.CommandContext(ctx, opts.Binary, spawnArgs(opts.Args)...)
	killed := new(atomic.Bool)
	cmd.Cancel = func() error {
		killed.Store(true)
		return cmd.Process.Kill()
	}
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	tail := &tailWriter{max: stderrTailLines, tee: opts.Stderr}
	cmd.Stderr = tail
	// Wait also waits for the stderr copy, which a grandchild (a bash tool's command) can
	// hold open; do not let it hold the exit status back for long.
	cmd.WaitDelay = closeGrace

	// Plain pipes rather than StdoutPipe: the reader must be able to read to EOF while Wait
	// runs concurrently, which StdoutPipe forbids.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			_ = f.Close()
		}
		return nil, err
	}
	_ = inR.Close()
	_ = outW.Close()

	p := &process{name: filepath.Base(opts.Binary), cmd: cmd, stdin: inW, stderr: tail, exited: make(chan struct{}), killed: killed}
	go p.wait()
	c := newClient(inW, inW, opts.Options)
	c.proc = p
	go func() {
		c.read(outR)
		_ = outR.Close()
	}()
	return c, nil
}

// spawnArgs adds --framing ndjson unless args choose a framing.
func spawnArgs(args []string) []string {
	for _, a := range args {
		if a == "--framing" || a == "-framing" || strings.HasPrefix(a, "--framing=") || strings.HasPrefix(a, "-framing=") {
			return args
		}
	}
	return append([]string{"--framing", "ndjson"}, args...)
}

func (p *process) wait() {
	_ = p.cmd.Wait() // the status is in ProcessState, which is what the error would say
	e := &ExitError{Name: p.name, Code: -1, Killed: p.killed.Load()}
	if st := p.cmd.ProcessState; st != nil {
		e.Code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal().String()
		}
	}
	e.Stderr = p.stderr.tail()
	p.exit = e
	close(p.exited)
}

// exitError is the reason the connection ended once stdout closed: the exit status, once
// the process has exited. A server that closes stdout and keeps running is reported as such
// after the grace period.
func (p *process) exitError(cause error) error {
	select {
	case <-p.exited:
		return p.exit
	case <-time.After(closeGrace):
		return fmt.Errorf("piclient: %s closed its stdout (%w) but is still running", p.name, cause)
	}
}

// stop closes stdin, waits for the exit until ctx ends, then kills.
func (p *process) stop(ctx context.Context, c *Client) error {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-ctx.Done():
		p.killed.Store(true)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	// The reader reports the exit once it sees EOF; a grandchild that inherited stdout could
	// hold that back, so do not wait for it long.
	select {
	case <-c.done:
	case <-time.After(closeGrace):
		c.fail(p.exit)
	}
	if p.exit.Code == 0 && p.exit.Signal == "" {
		return nil
	}
	return p.exit
}

// tailWriter keeps the last max lines written to it and copies everything to tee.
type tailWriter struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial []byte
	tee     io.Writer
	teeErr  error
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tee != nil && t.teeErr == nil {
		// A failing tee must not stop the capture (or, through exec's copy, the server).
		_, t.teeErr = t.tee.Write(b)
	}
	data := append(t.partial, b...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(data[:i]))
		if len(t.lines) > t.max {
			t.lines = t.lines[len(t.lines)-t.max:]
		}
		data = data[i+1:]
	}
	t.partial = append([]byte(nil), data...)
	return len(b), nil
}

func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.partial) > 0 {
		lines = append(append([]string(nil), lines...), string(t.partial))
		if len(lines) > t.max {
			lines = lines[len(lines)-t.max:]
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
