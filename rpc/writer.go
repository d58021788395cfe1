package rpc

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// Writer owns stdout. It writes responses (and server-to-client requests) before any queued
// event, so a response never waits behind events, and events in seq order. It implements
// [session.Sink]: Emit gives the event its seq (one gap-free counter for the connection),
// encodes it and never blocks; Wait blocks the run goroutine while more than the limit of
// event bytes is queued, which is how a client that stops reading slows the agent down to the
// provider's stream without the server's memory growing.
type Writer struct {
	mu        sync.Mutex
	seq       int64
	encoder   protocol.EventEncoder
	log       zerolog.Logger
	out       io.Writer
	framing   Framing
	started   bool
	responses [][]byte
	// events is the ordered lane: events, and responses that must follow an event.
	events []item
	head   int
	bytes  int
	limit  int
	// hold > 0 keeps events back while a batch's responses are outstanding.
	hold    int
	closing bool
	err     error
	wake    chan struct{}
	room    chan struct{}
	done    chan struct{}
	broken  chan struct{}
}

// NewWriter returns a writer to out that applies backpressure above limit queued bytes of
// events. Nothing is written until Start is called with the framing.
func NewWriter(out io.Writer, limit int) *Writer {
	return &Writer{
		out:    out,
		limit:  limit,
		wake:   make(chan struct{}, 1),
		room:   make(chan struct{}),
		done:   make(chan struct{}),
		broken: make(chan struct{}),
	}
}

// Start starts writing with the framing detected from the input.
func (w *Writer) Start(f Framing) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return
	}
	w.started = true
	w.framing = f
	go w.loop()
}

// item is one entry of the ordered lane: an event, or a response placed after one.
type item struct {
	seq  int64
	data []byte
	resp []byte
}

// Response queues a response or server-to-client request ahead of all events.
func (w *Writer) Response(msg []byte) {
	w.mu.Lock()
	w.responses = append(w.responses, msg)
	w.mu.Unlock()
	w.signal()
}

// SetPartialMessages makes message_update events carry the whole partial message.
func (w *Writer) SetPartialMessages(on bool) {
	w.mu.Lock()
	w.encoder.PartialMessages = on
	w.mu.Unlock()
}

// SetEverySessionID makes every event carry sessionId (the connection has several sessions).
func (w *Writer) SetEverySessionID(on bool) {
	w.mu.Lock()
	w.encoder.EverySessionID = on
	w.mu.Unlock()
}

// EverySessionID reports whether every event carries sessionId.
func (w *Writer) EverySessionID() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.encoder.EverySessionID
}

// SetLogger sets the logger for events that cannot be encoded.
func (w *Writer) SetLogger(log zerolog.Logger) {
	w.mu.Lock()
	w.log = log
	w.mu.Unlock()
}

