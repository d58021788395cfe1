package pimode

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/session"
)

// dialogs asks for tool approval the way pi's confirm extensions do: an
// extension_ui_request with method "confirm", answered by an extension_ui_response with the
// same id. It implements [session.PermissionAsker]; no answer within the timeout, a cancel,
// an abort or the client going away is a refusal.
type dialogs struct {
	w       *Writer
	timeout time.Duration

	mu      sync.Mutex
	pending map[string]chan uiAnswer
	closed  bool
}

type uiAnswer struct {
	Confirmed bool `json:"confirmed"`
	Cancelled bool `json:"cancelled"`
}

func newDialogs(w *Writer) *dialogs {
	return &dialogs{w: w, pending: map[string]chan uiAnswer{}}
}

// CanAsk implements [session.PermissionAsker]: pi's clients always serve extension UI.
func (d *dialogs) CanAsk() bool { return true }

// Ask implements [session.PermissionAsker].
func (d *dialogs) Ask(ctx context.Context, req session.PermissionRequest) session.PermissionAnswer {
	id := newUUID()
	ch := make(chan uiAnswer, 1)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
	}
	d.pending[id] = ch
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.pending, id)
		d.mu.Unlock()
	}()
	msg := struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Method  string `json:"method"`
		Title   string `json:"title"`
		Message string `json:"message"`
		Timeout int64  `json:"timeout,omitempty"`
	}{"extension_ui_request", id, "confirm", confirmTitle(req), confirmMessage(req), d.timeout.Milliseconds()}
	data, _ := json.Marshal(msg)
	d.w.Write(data)
	var timer <-chan time.Time
	if d.timeout > 0 {
		t := time.NewTimer(d.timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByDisconnect}
		}
		if a.Confirmed && !a.Cancelled {
			return session.PermissionAnswer{Decision: session.DecisionAllow, By: session.ByClient}
		}
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: "The user refused"}
	case <-timer:
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByClient, Reason: "No answer within the approval timeout"}
	case <-ctx.Done():
		return session.PermissionAnswer{Decision: session.DecisionDeny, By: session.ByAbort}
	}
}

// answer routes an extension_ui_response to its dialog; unknown ids are ignored, as pi does.
func (d *dialogs) answer(fields map[string]json.RawMessage) {
	var id string
	_ = json.Unmarshal(fields["id"], &id)
	var a uiAnswer
	_ = json.Unmarshal(fields["confirmed"], &a.Confirmed)
	_ = json.Unmarshal(fields["cancelled"], &a.Cancelled)
	d.mu.Lock()
	ch := d.pending[id]
	delete(d.pending, id)
	d.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

// cancelAll refuses every open dialog (the client is gone).
func (d *dialogs) cancelAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for id, ch := range d.pending {
		close(ch)
		delete(d.pending, id)
	}
}

// confirmTitle names the tool and its target.
func confirmTitle(req session.PermissionRequest) string {
	switch req.ToolName {
	case "bash":
		return "Allow bash: " + argString(req.Args, "command") + "?"
	case "write", "edit":
		return "Allow " + req.ToolName + ": " + argString(req.Args, "path") + "?"
	}
	return "Allow " + req.ToolName + "?"
}

func confirmMessage(req session.PermissionRequest) string {
	data, _ := json.Marshal(req.Args)
	return fmt.Sprintf("The agent wants to run the %s tool with %s", req.ToolName, clip(string(data), 2000))
}

func argString(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// newUUID returns a random (version 4) UUID, pi's extension UI request id.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
