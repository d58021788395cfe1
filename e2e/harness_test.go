package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// options configure one pi-rpc process.
type options struct {
	// args are extra command-line flags.
	args []string
	// env is extra KEY=VALUE entries; the base environment is PATH, HOME and PI_RPC_HOME only.
	env []string
	// faux, when set, is a faux script (JSON) run with --provider faux.
	faux string
	// mock, when set, serves the model: --provider openai --base-url mock.URL() with
	// OPENAI_API_KEY=test.
	mock *mockopenai.Server
	// lsp makes the reader expect Content-Length framing on stdout.
	lsp bool
	// keepStderr passes a pipe as stderr and never reads it.
	keepStderr bool
	// cwd is --cwd (default a fresh temp dir).
	cwd string
	// multiSession checks the stream as that of a connection with several sessions: every
	// event carries sessionId, and the run rules hold per session.
	multiSession bool
	// home is HOME and PI_RPC_HOME (default a fresh temp dir); bin the binary (default the
	// one TestMain built); attr the process attributes (such as another user's credential).
	home string
	bin  string
	attr *syscall.SysProcAttr
}

// message is one JSON-RPC message read from stdout.
type message struct {
	raw []byte
	// wire is the message's size on the wire, framing included; offset its first byte.
	wire   int
	offset int64
	batch  []*message

	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`

	// ev is an event's params, decoded.
	ev map[string]any
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// kind is the error's data.kind.
func (e *rpcError) kind() string {
	var d struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Kind
}

func (m *message) isEvent() bool    { return m.Method == "event" && m.ID == nil && m.batch == nil }
func (m *message) isResponse() bool { return m.Method == "" && m.batch == nil }
func (m *message) typ() string      { s, _ := m.ev["type"].(string); return s }
func (m *message) seq() int64       { f, _ := m.ev["seq"].(float64); return int64(f) }
func (m *message) str(k string) string {
	s, _ := m.ev[k].(string)
	return s
}

// decode decodes a response's result into v.
func (m *message) decode(t *testing.T, v any) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("response %s: want a result, got error %d %q", m.raw, m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("decoding %s: %v", m.raw, err)
	}
}

func (m *message) String() string { return truncate(string(m.raw), 300) }

// proc is a running pi-rpc and the test's end of its pipes.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	dir    string
	lsp    bool

	gate *gate

	mu         sync.Mutex
	cond       chan struct{} // closed and replaced when msgs grows or reading ends
	msgs       []*message
	readErr    error
	readDone   bool
	violations []string
	stderrBuf  bytes.Buffer
	bytesRead  int64
	checker    streamChecker
	// clientClosedStdout is set when the test closed its end of stdout on purpose.
	clientClosedStdout bool

	cursor int
	nextID int

	stderrDone chan struct{}
	exited     chan struct{}
	exitCode   int
	waitErr    error
}

// start starts pi-rpc with o and registers its cleanup.
func start(t *testing.T, o options) *proc {
	t.Helper()
	home := o.home
	if home == "" {
		home = t.TempDir()
	}
	cwd := o.cwd
	if cwd == "" {
		cwd = t.TempDir()
	}
	args, env := providerFlags(t, home, o.mock, o.faux)
	args = append(append([]string{"--cwd", cwd}, args...), o.args...)
	env = append(append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_RPC_HOME=" + home}, env...), o.env...)

	inR, inW := pipe(t)
	outR, outW := pipe(t)
	errR, errW := pipe(t)
	if c := credentialOf(o.attr); c != nil {
		// The pipes belong to the user pi-rpc runs as, as when that user's editor made them.
		for _, f := range []*os.File{inR, outW, errW} {
			if err := f.Chown(int(c.Uid), int(c.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	bin := binary
	if o.bin != "" {
		bin = o.bin
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = cwd
	cmd.SysProcAttr = o.attr
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	p := &proc{
		t: t, cmd: cmd, stdin: inW, stdout: outR, stderr: errR, dir: cwd, lsp: o.lsp,
		gate: newGate(), cond: make(chan struct{}), exited: make(chan struct{}), stderrDone: make(chan struct{}),
	}
	p.checker.multi = o.multiSession
	go func() {
		err := cmd.Wait()
		p.waitErr = err
		p.exitCode = cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	go p.readLoop()
	if !o.keepStderr {
		go p.drainStderr()
	}
	t.Cleanup(p.cleanup)
	return p
}

// pipe is an os.Pipe, as a child process's stdio gets.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// stdioPipes connects to a command not yet started: the writer is its stdin, the reader its
// stdout (exec's pipes, which Wait closes).
func stdioPipes(t *testing.T, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// providerFlags are the flags and environment that point a process at its provider: the
// OpenAI mock when there is one, the faux provider with this script (written into home) when
// there is one; neither if both are empty.
func providerFlags(t *testing.T, home string, mock *mockopenai.Server, faux string) (args, env []string) {
	t.Helper()
	if mock != nil {
		args = append(args, "--provider", "openai", "--base-url", mock.URL())
		env = append(env, "OPENAI_API_KEY=test")
	}
	if faux != "" {
		script := filepath.Join(home, "faux.json")
		if err := os.WriteFile(script, []byte(faux), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--provider", "faux", "--faux-script", script)
	}
	return args, env
}

func credentialOf(a *syscall.SysProcAttr) *syscall.Credential {
	if a == nil {
		return nil
	}
	return a.Credential
}

func (p *proc) cleanup() {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	_ = p.stdin.Close()
	p.gate.open()
	p.mu.Lock()
	violations := append([]string(nil), p.violations...)
	violations = append(violations, p.checker.finish()...)
	p.mu.Unlock()
	for _, v := range violations {
		p.t.Errorf("stdout: %s", v)
	}
	_ = p.stdout.Close()
	_ = p.stderr.Close()
	if p.t.Failed() {
		p.t.Logf("stderr tail:\n%s", p.stderrTail(2000))
	}
}

func (p *proc) drainStderr() {
	defer close(p.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.stderr.Read(buf)
		p.mu.Lock()
		p.stderrBuf.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// stderrAll waits for stderr to end and returns all of it.
func (p *proc) stderrAll() string {
	p.t.Helper()
	select {
	case <-p.stderrDone:
	case <-time.After(hangTimeout):
		p.t.Fatalf("hang: stderr not closed within %v", hangTimeout)
	}
	return p.stderrTail(1 << 20)
}

func (p *proc) stderrTail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stderrBuf.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

func (p *proc) violate(format string, args ...any) {
	p.violations = append(p.violations, fmt.Sprintf(format, args...))
}

// gate lets a test stop the reader from reading stdout (backpressure tests).
type gate struct {
	mu sync.Mutex
	ch chan struct{} // closed while open
}

func newGate() *gate {
	g := &gate{ch: make(chan struct{})}
	close(g.ch)
	return g
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.ch:
		g.ch = make(chan struct{})
	default:
	}
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.ch:
	default:
		close(g.ch)
	}
}

func (g *gate) wait() {
	g.mu.Lock()
	ch := g.ch
	g.mu.Unlock()
	<-ch
}

// gatedReader reads only while its gate is open.
type gatedReader struct {
	r io.Reader
	g *gate
	n *int64
}

func (r gatedReader) Read(b []byte) (int, error) {
	r.g.wait()
	n, err := r.r.Read(b)
	*r.n += int64(n)
	return n, err
}

// readLoop reads every message from stdout, checking its framing and JSON-RPC shape.
func (p *proc) readLoop() {
	var total int64
	br := bufio.NewReaderSize(gatedReader{p.stdout, p.gate, &total}, 64<<10)
	var offset int64
	for {
		body, wire, err := p.readFrame(br)
		if err != nil {
			p.mu.Lock()
			if !errors.Is(err, io.EOF) && !p.clientClosedStdout {
				p.violate("%v", err)
			}
			p.readErr = err
			p.readDone = true
			p.bytesRead = total
			close(p.cond)
			p.cond = make(chan struct{})
			p.mu.Unlock()
			return
		}
		m, perr := parseMessage(body)
		p.mu.Lock()
		if perr != nil {
			p.violate("at byte %d: %v: %q", offset, perr, truncate(string(body), 200))
		} else {
			m.wire, m.offset = wire, offset
			if m.isEvent() {
				for _, v := range p.checker.check(m) {
					p.violate("%s", v)
				}
			}
			p.msgs = append(p.msgs, m)
		}
		offset += int64(wire)
		p.bytesRead = total
		close(p.cond)
		p.cond = make(chan struct{})
		p.mu.Unlock()
	}
}

// readFrame reads one framed message; io.EOF only at a clean message boundary.
func (p *proc) readFrame(br *bufio.Reader) (body []byte, wire int, err error) {
	if !p.lsp {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return nil, 0, fmt.Errorf("unterminated line at EOF: %q", truncate(string(line), 200))
			}
			return nil, 0, err
		}
		return line[:len(line)-1], len(line), nil
	}
	length := -1
	for {
		line, err := br.ReadString('\n')
		wire += len(line)
		if err != nil {
			if errors.Is(err, io.EOF) && wire == 0 {
				return nil, 0, io.EOF
			}
			return nil, 0, fmt.Errorf("truncated LSP header %q: %w", line, err)
		}
		if line == "\r\n" {
			break
		}
		v, ok := strings.CutPrefix(line, "Content-Length: ")
		if !ok || !strings.HasSuffix(v, "\r\n") || length >= 0 {
			return nil, 0, fmt.Errorf("unexpected LSP header line %q", line)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(v, "\r\n"))
		if err != nil || n < 0 {
			return nil, 0, fmt.Errorf("bad Content-Length %q", line)
		}
		length = n
	}
	if length < 0 {
		return nil, 0, errors.New("LSP header block without Content-Length")
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, 0, fmt.Errorf("truncated LSP body: %w", err)
	}
	return body, wire + length, nil
}

// parseMessage checks that body is a JSON-RPC 2.0 message (or a batch of responses).
func parseMessage(body []byte) (*message, error) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return nil, errors.New("not JSON")
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil || len(elems) == 0 {
			return nil, errors.New("bad batch")
		}
		m := &message{raw: body}
		for _, el := range elems {
			e, err := parseOne(el)
			if err != nil {
				return nil, fmt.Errorf("batch element: %w", err)
			}
			if !e.isResponse() {
				return nil, errors.New("batch element is not a response")
			}
			m.batch = append(m.batch, e)
		}
		return m, nil
	}
	return parseOne(body)
}

func parseOne(body []byte) (*message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, errors.New("not a JSON object")
	}
	if string(fields["jsonrpc"]) != `"2.0"` {
		return nil, errors.New(`"jsonrpc" is not "2.0"`)
	}
	m := &message{raw: body}
	if err := json.Unmarshal(body, m); err != nil {
		return nil, err
	}
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	_, hasID := fields["id"]
	switch {
	case m.Method != "":
		if hasResult || hasError {
			return nil, errors.New("request with result or error")
		}
		if m.Method == "event" {
			if hasID {
				return nil, errors.New("event with an id")
			}
			if err := json.Unmarshal(m.Params, &m.ev); err != nil || m.ev == nil {
				return nil, errors.New("event params are not an object")
			}
		}
	case !hasID:
		return nil, errors.New("response without id")
	case hasResult == hasError:
		return nil, errors.New("response needs exactly one of result and error")
	case hasError && (m.Error == nil || m.Error.Message == ""):
		return nil, errors.New("error without code and message")
	}
	return m, nil
}

// send writes raw bytes to stdin.
func (p *proc) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("writing to stdin: %v", err)
	}
}

// frame frames one message body for the process's framing.
func (p *proc) frame(body string) string {
	if p.lsp {
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return body + "\n"
}

// requestBody builds a request; params nil means none.
func requestBody(id any, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// request sends a request with a fresh numeric id and returns the id.
func (p *proc) request(method string, params any) int {
	p.t.Helper()
	p.nextID++
	p.send(p.frame(requestBody(p.nextID, method, params)))
	return p.nextID
}

// notify sends a notification.
func (p *proc) notify(method string, params any) {
	p.t.Helper()
	p.send(p.frame(requestBody(nil, method, params)))
}

// call sends a request and waits for its response.
func (p *proc) call(method string, params any) *message {
	p.t.Helper()
	return p.response(p.request(method, params))
}

// result calls and decodes a successful result into v (which may be nil).
func (p *proc) result(method string, params, v any) *message {
	p.t.Helper()
	m := p.call(method, params)
	if v != nil {
		m.decode(p.t, v)
	} else if m.Error != nil {
		p.t.Fatalf("%s: error %d %q", method, m.Error.Code, m.Error.Message)
	}
	return m
}

// callError calls and checks the error code and data.kind ("" for none).
func (p *proc) callError(method string, params any, code int, kind string) *rpcError {
	p.t.Helper()
	m := p.call(method, params)
	return checkError(p.t, m, method, code, kind)
}

func checkError(t *testing.T, m *message, what string, code int, kind string) *rpcError {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("%s = %s, want error %d", what, m, code)
	}
	if m.Error.Code != code {
		t.Fatalf("%s code = %d (%q), want %d", what, m.Error.Code, m.Error.Message, code)
	}
	if got := m.Error.kind(); got != kind {
		t.Fatalf("%s data.kind = %q, want %q (%s)", what, got, kind, m)
	}
	return m.Error
}

// next returns the next message after the cursor, waiting for it.
func (p *proc) next() *message {
	p.t.Helper()
	m := p.nextOrEOF()
	if m == nil {
		p.t.Fatalf("stdout ended (%v) while waiting for a message; exit code %s", p.readErr, p.exitString())
	}
	return m
}

// nextOrEOF is next, or nil at the end of stdout.
func (p *proc) nextOrEOF() *message {
	p.t.Helper()
	for {
		p.mu.Lock()
		if p.cursor < len(p.msgs) {
			m := p.msgs[p.cursor]
			p.cursor++
			p.mu.Unlock()
			return m
		}
		if p.readDone {
			p.mu.Unlock()
			return nil
		}
		ch := p.cond
		p.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(hangTimeout):
			p.t.Fatalf("hang: nothing on stdout for %v; last messages:\n%s", hangTimeout, p.lastMessages(8))
		}
	}
}

func (p *proc) exitString() string {
	select {
	case <-p.exited:
		return strconv.Itoa(p.exitCode)
	default:
		return "(running)"
	}
}

func (p *proc) lastMessages(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	from := max(0, len(p.msgs)-n)
	for _, m := range p.msgs[from:] {
		b.WriteString("  " + m.String() + "\n")
	}
	return b.String()
}

// waitFor reads messages until one satisfies pred and returns it.
func (p *proc) waitFor(what string, pred func(*message) bool) *message {
	p.t.Helper()
	for {
		m := p.nextOrEOF()
		if m == nil {
			p.t.Fatalf("stdout ended (%v) while waiting for %s; exit code %s; last messages:\n%s", p.readErr, what, p.exitString(), p.lastMessages(8))
		}
		if pred(m) {
			return m
		}
	}
}

// response waits for the response with a numeric id made by request. Those ids are unique,
// so the response may already have been passed by the cursor.
func (p *proc) response(id int) *message {
	p.t.Helper()
	want := strconv.Itoa(id)
	for _, m := range p.history()[:p.cursor] {
		if m.isResponse() && string(m.ID) == want {
			return m
		}
	}
	return p.responseRaw(want)
}

// responseRaw waits for the response whose id is exactly these bytes ("null" included).
func (p *proc) responseRaw(id string) *message {
	p.t.Helper()
	return p.waitFor("response "+id, func(m *message) bool { return m.isResponse() && string(m.ID) == id })
}

// event waits for the next event of a type.
func (p *proc) event(typ string) *message {
	p.t.Helper()
	return p.waitFor("event "+typ, func(m *message) bool { return m.isEvent() && m.typ() == typ })
}

// index is a message's position in the history.
func (p *proc) index(m *message) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.msgs {
		if x == m {
			return i
		}
	}
	return -1
}

// history returns every message read so far.
func (p *proc) history() []*message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*message(nil), p.msgs...)
}

// closeStdin closes the server's stdin.
func (p *proc) closeStdin() { _ = p.stdin.Close() }

// closeExpectExit0 closes stdin and fails the test unless the process then exits with 0.
func (p *proc) closeExpectExit0() {
	p.t.Helper()
	p.closeStdin()
	if code := p.waitExit(); code != 0 {
		p.t.Fatalf("exit code %d", code)
	}
}

// wait reads stdout to its end and waits for the process to exit; it returns the exit
// code (-1 when killed by a signal).
func (p *proc) wait() int {
	p.t.Helper()
	for p.nextOrEOF() != nil {
	}
	select {
	case <-p.exited:
	case <-time.After(hangTimeout):
		p.t.Fatalf("hang: stdout closed but the process did not exit within %v", hangTimeout)
	}
	return p.exitCode
}

// waitExit waits for the process to exit without reading stdout.
func (p *proc) waitExit() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(hangTimeout):
		p.t.Fatalf("hang: the process did not exit within %v", hangTimeout)
	}
	return p.exitCode
}

// signaled reports the signal that killed the process, if any.
func (p *proc) signaled() (syscall.Signal, bool) {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// expectNoMessage checks that nothing arrives before the response to a getState sent now:
// the inputs sent before got no reply and caused no event.
func (p *proc) expectNoMessage(what string) {
	p.t.Helper()
	id := p.request("getState", nil)
	m := p.next()
	if !m.isResponse() || string(m.ID) != strconv.Itoa(id) {
		p.t.Fatalf("%s: got %s, want nothing before the getState response", what, m)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// streamChecker checks the invariants of docs/protocol.md#ordering-contract on the event stream
// as it is read.
type streamChecker struct {
	lastSeq int64
	// multi: several sessions; runs are checked per session (the open run of each).
	multi    bool
	open     map[string]string
	runID    string // the open run, "" when none
	runs     map[string]bool
	settled  map[string]int64 // inputId -> seq of its agent_settled
	starts   int
	ends     int
	settles  int
	inPeriod bool
	// partial is set when the client asked for partialMessages.
	partial bool
}

var sessionIDEvents = map[string]bool{"agent_start": true, "agent_settled": true, "session_changed": true}

func (c *streamChecker) check(m *message) []string {
	var out []string
	bad := func(format string, args ...any) {
		out = append(out, fmt.Sprintf("event seq %d %s: ", m.seq(), m.typ())+fmt.Sprintf(format, args...))
	}
	if c.runs == nil {
		c.runs, c.settled = map[string]bool{}, map[string]int64{}
	}
	seq := m.seq()
	if seq != c.lastSeq+1 {
		bad("seq %d follows %d (gap or repeat)", seq, c.lastSeq)
	}
	c.lastSeq = seq
	typ := m.typ()
	runID, hasRun := m.ev["runId"].(string)
	sessionID, has := m.ev["sessionId"].(string)
	if c.multi {
		if !has || sessionID == "" {
			bad("no sessionId on a connection with several sessions")
		}
		// the rules below are per session: swap in this session's open run
		if c.open == nil {
			c.open = map[string]string{}
		}
		c.runID = c.open[sessionID]
		defer func() { c.open[sessionID] = c.runID }()
	} else if has != sessionIDEvents[typ] {
		bad("sessionId present = %v", has)
	}
	switch typ {
	case "agent_start":
		c.starts++
		c.inPeriod = true
		if c.runID != "" {
			bad("agent_start inside run %s", c.runID)
		}
		if !hasRun || runID == "" {
			bad("agent_start without runId")
		} else if c.runs[runID] {
			bad("runId %s reused", runID)
		}
		c.runID = runID
		c.runs[runID] = true
	case "agent_end":
		c.ends++
		if c.runID == "" {
			bad("agent_end without agent_start")
		} else if runID != c.runID {
			bad("runId %q, want %q", runID, c.runID)
		}
		c.runID = ""
	case "agent_settled":
		c.settles++
		c.inPeriod = false
		if c.runID != "" {
			bad("agent_settled inside run %s (agent_settled must be last)", c.runID)
		}
		if hasRun {
			bad("agent_settled has runId %s", runID)
		}
		if last, _ := m.ev["lastSeq"].(float64); int64(last) != seq {
			bad("lastSeq %v is not its own seq", m.ev["lastSeq"])
		}
		inputs, _ := m.ev["inputs"].([]any)
		for _, in := range inputs {
			obj, _ := in.(map[string]any)
			id, _ := obj["inputId"].(string)
			if prev, dup := c.settled[id]; dup {
				bad("input %s already settled at seq %d", id, prev)
			}
			c.settled[id] = seq
			switch obj["outcome"] {
			case "completed", "aborted", "failed", "cancelled":
			default:
				bad("input %s outcome %v", id, obj["outcome"])
			}
		}
	default:
		switch {
		case c.runID != "" && runID != c.runID:
			bad("runId %q inside run %q", runID, c.runID)
		case c.runID == "" && hasRun:
			bad("runId %q outside any run", runID)
		}
	}
	if typ == "message_update" {
		if _, ok := m.ev["assistantMessageEvent"].(map[string]any); !ok {
			bad("no assistantMessageEvent")
		}
		if _, ok := m.ev["message"]; ok != c.partial {
			bad("message_update carries the partial message = %v, partialMessages = %v", ok, c.partial)
		}
	}
	return out
}

// finish reports what is wrong once the stream has ended (or the test is over).
func (c *streamChecker) finish() []string {
	return nil
}
