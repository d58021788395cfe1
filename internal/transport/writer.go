package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// writeBuffer is the size of the output buffer; the writer flushes when nothing more is
// ready, or when the buffer fills.
const writeBuffer = 64 << 10

// Writer owns the client's stream: every outbound byte goes through it, written by its one
// goroutine. It has two lanes:
//
//   - the response lane ([Writer.Response]), written ahead of anything in the ordered lane,
//     so a response never waits behind queued events;
//   - the ordered lane ([Writer.Event], [Writer.Send], [Writer.ResponseAfter]), written in
//     the order queued, which [Writer.Hold] keeps back while a batch is being answered.
//
// Queueing never blocks. [Writer.Wait] blocks its caller while more than the limit of bytes
// waits in the ordered lane; that is the backpressure a producer (an agent's run) applies
// to itself so that a client that stops reading slows it down instead of growing memory.
// After the first failed write nothing more is written, nobody waits for room, and
// [Writer.Broken] is closed. Messages queued after [Writer.Close] are dropped.
//
// A message is bytes, or a [Body] that writes itself when its turn comes (a response of
// megabytes that is never built whole); both take the same places in the lanes.
type Writer struct {
	mu      sync.Mutex
	out     io.Writer
	framing Framing
	started bool

	responses []message
	ordered   []item
	head      int
	// bytes is the size of the ordered lane's messages not yet written.
	bytes int
	limit int
	// hold > 0 keeps the ordered lane back (a batch's responses are outstanding).
	hold int
	// waiting is set when a Wait is blocked on room, so that the loop announces room only
	// when someone listens.
	waiting bool
	closing bool
	err     error

	wake   chan struct{}
	room   chan struct{}
	done   chan struct{}
	broken chan struct{}
}

// item is one message of the ordered lane: an event (seq > 0) or another message (seq 0)
// that keeps its place among them.
type item struct {
	seq int64
	message
}

// message is one outbound message: its bytes, or (body not nil) a Body that writes them.
type message struct {
	data []byte
	body Body
}

// size is the message's length in bytes.
func (m message) size() int {
	if m.body != nil {
		return m.body.Size()
	}
	return len(m.data)
}

// NewWriter returns a writer to out that applies backpressure above limit bytes queued in
// the ordered lane. Nothing is written until [Writer.Start].
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

// Start starts writing, framing each message as f says (NDJSON: the message and LF;
// Content-Length: the header block and the message). Later calls do nothing.
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

// Response queues msg ahead of the ordered lane, after the responses queued before it.
func (w *Writer) Response(msg []byte) { w.response(message{data: msg}) }

// ResponseBody is [Writer.Response] for a message that writes itself.
func (w *Writer) ResponseBody(b Body) { w.response(message{body: b}) }

func (w *Writer) response(m message) {
	w.mu.Lock()
	if w.accepting() {
		w.responses = append(w.responses, m)
	}
	w.mu.Unlock()
	w.signal()
}

// Event queues the event with seq at the end of the ordered lane. Events must be queued in
// seq order: the caller assigns seq and calls Event under one lock of its own.
func (w *Writer) Event(seq int64, msg []byte) {
	w.mu.Lock()
	w.pushLocked(item{seq: seq, message: message{data: msg}})
	w.mu.Unlock()
	w.signal()
}

// Send queues msg at the end of the ordered lane: after everything queued so far, events
// and responses alike (a protocol whose one stream is in the order things happen).
func (w *Writer) Send(msg []byte) {
	w.mu.Lock()
	w.pushLocked(item{message: message{data: msg}})
	w.mu.Unlock()
	w.signal()
}

// ResponseAfter queues msg to be written just after the event with seq (and after the
// messages already placed behind that event); at once, ahead of other events, if that
// event has been written already, but still after the messages at the head of the lane that
// were placed behind an event already written (a permission request whose event is out but
// which is not, and the $/cancelRequest that must follow it).
func (w *Writer) ResponseAfter(msg []byte, seq int64) {
	w.placeAfter(message{data: msg}, seq, true)
}

// ResponseBodyAfter is [Writer.ResponseAfter] for a message that writes itself.
func (w *Writer) ResponseBodyAfter(b Body, seq int64) { w.placeAfter(message{body: b}, seq, true) }

// After queues msg just after the event with seq as ResponseAfter does, but when that event
// has been written it joins the end of the ordered lane instead of the response lane: it
// keeps its place among the events and is held with them. For a message a request causes
// that must follow the request's own response, such as the $/cancelRequest of an abort
// (the abort's handler holds the lane until its response is queued).
func (w *Writer) After(msg []byte, seq int64) { w.placeAfter(message{data: msg}, seq, false) }

