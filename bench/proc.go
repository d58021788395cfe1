package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// impl names the protocol the client speaks to the server under test: pi-rpc's JSON-RPC 2.0,
// pi's own JSONL commands (pi 0.73.1, and pi-rpc --mode rpc), or ACP (acp.go).
type impl int

const (
	implPiRPC impl = iota
	implPi
	implACP
)

func (i impl) String() string {
	switch i {
	case implPi:
		return "pi"
	case implACP:
		return "acp"
	}
	return "pi-rpc"
}

// msg is one stdout line of the server, classified cheaply: the reader stamps it the moment its
// last byte arrives, so the time a scenario takes to look at it never counts.
type msg struct {
	at    time.Time
	event bool   // an event (pi-rpc: the "event" notification; pi: a record without "id")
	typ   string // event type
	sub   string // message_update: assistantMessageEvent.type; message_start/end: message.role
	id    string // response id
	ok    bool   // response succeeded
	bytes int64  // stdout bytes up to and including this line
	seq   int64  // a pi-rpc event's seq, -1 if none
	line  []byte // kept for responses only
	text  int    // ACP agent_message_chunk: the length of its text
}

// proc is one server process under test, spawned with pipes on stdin, stdout and stderr.
type proc struct {
	impl  impl
	cmd   *exec.Cmd
	stdin io.WriteCloser
	start time.Time // just before exec

	mu      sync.Mutex
	seen    []msg
	used    []bool
	notify  chan struct{}
	readErr error
	done    chan struct{} // stdout reached EOF
	nbytes  int64

	stderr tailBuffer
	nextID int
}

// tailBuffer keeps the last 8 KiB written to it (the server's stderr, for error reports).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-8192:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// spawn starts a server. start is taken just before the exec, so a scenario that writes its
// first request at once measures spawn to response.
func spawn(kind impl, name string, args []string, dir string, env []string) (*proc, error) {
	p := &proc{impl: kind, notify: make(chan struct{}, 1), done: make(chan struct{})}
	p.cmd = exec.CommandContext(context.Background(), name, args...)
	p.cmd.Dir = dir
	p.cmd.Env = env
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdin = stdin
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go p.read(stdout)
	return p, nil
}

func (p *proc) read(r io.Reader) {
	defer close(p.done)
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			long = append(long, chunk...)
			line, long = long, nil
		}
		if len(line) > 0 {
			now := time.Now()
			m := classify(p.impl, line)
			m.at = now
			p.record(m, len(line))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.mu.Lock()
				p.readErr = err
				p.mu.Unlock()
			}
			p.wake()
			return
		}
	}
}

// record keeps m, read from a line of size bytes, and wakes a waiter.
func (p *proc) record(m msg, size int) {
	p.mu.Lock()
	p.nbytes += int64(size)
	m.bytes = p.nbytes
	p.seen = append(p.seen, m)
	p.used = append(p.used, false)
	p.mu.Unlock()
	p.wake()
}

// wake tells a waiter that something was read (or reading ended).
func (p *proc) wake() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// piCommands maps the benchmark's method names (pi-rpc's) to pi 0.73.1's command types.
// pi has no getEntries: get_messages is the closest (it returns the model context of the
// resumed branch rather than its raw entries).
var piCommands = map[string]string{
	"getState":   "get_state",
	"prompt":     "prompt",
	"steer":      "steer",
	"followUp":   "follow_up",
	"abort":      "abort",
	"getEntries": "get_messages",
}

// send writes one request and returns its id, the time just before the write and the stdout
// byte count at that moment.
func (p *proc) send(method string, params map[string]any) (string, time.Time, int64, error) {
	p.nextID++
	var line []byte
	var id string
	var err error
	if p.impl == implPi {
		id = "req_" + strconv.Itoa(p.nextID)
		cmd := map[string]any{"id": id, "type": piCommands[method]}
		for k, v := range params {
			cmd[k] = v
		}
		line, err = json.Marshal(cmd)
	} else {
		id = strconv.Itoa(p.nextID)
		if params == nil {
			params = map[string]any{}
		}
		line, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	}
	if err != nil {
		return "", time.Time{}, 0, err
	}
	line = append(line, '\n')
	p.mu.Lock()
	n := p.nbytes
	p.mu.Unlock()
	at := time.Now()
	if _, err := p.stdin.Write(line); err != nil {
		return "", at, n, fmt.Errorf("write %s: %w", method, err)
	}
	return id, at, n, nil
}

// wait returns the first message not yet returned by wait that satisfies pred, waiting up to
// timeout for it to arrive.
func (p *proc) wait(what string, timeout time.Duration, pred func(*msg) bool) (msg, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		m, ok := p.takeLocked(pred)
		readErr := p.readErr
		p.mu.Unlock()
		if ok {
			return m, nil
		}
		select {
		case <-p.done:
			// One more pass: the last lines may have landed with the EOF.
			p.mu.Lock()
			m, ok := p.takeLocked(pred)
			p.mu.Unlock()
			if ok {
				return m, nil
			}
			if readErr != nil {
				return msg{}, fmt.Errorf("waiting for %s: reading stdout: %w; stderr: %s", what, readErr, p.stderr.String())
			}
			return msg{}, fmt.Errorf("waiting for %s: stdout closed; stderr: %s", what, p.stderr.String())
		case <-p.notify:
		case <-deadline.C:
			return msg{}, fmt.Errorf("waiting for %s: timed out after %v; stderr: %s", what, timeout, p.stderr.String())
		}
	}
}

