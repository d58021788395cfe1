package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
)

// In-process equivalents of scenario 7, for profiling what the real binary does there:
//
//	go test ./bench -run '^$' -bench Session -benchmem -cpuprofile cpu.prof -memprofile mem.prof

func benchSession(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "session.jsonl")
	if err := writeSession(path, filepath.Dir(path), sessionEntries); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkSessionOpen is --session's work before the first answer: read the file into a store
// and build the supervisor (which projects the branch into the agent's context).
func BenchmarkSessionOpen(b *testing.B) {
	path := benchSession(b)
	for b.Loop() {
		st, err := session.OpenInMemory(path, session.FileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		model := faux.New()
		sup := session.New(session.Config{
			Agent: core.Options{Provider: model, Model: model.Model()},
			Store: st, Sink: rpc.NewWriter(io.Discard, 1<<20),
			Retry: session.DefaultRetrySettings(), Compaction: session.DefaultCompactionSettings(),
		})
		_ = sup.Shutdown(context.Background())
	}
}

// BenchmarkSessionGetEntries is one getEntries of the whole 10,000-entry branch through the
// JSON-RPC server in process, request in and response line out over pipes.
func BenchmarkSessionGetEntries(b *testing.B) {
	path := benchSession(b)
	st, err := session.OpenInMemory(path, session.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	writer := rpc.NewWriter(outW, 1<<20)
	model := faux.New()
	sup := session.New(session.Config{
		Agent: core.Options{Provider: model, Model: model.Model()},
		Store: st, Sink: writer,
		Retry: session.DefaultRetrySettings(), Compaction: session.DefaultCompactionSettings(),
	})
	host := session.NewHost(session.HostConfig{})
	host.Adopt(&session.Opened{Supervisor: sup})
	server := rpc.NewServer(rpc.Options{Host: host, Writer: writer, In: inR, Framing: rpc.FramingNDJSON, Logger: zerolog.Nop(), Version: "bench"})
	server.Serve(context.Background())
	out := bufio.NewReaderSize(outR, 1<<20)
	b.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, out) }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sup.Shutdown(ctx)
		server.CancelAll()
	})
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"getEntries"}` + "\n")
	var size int
	for b.Loop() {
		if _, err := inW.Write(req); err != nil {
			b.Fatal(err)
		}
		n, err := skipLine(out)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	b.SetBytes(int64(size))
}

// skipLine reads one line from r and returns its length, keeping none of it, so that the
// benchmark's allocations are the server's.
func skipLine(r *bufio.Reader) (int, error) {
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}
