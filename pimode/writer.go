package pimode

import (
	"context"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Writer is the connection's outbox in pi's dialect, over internal/transport's writer,
// which owns stdout. pi writes every record in the order it happens, responses and events
// on one stream, and its clients rely on that order (the prompt response before
// agent_start, queue_update before the steer response, the abort response after
// agent_end), so everything goes in the transport's ordered lane, in the order queued, or
// placed right after a given event ([Writer.WriteAfter]): an input's response lands before
// the events the input caused even when they were queued first.
//
// It implements [sessionapi.Sink]: Emit gives the event its seq, encodes it in pi's shape and
// never blocks; Wait blocks the run goroutine while more than the limit of bytes is queued,
// which slows the agent down to the client's reading speed.
type Writer struct {
	seq transport.Sequence
	log zerolog.Logger
	out *transport.Writer
}

// NewWriter returns a writer to out that applies backpressure above limit queued bytes, and
// starts it.
func NewWriter(out io.Writer, limit int, log zerolog.Logger) *Writer {
	w := &Writer{log: log, out: transport.NewWriter(out, limit)}
	w.out.Start(transport.NDJSON)
	return w
}

// Emit implements [sessionapi.Sink]. Events pi has no counterpart for get their seq (the engine
// counts on it) but are not written.
func (w *Writer) Emit(ev *sessionapi.Event) int64 {
	return w.seq.Next(func(seq int64) {
		ev.Seq = seq
		data, err := appendEvent(make([]byte, 0, 128), ev)
		if err != nil {
			w.log.Error().Err(err).Str("type", ev.Type).Msg("cannot encode event")
			return
		}
		if data != nil {
			w.out.Event(seq, data)
		}
	})
}

// LastSeq implements [sessionapi.Sink].
func (w *Writer) LastSeq() int64 { return w.seq.Last() }

// Wait implements [sessionapi.Sink].
func (w *Writer) Wait(ctx context.Context) { w.out.Wait(ctx) }

// Write queues one record (a response or an extension UI request) after everything queued so
// far; data is a JSON object without the LF.
func (w *Writer) Write(data []byte) { w.out.Send(data) }

// WriteAfter queues one record just after the event with seq (and the records already
// placed behind it), ahead of the events after it even when they are queued already: the
// response to an input, before the events the input causes (sessionapi.Accepted.AfterSeq).
func (w *Writer) WriteAfter(data []byte, seq int64) { w.out.ResponseAfter(data, seq) }

// Hold keeps the records not yet written back until the matching [Writer.Release] (submit:
// while an input's response is being placed among its events).
func (w *Writer) Hold() { w.out.Hold() }

// Release ends one [Writer.Hold].
func (w *Writer) Release() { w.out.Release() }

// Broken is closed when a write to stdout fails (the client went away).
func (w *Writer) Broken() <-chan struct{} { return w.out.Broken() }

// Close writes what is queued (waiting at most timeout) and stops the writer; later records
// are dropped.
func (w *Writer) Close(timeout time.Duration) { w.out.Close(timeout) }
