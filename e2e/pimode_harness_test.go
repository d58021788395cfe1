package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// piProc is a pi-rpc in pi mode (--mode rpc) and the test's end of its pipes. Every stdout
// line must be one JSON object; records are kept in order.
type piProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin *os.File
	dir   string
	home  string

	mu      sync.Mutex
	cond    chan struct{}
	lines   []piLine
	readErr error
	done    bool
	stderr  testkit.Buffer

	cursor int
	exited chan struct{}
	code   int
}

// piLine is one record of pi mode's stdout.
type piLine struct {
	raw []byte
	m   map[string]any
}

func (l piLine) typ() string          { s, _ := l.m["type"].(string); return s }
func (l piLine) str(k string) string  { s, _ := l.m[k].(string); return s }
func (l piLine) isResponse() bool     { return l.typ() == "response" }
func (l piLine) data() map[string]any { d, _ := l.m["data"].(map[string]any); return d }

// piOptions configure a pi-mode process.
type piOptions struct {
	args []string
	env  []string
	mock *mockopenai.Server
	faux string
	cwd  string
}

func startPi(t *testing.T, o piOptions) *piProc {
	t.Helper()
	home := t.TempDir()
	cwd := o.cwd
	if cwd == "" {
		cwd = t.TempDir()
	}
	args, env := providerFlags(t, home, o.mock, o.faux)
	args = append(append([]string{"--mode", "rpc", "--cwd", cwd}, args...), o.args...)
	env = append(append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_RPC_HOME=" + home,
		"PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent")}, env...), o.env...)
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Dir = cwd
	p := &piProc{t: t, cmd: cmd, stdin: inW, dir: cwd, home: home, cond: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = inR.Close()
	_ = outW.Close()
	go func() {
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	go p.readLoop(outR)
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(hangTimeout):
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", truncate(p.stderrString(), 4000))
		}
	})
	return p
}

func (p *piProc) stderrString() string { return p.stderr.String() }

func (p *piProc) readLoop(r *os.File) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m map[string]any
			body := bytes.TrimSuffix(line, []byte("\n"))
			perr := json.Unmarshal(body, &m)
			p.mu.Lock()
			if perr != nil || !bytes.HasSuffix(line, []byte("\n")) {
				p.readErr = fmt.Errorf("stdout line is not one JSON object with LF: %q", truncate(string(line), 200))
			} else {
				p.lines = append(p.lines, piLine{raw: body, m: m})
			}
			close(p.cond)
			p.cond = make(chan struct{})
			p.mu.Unlock()
		}
		if err != nil {
			p.mu.Lock()
			p.done = true
			close(p.cond)
			p.cond = make(chan struct{})
			p.mu.Unlock()
			_ = r.Close()
			return
		}
	}
}

// send writes one line (an object is encoded as JSON).
func (p *piProc) send(v any) {
	p.t.Helper()
	if _, err := p.stdin.Write(append(inputLine(p.t, v), '\n')); err != nil {
		p.t.Fatalf("writing stdin: %v", err)
	}
}

// waitFor returns the first record from the cursor on that matches, and moves the cursor
// past it.
func (p *piProc) waitFor(what string, pred func(piLine) bool) piLine {
	p.t.Helper()
	for {
		p.mu.Lock()
		if p.readErr != nil {
			p.mu.Unlock()
			p.t.Fatal(p.readErr)
		}
		for i := p.cursor; i < len(p.lines); i++ {
			if pred(p.lines[i]) {
				p.cursor = i + 1
				l := p.lines[i]
				p.mu.Unlock()
				return l
			}
		}
		done, cond := p.done, p.cond
		p.mu.Unlock()
		if done {
			p.t.Fatalf("stdout ended waiting for %s; last records:\n%s", what, p.tail(10))
		}
		select {
		case <-cond:
		case <-time.After(hangTimeout):
			p.t.Fatalf("no %s within %s; last records:\n%s", what, hangTimeout, p.tail(10))
		}
	}
}

func (p *piProc) tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for i := max(0, len(p.lines)-n); i < len(p.lines); i++ {
		b.WriteString(truncate(string(p.lines[i].raw), 300))
		b.WriteByte('\n')
	}
	return b.String()
}

// response waits for the response with that id.
func (p *piProc) response(id string) piLine {
	p.t.Helper()
	return p.waitFor("response "+id, func(l piLine) bool { return l.isResponse() && l.str("id") == id })
}

// call sends a command with an id and returns its response, which must be a success.
func (p *piProc) call(id, typ string, fields map[string]any) piLine {
	p.t.Helper()
	cmd := map[string]any{"id": id, "type": typ}
	for k, v := range fields {
		cmd[k] = v
	}
	p.send(cmd)
	r := p.response(id)
	if r.m["success"] != true || r.str("command") != typ {
		p.t.Fatalf("%s: %s", typ, r.raw)
	}
	return r
}

// event waits for the next event of a type.
func (p *piProc) event(typ string) piLine {
	p.t.Helper()
	return p.waitFor(typ, func(l piLine) bool { return l.typ() == typ })
}

// all returns every record read so far.
func (p *piProc) all() []piLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]piLine(nil), p.lines...)
}

// index is the position of the first record matching pred, or -1.
func indexOf(ls []piLine, pred func(piLine) bool) int {
	for i, l := range ls {
		if pred(l) {
			return i
		}
	}
	return -1
}

// waitEOF waits until stdout has been read to its end.
func (p *piProc) waitEOF() {
	p.t.Helper()
	for {
		p.mu.Lock()
		done, cond := p.done, p.cond
		p.mu.Unlock()
		if done {
			return
		}
		select {
		case <-cond:
		case <-time.After(hangTimeout):
			p.t.Fatal("stdout did not end")
		}
	}
}

func (p *piProc) waitExit() int {
	p.t.Helper()
	select {
	case <-p.exited:
		return p.code
	case <-time.After(hangTimeout):
		p.t.Fatalf("process did not exit")
		return -1
	}
}
