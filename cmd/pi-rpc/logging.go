package main

import (
	"fmt"
	"io"
	stdlog "log"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// asyncWriter gives log lines to a background goroutine through a bounded buffer, so that a
// client that never reads stderr can never stall the agent: when the buffer is full, lines
// are dropped and counted, and the count is reported once there is room again.
type asyncWriter struct {
	mu      sync.Mutex
	buf     []byte
	limit   int
	dropped atomic.Int64
	wake    chan struct{}
	out     io.Writer
	done    chan struct{}
	closed  bool
}

func newAsyncWriter(out io.Writer, limit int) *asyncWriter {
	w := &asyncWriter{out: out, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *asyncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed || len(w.buf)+len(p) > w.limit {
		w.mu.Unlock()
		w.dropped.Add(1)
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *asyncWriter) loop() {
	defer close(w.done)
	for {
		w.mu.Lock()
		chunk := w.buf
		w.buf = nil
		closed := w.closed
		w.mu.Unlock()
		if len(chunk) > 0 {
			_, _ = w.out.Write(chunk)
		}
		if n := w.dropped.Swap(0); n > 0 {
			_, _ = fmt.Fprintf(w.out, `{"level":"warn","message":"%d log lines dropped: stderr is not being read"}`+"\n", n)
		}
		if closed {
			return
		}
		if len(chunk) == 0 {
			<-w.wake
		}
	}
}

// Close flushes what is buffered (the caller bounds the wait).
func (w *asyncWriter) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	<-w.done
}

// logLevel is the level --log-level names. Without the flag it is info, except in ACP mode
// logging to stderr, where it is warn: editors show what an agent writes on stderr as its
// errors (Emacs's acp.el shows each chunk to the user), so a healthy ACP agent writes
// nothing there; --log-file or --log-level brings the info lines back (docs/editors.md).
func logLevel(c *config) zerolog.Level {
	name := c.logLevel
	if c.protocol == protocolACP && !c.logLevelSet && c.logFile == "" {
		name = "warn"
	}
	level, _ := zerolog.ParseLevel(strings.ToLower(name))
	return level
}

// newLogger builds the process logger: JSON lines to --log-file, or to stderr through an
// asyncWriter. It never writes to stdout.
func newLogger(c *config, stderr io.Writer) (zerolog.Logger, func(), error) {
	level := logLevel(c)
	if c.logFile != "" {
		f, err := os.OpenFile(c.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return zerolog.Nop(), func() {}, fmt.Errorf("--log-file: %w", err)
		}
		return zerolog.New(f).Level(level).With().Timestamp().Logger(), func() { _ = f.Close() }, nil
	}
	w := newAsyncWriter(stderr, 256<<10)
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), w.Close, nil
}

// captureLibraryLog sends what libraries print with the standard log package (Google's genai
// SDK does: "Error unexpected EOF" on a dropped stream, a notice about which key variable it
// saw, which pi-rpc does not use) to log at debug, one event a line, instead of raw lines on
// stderr that an editor would show as agent errors. It returns the function that undoes it.
func captureLibraryLog(log zerolog.Logger) func() {
	prevOut, prevFlags := stdlog.Writer(), stdlog.Flags()
	stdlog.SetFlags(0)
	stdlog.SetOutput(libraryLogWriter{log})
	return func() {
		stdlog.SetOutput(prevOut)
		stdlog.SetFlags(prevFlags)
	}
}

// libraryLogWriter is the standard logger's output: each Write is one line of a library's.
type libraryLogWriter struct{ log zerolog.Logger }

func (w libraryLogWriter) Write(p []byte) (int, error) {
	w.log.Debug().Str("source", "library").Msg(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
