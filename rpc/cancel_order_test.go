package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/sessionapi"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools"
)

// A client that is a little behind reading stdout aborts while a permission/request is still
// queued behind its permission_requested event: the $/cancelRequest must follow the request
// it cancels (it used to go out on the response lane, ahead of it).
func TestCancelRequestFollowsPermissionRequest(t *testing.T) {
	dir := t.TempDir()
	ts, err := tools.New([]string{"write"}, tools.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	model := faux.New(faux.WithClock(func() time.Time { return epoch }))
	model.SetResponses(faux.Reply(write("w1", "a.txt", "x")), faux.Reply(faux.Text("never")))
	writer := rpc.NewWriter(outW, 1<<20)
	requested := make(chan struct{})
	sink := &notifyingSink{Writer: writer, typ: "permission_requested", seen: requested}
	store := testkit.MemoryStore("s", epoch)
	sup := session.New(session.Config{
		Agent: core.Options{Provider: model, Model: model.Model(), Tools: ts},
		Store: store, Sink: sink, Clock: testkit.Fixed(epoch),
		Retry: session.DefaultRetrySettings(), Compaction: session.DefaultCompactionSettings(),
	})
	host := session.NewHost(session.HostConfig{})
	host.Adopt(&session.Opened{Supervisor: sup})
	server := rpc.NewServer(rpc.Options{Host: host, Writer: writer, In: inR, Logger: zerolog.Nop(), Version: "t"})
	server.Serve(context.Background())
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		writer.Close(time.Second)
	})
	out := bufio.NewReader(outR)
	readLine := func() map[string]any {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(line, &m)
		return m
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"permissions":true}}}`+"\n")
	readLine()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"prompt","params":{"message":"go"}}`+"\n")
	// The client reads nothing while the run reaches the permission request: everything
	// since the prompt's response waits in the writer.
	<-requested
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"abort"}`+"\n")
	var order []string
	for {
		m := readLine()
		switch {
		case m["method"] == "event":
			typ := m["params"].(map[string]any)["type"].(string)
			if typ == "agent_settled" {
				eq := strings.Join(order, ",")
				if !strings.Contains(eq, "permission/request,") || strings.Index(eq, "permission/request") > strings.Index(eq, "$/cancelRequest") || !strings.Contains(eq, "$/cancelRequest") {
					t.Fatalf("order %v: want permission/request, then $/cancelRequest", order)
				}
				return
			}
		case m["method"] != nil:
			order = append(order, m["method"].(string))
		}
	}
}

// notifyingSink is a writer that signals once when an event of a type is emitted.
type notifyingSink struct {
	*rpc.Writer
	typ  string
	seen chan struct{}
	once sync.Once
}

func (n *notifyingSink) Emit(ev *sessionapi.Event) int64 {
	seq := n.Writer.Emit(ev)
	if ev.Type == n.typ {
		n.once.Do(func() { close(n.seen) })
	}
	return seq
}
