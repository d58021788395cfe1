package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// written queues with fill on a writer that is not started yet (so nothing is written
// while the test queues), then starts it, closes it and returns what it wrote.
func written(t *testing.T, f Framing, fill func(w *Writer)) string {
	t.Helper()
	var out testkit.Buffer
	w := NewWriter(&out, 1<<20)
	fill(w)
	w.Start(f)
	w.Close(time.Minute)
	return out.String()
}

// Responses go ahead of the ordered lane; the ordered lane keeps its order, events and
// other messages alike.
func TestWriterLanes(t *testing.T) {
	got := written(t, NDJSON, func(w *Writer) {
		w.Event(1, []byte("e1"))
		w.Send([]byte("s"))
		w.Event(2, []byte("e2"))
		w.Response([]byte("r1"))
		w.Response([]byte("r2"))
	})
	if want := "r1\nr2\ne1\ns\ne2\n"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
}

// A response placed after an event follows it, after what was placed behind it before; one
// placed after an event already written goes ahead of the queued events.
func TestWriterResponseAfter(t *testing.T) {
	got := written(t, NDJSON, func(w *Writer) {
		w.Event(3, []byte("e3"))
		w.Event(4, []byte("e4"))
		w.Event(6, []byte("e6"))
		w.ResponseAfter([]byte("a4"), 4)
		w.ResponseAfter([]byte("b4"), 5) // no event 5: after the last one before it
		w.ResponseAfter([]byte("c6"), 6)
		w.ResponseAfter([]byte("early"), 2)
	})
	if want := "early\ne3\ne4\na4\nb4\ne6\nc6\n"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
}

// After places a message like ResponseAfter, but with nothing queued to follow it stays in
// the ordered lane, held with it: an abort's $/cancelRequest comes after the abort's response.
func TestWriterAfter(t *testing.T) {
	got := written(t, NDJSON, func(w *Writer) {
		w.Hold()
		w.Event(1, []byte("e1"))
		w.After([]byte("after1"), 1)
		w.Event(2, []byte("e2"))
		w.After([]byte("after0"), 0)
		w.Response([]byte("resp"))
		w.Release()
	})
	if want := "resp\ne1\nafter1\ne2\nafter0\n"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
}

// Hold keeps the ordered lane back (responses still go); Release lets it go.
func TestWriterHold(t *testing.T) {
	got := written(t, NDJSON, func(w *Writer) {
		w.Hold()
		w.Event(1, []byte("e1"))
		w.Response([]byte("r"))
	})
	if want := "r\n"; got != want {
		t.Fatalf("held: written %q, want %q", got, want)
	}
	got = written(t, NDJSON, func(w *Writer) {
		w.Hold()
		w.Event(1, []byte("e1"))
		w.Release()
	})
	if want := "e1\n"; got != want {
		t.Fatalf("released: written %q, want %q", got, want)
	}
}

func TestWriterContentLength(t *testing.T) {
	got := written(t, ContentLength, func(w *Writer) {
		w.Response([]byte(`{"a":1}`))
		w.Event(1, []byte(`{}`))
	})
	if want := "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
}

// Nothing is written before Start, everything is flushed when nothing more is ready (the
// client reads each message without the writer being closed), and messages queued after
// Close are dropped.
func TestWriterFlushesAndCloses(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWriter(pw, 1<<20)
	w.Response([]byte("first"))
	w.Start(NDJSON)
	r := bufio.NewReader(pr)
	for _, want := range []string{"first", "second", "third"} {
		if want != "first" {
			w.Event(1, []byte(want))
		}
		line, err := r.ReadString('\n')
		if err != nil || line != want+"\n" {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
	}
	w.Close(time.Minute)
	w.Response([]byte("late"))
	w.Event(2, []byte("late"))
	_ = pw.Close()
	if rest, _ := io.ReadAll(r); len(rest) != 0 {
		t.Fatalf("written after Close: %q", rest)
	}
}

// gate is an output whose writes wait until the test opens it.
type gate struct {
	open chan struct{}
	out  testkit.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	return g.out.Write(p)
}

// blockedWait calls w.Wait on a goroutine and checks, once every goroutine of the bubble is
// idle (synctest.Wait), that it has not returned, failing with msg if it has; the channel
// closes when it returns.
func blockedWait(t *testing.T, w *Writer, msg string) <-chan struct{} {
	t.Helper()
	waited := make(chan struct{})
	go func() {
		w.Wait(context.Background())
		close(waited)
	}()
	synctest.Wait()
	select {
	case <-waited:
		t.Fatal(msg)
	default:
	}
	return waited
}

// Wait blocks while more than the limit is queued and returns once the client has read
// enough; it does not block at or under the limit.
func TestWriterBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gate{open: make(chan struct{})}
		w := NewWriter(g, 10)
		w.Start(NDJSON)
		w.Event(1, []byte(strings.Repeat("a", 20))) // taken by the loop, which blocks on the gate
		synctest.Wait()
		w.Wait(context.Background()) // nothing queued: does not block
		w.Event(2, []byte(strings.Repeat("b", 20)))
		waited := blockedWait(t, w, "Wait returned with 20 bytes queued over a limit of 10")
		close(g.open)
		<-waited
		w.Close(time.Minute)
		if got, want := g.out.String(), strings.Repeat("a", 20)+"\n"+strings.Repeat("b", 20)+"\n"; got != want {
			t.Fatalf("written %q, want %q", got, want)
		}
	})
}

// Wait ends with its context.
func TestWriterWaitContext(t *testing.T) {
	w := NewWriter(io.Discard, 1) // not started: nothing drains
	w.Event(1, []byte("abc"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.Wait(ctx)
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A failed write closes Broken, releases waiters and drops what is queued and what comes.
func TestWriterBroken(t *testing.T) {
	w := NewWriter(failing{}, 1)
	w.Event(1, []byte("abc"))
	w.Start(NDJSON)
	<-w.Broken()
	w.Event(2, []byte("more than the limit"))
	w.Wait(context.Background()) // does not block: the client is gone
	w.Close(time.Minute)
}