// Emit implements [session.Sink]: the event gets the next seq and is encoded now, while what
// it points at is valid.
func (w *Writer) Emit(ev *session.Event) int64 {
	w.mu.Lock()
	w.seq++
	ev.Seq = w.seq
	data, err := w.encoder.Append(make([]byte, 0, 128), ev)
	if err != nil {
		w.log.Error().Err(err).Str("type", ev.Type).Msg("cannot encode event")
		data, _ = w.encoder.Append(nil, &session.Event{Seq: ev.Seq, Type: session.EventSessionError, RunID: ev.RunID,
			Payload: session.SessionError{Message: "internal error encoding " + ev.Type + ": " + err.Error()}})
	}
	if w.err == nil {
		w.events = append(w.events, item{seq: ev.Seq, data: data})
		w.bytes += len(data)
	}
	seq := w.seq
	w.mu.Unlock()
	w.signal()
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

// ResponseAfter queues a response to be written just after the event with seq (the
// agent_settled a waitSettled returns): at once, ahead of other events, if that event has
// been written already.
func (w *Writer) ResponseAfter(msg []byte, seq int64) {
	w.mu.Lock()
	at := -1
	for i := w.head; i < len(w.events); i++ {
		switch {
		case w.events[i].resp == nil && w.events[i].seq <= seq:
			at = i
		case w.events[i].resp != nil && at == i-1:
			at = i // after responses already placed behind the same event, in order
		}
	}
	if at < 0 {
		w.responses = append(w.responses, msg)
	} else {
		w.events = append(w.events, item{})
		copy(w.events[at+2:], w.events[at+1:])
		w.events[at+1] = item{resp: msg}
	}
	w.mu.Unlock()
	w.signal()
}

// Hold keeps events back until the matching Release (a batch is being answered).
func (w *Writer) Hold() {
	w.mu.Lock()
	w.hold++
	w.mu.Unlock()
}

// Release ends one Hold.
func (w *Writer) Release() {
	w.mu.Lock()
	w.hold--
	w.mu.Unlock()
	w.signal()
}

// Broken is closed when a write fails (the client closed stdout).
func (w *Writer) Broken() <-chan struct{} { return w.broken }

// Close writes what is queued, for at most timeout, then stops.
func (w *Writer) Close(timeout time.Duration) {
	w.mu.Lock()
	w.closing = true
	started := w.started
	close(w.room)
	w.room = make(chan struct{})
	w.mu.Unlock()
	if !started {
		return
	}
	w.signal()
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
}

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// next takes the next message to write: a response first, else an event unless held. It
// reports false when the writer is closing and nothing is left.
func (w *Writer) next() (msg []byte, isEvent, ok bool) {
	for {
		w.mu.Lock()
		if len(w.responses) > 0 {
			msg = w.responses[0]
			w.responses[0] = nil
			w.responses = w.responses[1:]
			w.mu.Unlock()
			return msg, false, true
		}
		if w.head < len(w.events) && w.hold == 0 {
			it := w.events[w.head]
			w.events[w.head] = item{}
			w.head++
			if w.head == len(w.events) {
				w.events, w.head = w.events[:0], 0
			}
			w.mu.Unlock()
			if it.resp != nil {
				return it.resp, false, true
			}
			w.mu.Lock()
			w.bytes -= len(it.data)
			if w.bytes <= w.limit {
				close(w.room)
				w.room = make(chan struct{})
			}
			w.mu.Unlock()
			return it.data, true, true
		}
		closing := w.closing
		w.mu.Unlock()
		if closing {
			return nil, false, false
		}
		<-w.wake
	}
}

// pending reports whether anything is ready to write.
func (w *Writer) pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.responses) > 0 || (w.head < len(w.events) && w.hold == 0)
}

var eventPrefix = []byte(`{"jsonrpc":"2.0","method":"event","params":`)

func (w *Writer) loop() {
	defer close(w.done)
	bw := bufio.NewWriterSize(w.out, 64<<10)
	var scratch, scratchHeader []byte
	for {
		msg, isEvent, ok := w.next()
		if !ok {
			_ = bw.Flush()
			return
		}
		if isEvent {
			scratch = append(append(scratch[:0], eventPrefix...), msg...)
			scratch = append(scratch, '}')
			msg = scratch
		}
		var err error
		if w.framing == FramingLSP {
			scratchHeader = lspHeader(scratchHeader[:0], len(msg))
			_, err = bw.Write(scratchHeader)
			if err == nil {
				_, err = bw.Write(msg)
			}
		} else if _, err = bw.Write(msg); err == nil {
			err = bw.WriteByte('\n')
		}
		if err == nil && !w.pending() {
			err = bw.Flush()
		}
		if err != nil {
			w.fail(err)
			return
		}
	}
}

// fail records a write error: from then on nothing is written and nobody waits for room.
func (w *Writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.err = err
	w.events, w.head, w.bytes = nil, 0, 0
	close(w.room)
	w.room = make(chan struct{})
	close(w.broken)
}
