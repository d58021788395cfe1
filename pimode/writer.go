package pimode

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/session"
)

// Writer owns stdout in pi mode. pi writes every record in the order it happens, responses
// and events on one stream, and its clients rely on that order (the prompt response before
// agent_start, queue_update before the steer response, the abort response after agent_end),
// so the writer has a single ordered lane: a response queued while the engine holds its lock
// (inside an ack) lands exactly between the events around it.
//
// It implements [session.Sink]: Emit gives the event its seq, encodes it in pi's shape and
// never blocks; Wait blocks the run goroutine while more than the limit of bytes is queued,
// which slows the agent down to the client's reading speed.
type Writer struct {
	mu      sync.Mutex
	seq     int64
	log     zerolog.Logger
	out     io.Writer
	queue   [][]byte
	bytes   int
	limit   int
	closing bool
	err     error
	wake    chan struct{}
	room    chan struct{}
	done    chan struct{}
	broken  chan struct{}
}

// NewWriter returns a writer to out that applies backpressure above limit queued bytes, and
// starts its goroutine.
func NewWriter(out io.Writer, limit int, log zerolog.Logger) *Writer {
	w := &Writer{
		out: out, limit: limit, log: log,
		wake:   make(chan struct{}, 1),
		room:   make(chan struct{}),
		done:   make(chan struct{}),
		broken: make(chan struct{}),
	}
	go w.loop()
	return w
}

// Emit implements [session.Sink]. Events pi has no counterpart for get their seq (the engine
// counts on it) but are not written.
func (w *Writer) Emit(ev *session.Event) int64 {
	w.mu.Lock()
	w.seq++
	ev.Seq = w.seq
	seq := w.seq
	data, err := appendEvent(make([]byte, 0, 128), ev)
	if err != nil {
		w.log.Error().Err(err).Str("type", ev.Type).Msg("cannot encode event")
		data = nil
	}
	if data != nil {
		w.pushLocked(append(data, '\n'))
	}
	w.mu.Unlock()
	if data != nil {
		w.signal()
	}
	return seq
}

// LastSeq implements [session.Sink].
func (w *Writer) LastSeq() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Wait implements [session.Sink].
func (w *Writer) Wait(ctx context.Context) {
	for {
		w.mu.Lock()
		if w.bytes <= w.limit || w.err != nil || w.closing {
			w.mu.Unlock()
			return
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return
		}
	}
}

// Write queues one record (a response or an extension UI request) after everything queued so
// far; data is a JSON object without the LF.
func (w *Writer) Write(data []byte) {
	w.mu.Lock()
	w.pushLocked(append(data, '\n'))
	w.mu.Unlock()
	w.signal()
}

func (w *Writer) pushLocked(line []byte) {
	if w.err != nil || w.closing {
		return
	}
	w.queue = append(w.queue, line)
	w.bytes += len(line)
}

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Broken is closed when a write to stdout fails (the client went away).
func (w *Writer) Broken() <-chan struct{} { return w.broken }

func (w *Writer) loop() {
	defer close(w.done)
	bw := bufio.NewWriterSize(w.out, 64<<10)
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue = nil
		n := w.bytes
		w.bytes = 0
		closing := w.closing
		if n > 0 {
			close(w.room)
			w.room = make(chan struct{})
		}
		w.mu.Unlock()
		var err error
		for _, line := range batch {
			if _, err = bw.Write(line); err != nil {
				break
			}
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			w.mu.Lock()
			w.err = err
			w.queue = nil
			w.bytes = 0
			close(w.room)
			w.room = make(chan struct{})
			w.mu.Unlock()
			close(w.broken)
			return
		}
		if len(batch) == 0 {
			if closing {
				return
			}
			<-w.wake
		}
	}
}

// Close writes what is queued (waiting at most timeout) and stops the writer; later records
// are dropped.
func (w *Writer) Close(timeout time.Duration) {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.signal()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-w.broken:
	case <-t.C:
	}
}
