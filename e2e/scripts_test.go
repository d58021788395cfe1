package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reply is one response of a faux script (llm/faux/doc.go).
type reply = map[string]any

// fauxScript builds a faux script with these responses.
func fauxScript(rs ...reply) string {
	if rs == nil {
		rs = []reply{}
	}
	b, err := json.Marshal(map[string]any{"responses": rs})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// text is a reply with one text block.
func text(s string) reply {
	return reply{"content": []any{map[string]any{"type": "text", "text": s}}}
}

// bashCall is a reply calling the bash tool.
func bashCall(command string) reply {
	return reply{"content": []any{map[string]any{"type": "toolCall", "name": "bash", "arguments": map[string]any{"command": command}}}}
}

// hanging is a reply that streams a little text and then never ends until aborted.
func hanging() reply {
	return reply{"content": []any{map[string]any{"type": "text", "deltas": []string{"Thinking", " very", " slowly"}}}, "hangAfter": 1}
}

// bigText is about n bytes of words, for a context large enough to compact.
func bigText(n int) string {
	return strings.Repeat("lorem ipsum ", n/12)
}

// fifo makes a named pipe in dir: a bash tool running `cat NAME` blocks in it until the test
// releases it, which holds a run at a known point without sleeping.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// release opens a fifo for writing and closes it, so that its reader sees EOF. Opening
// blocks until the reader has opened it.
func release(t *testing.T, path string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			err = f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangTimeout):
		t.Fatalf("hang: nobody opened %s for reading", path)
	}
}

// inputResult is the answer to prompt, steer, followUp and continue.
type inputResult struct {
	InputID     string `json:"inputId"`
	Disposition string `json:"disposition"`
}

// settled is agent_settled's payload and waitSettled's result.
type settled struct {
	Inputs []struct {
		InputID string `json:"inputId"`
		Outcome string `json:"outcome"`
	} `json:"inputs"`
	Aborted bool `json:"aborted"`
	Error   *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	LastSeq int64 `json:"lastSeq"`
}

func (s settled) outcome(inputID string) string {
	for _, in := range s.Inputs {
		if in.InputID == inputID {
			return in.Outcome
		}
	}
	return ""
}

// promptCompleted sends a prompt and waits for agent_settled, which must say the prompt
// completed (no error, not aborted); otherwise the test fails, showing the end of stderr.
func (p *proc) promptCompleted(message string) {
	p.t.Helper()
	var pr inputResult
	p.result("prompt", map[string]any{"message": message}, &pr)
	ev := p.event("agent_settled")
	if s := settledOf(p.t, ev); s.Error != nil || s.Aborted || s.outcome(pr.InputID) != "completed" {
		p.t.Fatalf("agent_settled = %s\nstderr: %s", ev, p.stderrTail(20))
	}
}

// settledOf decodes an agent_settled event.
func settledOf(t *testing.T, m *message) settled {
	t.Helper()
	var s settled
	if err := json.Unmarshal(m.Params, &s); err != nil {
		t.Fatal(err)
	}
	return s
}
