package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// peer is the test's side of a server running in process over pipes.
type peer struct {
	t      testing.TB
	in     *io.PipeWriter
	out    *bufio.Reader
	model  *faux.Provider
	sup    *session.Supervisor
	server *rpc.Server
	done   <-chan struct{}
	lines  chan []byte
	nextID int
}

type peerOpts struct {
	framing  rpc.Framing
	readLSP  bool
	approval string
	cwd      string
	shell    session.ShellRunner
	models   session.Models
	problem  string
	max      int
	tools    []core.Tool
	// log, when set, receives the server's log (JSON lines).
	log io.Writer
	mcp rpc.MCPHost
	// finishOnEOF: the end of input lets the busy period finish (--on-eof finish).
	finishOnEOF bool
}

func newPeer(t testing.TB, o peerOpts, steps ...faux.Step) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	model := faux.New(faux.WithClock(func() time.Time { return epoch }))
	model.SetResponses(steps...)
	writer := rpc.NewWriter(outW, 1<<20)
	store := testkit.MemoryStore("session-1", epoch)
	sup := session.New(session.Config{
		Agent: core.Options{Provider: model, Model: model.Model(), Tools: o.tools},
		Store: store, Sink: writer, Clock: testkit.Fixed(epoch),
		Retry: session.DefaultRetrySettings(), Compaction: session.DefaultCompactionSettings(),
		Approval: o.approval, ApprovalFixed: o.approval != "", Shell: o.shell, ProviderProblem: o.problem,
	})
	if o.framing == "" {
		o.framing = rpc.FramingAuto
	}
	logger := zerolog.Nop()
	if o.log != nil {
		logger = zerolog.New(o.log)
	}
	host := session.NewHost(session.HostConfig{Models: o.models})
	host.Adopt(&session.Opened{Supervisor: sup})
	server := rpc.NewServer(rpc.Options{Host: host, Writer: writer, In: inR, Framing: o.framing, MaxMessageBytes: o.max, Logger: logger, Version: "test", MCP: o.mcp, FinishOnEOF: o.finishOnEOF})
	p := &peer{t: t, in: inW, out: bufio.NewReader(outR), model: model, sup: sup, server: server, lines: make(chan []byte, 1024)}
	server.Serve(context.Background())
	p.done = server.InputClosed()
	go p.readLoop(o.framing == rpc.FramingLSP || o.readLSP)
	t.Cleanup(func() {
		_ = inW.Close()
		<-p.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sup.Shutdown(ctx)
		server.CancelAll()
		server.AwaitReplies(time.Second)
		server.Close()
		writer.Close(time.Second)
		_ = outW.Close()
	})
	return p
}

func (p *peer) readLoop(lsp bool) {
	defer close(p.lines)
	for {
		var msg []byte
		if lsp {
			var n int
			for {
				line, err := p.out.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				_, _ = fmt.Sscanf(line, "Content-Length: %d", &n)
			}
			msg = make([]byte, n)
			if _, err := io.ReadFull(p.out, msg); err != nil {
				return
			}
		} else {
			line, err := p.out.ReadBytes('\n')
			if err != nil {
				return
			}
			msg = line[:len(line)-1]
		}
		p.lines <- msg
	}
}

// send writes raw bytes to the server's stdin.
func (p *peer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// next returns the next message the server wrote, decoded.
func (p *peer) next() map[string]any {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("server output ended")
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			var arr []any
			if err2 := json.Unmarshal(line, &arr); err2 == nil {
				return map[string]any{"batch": arr, "raw": string(line)}
			}
			p.t.Fatalf("server wrote non-JSON %q: %v", line, err)
		}
		m["raw"] = string(line)
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message from the server within 10 s")
	}
	return nil
}

// nextResponse skips events until a response (or batch) arrives.
func (p *peer) nextResponse() map[string]any {
	p.t.Helper()
	for {
		m := p.next()
		if m["method"] == "event" {
			continue
		}
		return m
	}
}

// call sends a request and returns its response, skipping events.
func (p *peer) call(method string, params any) map[string]any {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	data, _ := json.Marshal(req)
	p.send(string(data) + "\n")
	resp := p.nextResponse()
	if resp["id"] != float64(id) {
		p.t.Fatalf("response id %v, want %d: %s", resp["id"], id, resp["raw"])
	}
	return resp
}

// untilEvent reads messages until an event of type typ, returning everything read.
func (p *peer) untilEvent(typ string) []map[string]any {
	p.t.Helper()
	var out []map[string]any
	for {
		m := p.next()
		out = append(out, m)
		if m["method"] == "event" && m["params"].(map[string]any)["type"] == typ {
			return out
		}
	}
}

func eventType(m map[string]any) string {
	if m["method"] != "event" {
		return ""
	}
	return m["params"].(map[string]any)["type"].(string)
}
