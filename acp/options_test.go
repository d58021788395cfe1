package acp

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/pi-rpc/pi-rpc/session"
)

// configOption is a session's config option by id: its current value and its choices; ok
// is false when the session has none of that id. ids lists every option's id in order.
func configOption(t *testing.T, result json.RawMessage, id string) (cur string, values []string, ids []string, ok bool) {
	t.Helper()
	var r struct {
		ConfigOptions []struct {
			ID           string `json:"id"`
			Category     string `json:"category"`
			CurrentValue string `json:"currentValue"`
			Options      []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatal(err)
	}
	for _, o := range r.ConfigOptions {
		ids = append(ids, o.ID)
		if o.ID == id {
			cur, ok = o.CurrentValue, true
			for _, v := range o.Options {
				values = append(values, v.Value)
			}
		}
	}
	return cur, values, ids, ok
}

// The approval modes are the first config option too (category mode, for clients that read
// configOptions and ignore modes): setting it is set_mode; without Sandboxes there is no
// sandbox option, and setting one is refused.
func TestModeConfigOption(t *testing.T) {
	host := catalogueHost(t)
	c := startServer(t, host)
	opened := c.newSession(1)
	sid := sessionID(t, opened)
	cur, values, ids, _ := configOption(t, opened.Result, "mode")
	if cur != "ask" || strings.Join(values, ",") != "ask,auto,read-only" || ids[0] != "mode" {
		t.Fatalf("mode option %q of %v (options %v)", cur, values, ids)
	}
	if _, _, _, ok := configOption(t, opened.Result, "sandbox"); ok {
		t.Fatalf("a sandbox option without Sandboxes: %v", ids)
	}
	set := func(id int, option, value string) message {
		return c.call(id, "session/set_config_option", map[string]any{"sessionId": sid, "configId": option, "value": value})
	}
	m := set(2, "mode", "auto")
	if cur, _, _, _ := configOption(t, m.Result, "mode"); m.Error != nil || cur != "auto" {
		t.Fatalf("set mode auto: %+v %s", m.Error, m.Result)
	}
	sup, err := host.Find(sid)
	if err != nil || sup.State().Options.Approval != session.ApprovalAuto {
		t.Fatalf("the session's approval after the mode option: %v", err)
	}
	if m := set(3, "mode", "yolo"); m.Error == nil || m.Error.Code != codeInvalidParams || !strings.Contains(m.Error.Message, "yolo") {
		t.Fatalf("unknown mode: %+v", m.Error)
	}
	if m := set(4, "sandbox", "read-only"); m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Fatalf("a sandbox option nobody offers: %+v", m.Error)
	}
}

// fakeSandboxes offers every mode and records the choices.
type fakeSandboxes struct {
	mu   sync.Mutex
	mode map[*session.Supervisor]string
}

func (f *fakeSandboxes) Modes(sup *session.Supervisor) ([]string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur := f.mode[sup]
	if cur == "" {
		cur = "off"
	}
	return []string{"off", "workspace-write", "read-only"}, cur
}

func (f *fakeSandboxes) SetMode(sup *session.Supervisor, mode string) error {
	if mode == "strict" {
		return errors.New(`unknown sandbox mode "strict"`)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode[sup] = mode
	return nil
}

func (f *fakeSandboxes) Info() any { return map[string]any{"mode": "off"} }

// With Sandboxes, initialize's agent info carries the sandbox and each session offers the
// sandbox option, whose setting goes to that session's sandbox; a refusal is invalid params.
func TestSandboxConfigOption(t *testing.T) {
	host := catalogueHost(t)
	sb := &fakeSandboxes{mode: map[*session.Supervisor]string{}}
	c := startWith(t, Options{Host: host, Sandbox: sb})
	m := c.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if m.Error != nil || !strings.Contains(string(m.Result), `"agentInfo":{"_meta":{"pi-rpc":{"sandbox":{"mode":"off"}}}`) {
		t.Fatalf("initialize: %+v %s", m.Error, m.Result)
	}
	opened := c.newSession(1)
	sid := sessionID(t, opened)
	cur, values, ids, ok := configOption(t, opened.Result, "sandbox")
	if !ok || cur != "off" || strings.Join(values, ",") != "off,workspace-write,read-only" || strings.Join(ids, ",") != "mode,sandbox,model" {
		t.Fatalf("sandbox option %q of %v (options %v)", cur, values, ids)
	}
	m = c.call(2, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "sandbox", "value": "workspace-write"})
	if cur, _, _, _ := configOption(t, m.Result, "sandbox"); m.Error != nil || cur != "workspace-write" {
		t.Fatalf("set sandbox workspace-write: %+v %s", m.Error, m.Result)
	}
	sup, err := host.Find(sid)
	if err != nil {
		t.Fatal(err)
	}
	sb.mu.Lock()
	got := sb.mode[sup]
	sb.mu.Unlock()
	if got != "workspace-write" {
		t.Fatalf("the session's sandbox is %q", got)
	}
	m = c.call(3, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "sandbox", "value": "strict"})
	if m.Error == nil || m.Error.Code != codeInvalidParams || !strings.Contains(m.Error.Message, "strict") {
		t.Fatalf("a refused sandbox mode: %+v", m.Error)
	}
}
