package pimode

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// piClient is the client end of a pi mode server over pipes.
type piClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]json.RawMessage
}

// startPi serves pi mode on host's first session, as cmd/pi-rpc does.
func startPi(t *testing.T, host *session.Host, w *Writer, out *io.PipeReader) *piClient {
	t.Helper()
	inR, inW := newPipe()
	srv, err := NewServer(Options{Host: host, Writer: w, In: inR, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve()
	c := &piClient{t: t, in: inW, lines: make(chan map[string]json.RawMessage, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		<-srv.InputClosed()
		srv.Close()
		w.Close(time.Second)
		_ = out.Close()
	})
	return c
}

// call sends a command and returns its response, skipping the events before it.
func (c *piClient) call(line string) map[string]json.RawMessage {
	c.t.Helper()
	var probe struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(line), &probe)
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
	for {
		select {
		case m := <-c.lines:
			if string(m["type"]) == `"response"` && string(m["id"]) == `"`+probe.ID+`"` {
				return m
			}
		case <-time.After(hangTimeout):
			c.t.Fatalf("no response to %s", line)
		}
	}
}

// pi mode's model commands see the host's catalogue: get_available_models and cycle_model
// its available models (not the keyless one), set_model switches through the host and
// words every failure as pi does.
func TestModelsFromHost(t *testing.T) {
	outR, outW := newPipe()
	w := NewWriter(outW, 1<<20, testLogger())
	provider := faux.New(faux.WithModel(testkit.CatM1))
	store := testkit.MemoryStore("s1", testkit.Epoch)
	sup := session.New(session.Config{Agent: core.Options{Provider: provider, Model: testkit.CatM1}, Store: store, Sink: w, Logger: testLogger()})
	sup.StartSession()
	host := session.NewHost(session.HostConfig{Models: testkit.Catalogue{Provider: provider}})
	host.Adopt(&session.Opened{Supervisor: sup})
	c := startPi(t, host, w, outR)

	var avail struct {
		Models []core.Model `json:"models"`
	}
	resp := c.call(`{"id":"a","type":"get_available_models"}`)
	if err := json.Unmarshal(resp["data"], &avail); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range avail.Models {
		ids = append(ids, m.Provider+"/"+m.ID)
	}
	if got := strings.Join(ids, ","); got != "cat/m1,cat/m2" {
		t.Fatalf("available models %s, want cat/m1,cat/m2", got)
	}
	resp = c.call(`{"id":"b","type":"set_model","provider":"locked","modelId":"m3"}`)
	if string(resp["error"]) != `"Model not found: locked/m3"` {
		t.Fatalf("set_model to the keyless model: %v", resp)
	}
	resp = c.call(`{"id":"c","type":"set_model","provider":"cat","modelId":"m2"}`)
	var m core.Model
	if err := json.Unmarshal(resp["data"], &m); err != nil || m.Provider != "cat" || m.ID != "m2" || m.Name != "Cat Two" {
		t.Fatalf("set_model cat/m2: %v", resp)
	}
	if got := sup.State().Model.ID; got != "m2" {
		t.Fatalf("the session's model is %s after set_model, want m2", got)
	}
	resp = c.call(`{"id":"d","type":"cycle_model"}`)
	var cycled struct {
		Model core.Model `json:"model"`
	}
	if err := json.Unmarshal(resp["data"], &cycled); err != nil || cycled.Model.ID != "m1" {
		t.Fatalf("cycle_model after m2: %v", resp)
	}
}

// A host without a session gives no server.
func TestNewServerNeedsASession(t *testing.T) {
	if _, err := NewServer(Options{Host: session.NewHost(session.HostConfig{})}); err == nil {
		t.Fatal("NewServer accepted a host without sessions")
	}
}