// takeLocked marks as used, and returns, the first message not used yet that satisfies
// pred. The caller holds p.mu.
func (p *proc) takeLocked(pred func(*msg) bool) (msg, bool) {
	for i := range p.seen {
		if !p.used[i] && pred(&p.seen[i]) {
			p.used[i] = true
			return p.seen[i], true
		}
	}
	return msg{}, false
}

// response waits for the response to id and fails if it is an error.
func (p *proc) response(id string, timeout time.Duration) (msg, error) {
	m, err := p.wait("response "+id, timeout, func(m *msg) bool { return !m.event && m.id == id })
	if err != nil {
		return m, err
	}
	if !m.ok {
		return m, fmt.Errorf("request %s failed: %.400s", id, m.line)
	}
	return m, nil
}

// call sends one request and waits for its successful response. It returns the response,
// the time just before the write and the stdout byte count at that moment, as send does.
func (p *proc) call(method string, params map[string]any) (msg, time.Time, int64, error) {
	id, at, before, err := p.send(method, params)
	if err != nil {
		return msg{}, at, before, err
	}
	r, err := p.response(id, waitLimit)
	return r, at, before, err
}

// event waits for the next event of type typ (and sub, if not empty).
func (p *proc) event(typ, sub string, timeout time.Duration) (msg, error) {
	return p.wait(typ+" "+sub, timeout, func(m *msg) bool {
		return m.event && m.typ == typ && (sub == "" || m.sub == sub)
	})
}

// settled waits for the end of the busy period: pi-rpc's agent_settled; pi 0.73.1 has no such
// event, so the time is that of the agent_end after which get_state reports isStreaming false
// (the get_state round trip itself is not counted). pi-rpc --mode rpc gets pi's client, which
// also takes its agent_settled (its isStreaming stays true until then).
func (p *proc) settled(timeout time.Duration) (msg, error) {
	if p.impl == implPiRPC {
		return p.event("agent_settled", "", timeout)
	}
	for {
		end, err := p.wait("agent_end or agent_settled", timeout, func(m *msg) bool {
			return m.event && (m.typ == "agent_end" || m.typ == "agent_settled")
		})
		if err != nil || end.typ == "agent_settled" {
			return end, err
		}
		id, _, _, err := p.send("getState", nil)
		if err != nil {
			return end, err
		}
		st, err := p.response(id, timeout)
		if err != nil {
			return end, err
		}
		if bytes.Contains(st.line, []byte(`"isStreaming":false`)) {
			return end, nil
		}
	}
}

// count returns how many events satisfy pred among those that arrived by upTo.
func (p *proc) count(upTo time.Time, pred func(*msg) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for i := range p.seen {
		if m := &p.seen[i]; m.event && !m.at.After(upTo) && pred(m) {
			n++
		}
	}
	return n
}

// eventsBetween counts the events that arrived after from and by to.
func (p *proc) eventsBetween(from, to time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for i := range p.seen {
		if m := &p.seen[i]; m.event && m.at.After(from) && !m.at.After(to) {
			n++
		}
	}
	return n
}

// finish closes stdin (both servers exit on EOF), waits up to 20 s for the exit (then kills)
// and returns the process's peak resident set in bytes: its VmHWM, read just before stdin is
// closed. wait4's ru_maxrss would not do: the child shares the benchmark's memory from the
// fork until its exec, and Linux keeps that memory's high-water mark as the child's, so every
// server would weigh at least as much as the benchmark has at its largest (it holds the
// lines it has read, megabytes after scenario 7). ru_maxrss is the fallback if /proc cannot
// be read.
func (p *proc) finish() (int64, error) {
	hwm, hwmErr := vmHWM(p.cmd.Process.Pid)
	_ = p.stdin.Close()
	var waitErr error
	select {
	case <-p.done: // stdout closed: the process is exiting; Wait may close the pipe now
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		waitErr = errors.New("did not exit within 20 s of stdin EOF")
	}
	if err := p.cmd.Wait(); waitErr == nil {
		waitErr = err
	}
	rss := hwm
	if hwmErr != nil {
		if m, ok := maxRSS(p.cmd.ProcessState); ok {
			rss = m
		}
	}
	if waitErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			return rss, waitErr
		}
		// A non-zero exit after EOF is reported but still yields the RSS.
		return rss, fmt.Errorf("exit: %w; stderr: %s", waitErr, p.stderr.String())
	}
	return rss, nil
}

// kill ends a process that a failed scenario left running.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(os.Kill)
		_ = p.cmd.Wait()
	}
}