func (w *Writer) placeAfter(msg message, seq int64, respond bool) {
	w.mu.Lock()
	if !w.accepting() {
		w.mu.Unlock()
		return
	}
	at := w.head - 1 // the item msg goes after; below head: none (everything is written)
	for i := w.head; i < len(w.ordered); i++ {
		switch {
		case w.ordered[i].seq > 0 && w.ordered[i].seq <= seq:
			at = i
		case w.ordered[i].seq == 0 && at == i-1:
			at = i // after responses already placed behind the same event, in order
		}
	}
	switch {
	case at < w.head && respond:
		w.responses = append(w.responses, msg)
	case at < w.head:
		w.pushLocked(item{message: msg})
	default:
		w.ordered = append(w.ordered, item{})
		copy(w.ordered[at+2:], w.ordered[at+1:])
		w.ordered[at+1] = item{message: msg}
		w.bytes += msg.size()
	}
	w.mu.Unlock()
	w.signal()
}

func (w *Writer) pushLocked(it item) {
	if !w.accepting() {
		return
	}
	w.ordered = append(w.ordered, it)
	w.bytes += it.size()
}

// accepting reports whether new messages are queued (not after a failed write or Close).
// The caller holds w.mu.
func (w *Writer) accepting() bool { return w.err == nil && !w.closing }

// Hold keeps the ordered lane back until the matching [Writer.Release]; responses are
// still written.
func (w *Writer) Hold() {
	w.mu.Lock()
	w.hold++
	w.mu.Unlock()
}

// Release ends one [Writer.Hold].
func (w *Writer) Release() {
	w.mu.Lock()
	w.hold--
	w.mu.Unlock()
	w.signal()
}

// Wait blocks while more than the limit of bytes waits in the ordered lane, until ctx ends,
// the writer fails or closes.
func (w *Writer) Wait(ctx context.Context) {
	for {
		w.mu.Lock()
		if w.bytes <= w.limit || w.err != nil || w.closing {
			w.mu.Unlock()
			return
		}
		w.waiting = true
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return
		}
	}
}

// Broken is closed when a write fails (the client closed its end).
func (w *Writer) Broken() <-chan struct{} { return w.broken }

// Close writes what is queued, for at most timeout, then stops; messages queued from now on
// are dropped. Waiters are released at once.
func (w *Writer) Close(timeout time.Duration) {
	w.mu.Lock()
	w.closing = true
	started := w.started
	w.announceRoomLocked()
	w.mu.Unlock()
	if !started {
		return
	}
	w.signal()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
	}
}

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// announceRoomLocked wakes the callers of Wait. The caller holds w.mu.
func (w *Writer) announceRoomLocked() {
	close(w.room)
	w.room = make(chan struct{})
	w.waiting = false
}

// next takes the next message to write: a response first, else the ordered lane's next
// unless held. more reports whether another message is ready after it (the loop flushes
// when none is). It reports ok false when the writer is closing and nothing is left.
func (w *Writer) next() (msg message, more, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		switch {
		case len(w.responses) > 0:
			msg = w.responses[0]
			w.responses[0] = message{}
			w.responses = w.responses[1:]
			return msg, w.readyLocked(), true
		case w.head < len(w.ordered) && w.hold == 0:
			it := w.ordered[w.head]
			w.ordered[w.head] = item{}
			w.head++
			if w.head == len(w.ordered) {
				w.ordered, w.head = w.ordered[:0], 0
			}
			w.bytes -= it.size()
			if w.waiting && w.bytes <= w.limit {
				w.announceRoomLocked()
			}
			return it.message, w.readyLocked(), true
		case w.closing:
			return message{}, false, false
		}
		w.mu.Unlock()
		<-w.wake
		w.mu.Lock()
	}
}

// ready reports whether a message is ready to write.
func (w *Writer) ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readyLocked()
}

// readyLocked reports whether a message is ready to write. The caller holds w.mu.
func (w *Writer) readyLocked() bool {
	return len(w.responses) > 0 || (w.head < len(w.ordered) && w.hold == 0)
}

func (w *Writer) loop() {
	defer close(w.done)
	bw := bufio.NewWriterSize(w.out, writeBuffer)
	var header []byte
	for {
		msg, more, ok := w.next()
		if !ok {
			_ = bw.Flush()
			return
		}
		var err error
		if w.framing == ContentLength {
			header = AppendHeader(header[:0], msg.size())
			if _, err = bw.Write(header); err == nil {
				err = writeMessage(bw, msg, true)
			}
		} else if err = writeMessage(bw, msg, false); err == nil {
			err = bw.WriteByte('\n')
		}
		if err == nil && !more && !w.ready() {
			err = bw.Flush()
		}
		if err != nil {
			w.fail(err)
			return
		}
	}
}

// writeMessage writes m's bytes to bw. When exact, a body that writes another number of
// bytes than its Size is an error: a Content-Length header has announced that size, and the
// client could not find the next message.
func writeMessage(bw *bufio.Writer, m message, exact bool) error {
	if m.body == nil {
		_, err := bw.Write(m.data)
		return err
	}
	n, err := m.body.WriteTo(bw)
	if err == nil && exact && n != int64(m.body.Size()) {
		err = fmt.Errorf("transport: a message wrote %d bytes after a header of %d", n, m.body.Size())
	}
	return err
}

// fail records a write error: from then on nothing is written and nobody waits for room.
func (w *Writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	w.responses, w.ordered, w.head, w.bytes = nil, nil, 0, 0
	w.announceRoomLocked()
	close(w.broken)
}
