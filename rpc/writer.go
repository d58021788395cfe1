package rpc

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Writer is the connection's outbox in this protocol's dialect, over internal/transport's
// writer, which owns stdout: responses (and server-to-client requests) go ahead of any
// queued event, so a response never waits behind events, and events go in seq order. It
// implements [sessionapi.Sink]: Emit gives the event its seq (one gap-free counter for the
// connection), encodes it in its "event" notification and never blocks; Wait blocks the
// run goroutine while more than the limit of event bytes is queued, which is how a client
// that stops reading slows the agent down to the provider's stream without the server's
// memory growing.
type Writer struct {
	seq transport.Sequence
	// mu guards the encoder, last and log.
	mu      sync.Mutex
	encoder protocol.EventEncoder
	// last is the size of the last event notification: the next one's buffer is made that
	// big (and a little more, up to maxEventHint), since consecutive events are mostly deltas
	// of about one size, so encoding it rarely grows (copies) its buffer.
	last int
	log  zerolog.Logger
	out  *transport.Writer
}

// NewWriter returns a writer to out that applies backpressure above limit queued bytes of
// events. Nothing is written until Start is called with the framing.
func NewWriter(out io.Writer, limit int) *Writer {
	return &Writer{out: transport.NewWriter(out, limit)}
}

// Start starts writing with the framing detected from the input.
func (w *Writer) Start(f Framing) { w.out.Start(f) }

// Response queues a response or server-to-client request ahead of all events.
func (w *Writer) Response(msg []byte) { w.out.Response(msg) }

// ResponseBody is Response for a response that writes itself (a getEntries answer).
func (w *Writer) ResponseBody(b transport.Body) { w.out.ResponseBody(b) }

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

// maxEventHint bounds the buffer an event gets from the size of the one before: a small
// event after a large one (a delta after a message_end, a tool's output) must not hold a
// large buffer while it waits in the queue, whose limit counts bytes written, not capacity.
const maxEventHint = 1 << 10

// eventPrefix and eventSuffix make an encoded event an "event" notification.
var (
	eventPrefix = []byte(`{"jsonrpc":"2.0","method":"event","params":`)
	eventSuffix = byte('}')
)

// Emit implements [sessionapi.Sink]: the event gets the next seq and is encoded now, while what
// it points at is valid.
func (w *Writer) Emit(ev *sessionapi.Event) int64 {
	return w.seq.Next(func(seq int64) {
		ev.Seq = seq
		w.mu.Lock()
		defer w.mu.Unlock()
		size := max(min(w.last, maxEventHint)+16, 128+len(eventPrefix))
		data, err := w.encoder.Append(append(make([]byte, 0, size), eventPrefix...), ev)
		if err != nil {
			w.log.Error().Err(err).Str("type", ev.Type).Msg("cannot encode event")
			data, _ = w.encoder.Append(append([]byte(nil), eventPrefix...), &sessionapi.Event{Seq: ev.Seq, Type: sessionapi.EventSessionError, RunID: ev.RunID,
				Payload: sessionapi.SessionError{Message: "internal error encoding " + ev.Type + ": " + err.Error()}})
		}
		data = append(data, eventSuffix)
		w.last = len(data)
		w.out.Event(seq, data)
	})
}

// LastSeq implements [sessionapi.Sink].
func (w *Writer) LastSeq() int64 { return w.seq.Last() }

// Wait implements [sessionapi.Sink].
func (w *Writer) Wait(ctx context.Context) { w.out.Wait(ctx) }

// ResponseAfter queues a response to be written just after the event with seq (the
// agent_settled a waitSettled returns): at once, ahead of other events, if that event has
// been written already.
func (w *Writer) ResponseAfter(msg []byte, seq int64) { w.out.ResponseAfter(msg, seq) }

// ResponseBodyAfter is ResponseAfter for a response that writes itself.
func (w *Writer) ResponseBodyAfter(b transport.Body, seq int64) { w.out.ResponseBodyAfter(b, seq) }

// After queues a message just after the event with seq, keeping its place among the events
// (and held with them) once that event has been written: the $/cancelRequest of an abort,
// which follows the abort's response.
func (w *Writer) After(msg []byte, seq int64) { w.out.After(msg, seq) }

// Hold keeps events back until the matching Release (a batch is being answered).
func (w *Writer) Hold() { w.out.Hold() }

// Release ends one Hold.
func (w *Writer) Release() { w.out.Release() }

// Broken is closed when a write fails (the client closed stdout).
func (w *Writer) Broken() <-chan struct{} { return w.out.Broken() }

// Close writes what is queued, for at most timeout, then stops.
func (w *Writer) Close(timeout time.Duration) { w.out.Close(timeout) }
