package mockhttp

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// Stream writes one scripted response and applies its faults.
type Stream struct {
	w       http.ResponseWriter
	r       *http.Request
	rc      *http.ResponseController
	rec     *Request
	release chan struct{}
	f       *Faults
	note    func(time.Duration)
	events  int
	// first is when the first data event was written (ChunkIntervalUs' schedule).
	first time.Time
}

// Start writes the head and, for a response scripted as a captured stream, replays it:
// true when the caller goes on to write the dialect's events. writeError, when set,
// writes the provider's error envelope for the scripted error (see [Stream.Open]).
func (st *Stream) Start(writeError func(w http.ResponseWriter, status int)) bool {
	if !st.Open(writeError) {
		return false
	}
	if st.f.SSE != "" {
		st.Replay(st.f.SSE)
		return false
	}
	return true
}

// Open writes the head: headers, an optional stall before them, then either the error
// body (writeError, when set, with the status or 500) or the plain body (false: nothing
// more to stream), or the event-stream head, flushed, and the keep-alive comment (true: the
// caller streams its events).
func (st *Stream) Open(writeError func(w http.ResponseWriter, status int)) bool {
	h := st.f
	for k, v := range h.Headers {
		st.w.Header().Set(k, v)
	}
	if h.RetryAfter != "" {
		st.w.Header().Set("Retry-After", h.RetryAfter)
	}
	if h.StallBeforeHeaders && !st.Stall() {
		return false
	}
	status := h.Status
	if writeError != nil {
		if status == 0 {
			status = http.StatusInternalServerError
		}
		writeError(st.w, status)
		return false
	}
	if status == 0 {
		status = http.StatusOK
	}
	if h.Body != "" || status >= 400 {
		WriteBody(st.w, status, Or(h.ContentType, "text/plain; charset=utf-8"), h.Body)
		return false
	}
	st.rc = http.NewResponseController(st.w)
	st.w.Header().Set("Content-Type", Or(h.ContentType, "text/event-stream; charset=utf-8"))
	st.w.Header().Set("Cache-Control", "no-cache")
	st.w.WriteHeader(status)
	if !st.Flush() {
		return false
	}
	return h.KeepAlive == "" || st.Write(": "+h.KeepAlive+"\n\n", false)
}

// Header is the response's header, for a dialect's own headers before [Stream.Start].
func (st *Stream) Header() http.Header { return st.w.Header() }

// Or is s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Write sends bytes and flushes. Data events are counted for DropAfter and StallAfter, which
// apply before the event that would exceed them, and are paced by ChunkDelayMs and
// ChunkIntervalUs. False means the stream is over (the client went away, or a fault ended
// it).
func (st *Stream) Write(s string, data bool) bool {
	if data {
		if n := st.f.StallAfter; n > 0 && st.events == n && !st.Stall() {
			return false
		}
		if n := st.f.DropAfter; n > 0 && st.events == n {
			st.drop()
			return false
		}
		if d := st.f.ChunkDelayMs; d > 0 && !st.Sleep(time.Duration(d)*time.Millisecond) {
			return false
		}
		if !st.onSchedule() {
			return false
		}
		st.events++
	}
	start := time.Now()
	_, err := st.w.Write([]byte(s))
	if err == nil {
		err = st.rc.Flush()
	}
	st.note(time.Since(start))
	if err != nil {
		st.rec.markGone()
		return false
	}
	return true
}

// onSchedule waits until the next data event is due by ChunkIntervalUs; false if the client
// went away meanwhile.
func (st *Stream) onSchedule() bool {
	iv := st.f.ChunkIntervalUs
	if iv <= 0 {
		return true
	}
	if st.events == 0 {
		st.first = time.Now()
		return true
	}
	due := st.first.Add(time.Duration(st.events) * time.Duration(iv) * time.Microsecond)
	if d := time.Until(due); d > 0 {
		return st.Sleep(d)
	}
	return true
}

// Flush flushes what is written; false if the client went away.
func (st *Stream) Flush() bool {
	if err := st.rc.Flush(); err != nil {
		st.rec.markGone()
		return false
	}
	return true
}

// Replay writes a captured stream event by event, so faults and delays still apply. An
// event counts as data when one of its lines is a data field.
func (st *Stream) Replay(sse string) {
	sse = strings.ReplaceAll(sse, "\r\n", "\n")
	for len(sse) > 0 {
		i := strings.Index(sse, "\n\n")
		ev := sse
		if i >= 0 {
			ev, sse = sse[:i+2], sse[i+2:]
		} else {
			sse = ""
		}
		if strings.TrimSpace(ev) == "" {
			continue
		}
		if !st.Write(ev, IsData(ev)) {
			return
		}
	}
}

// IsData reports whether an SSE event (or raw scripted bytes) has a data line.
func IsData(ev string) bool {
	return strings.HasPrefix(ev, "data:") || strings.Contains(ev, "\ndata:")
}

// Stall waits until the client goes away (false) or the test releases stalls (true).
func (st *Stream) Stall() bool { return await(st, st.release) }

// Sleep pauses, noticing a client that goes away meanwhile.
func (st *Stream) Sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	return await(st, t.C)
}

// await waits for c (true) or for the client to go away (false: the request is marked
// gone), whichever comes first.
func await[T any](st *Stream, c <-chan T) bool {
	select {
	case <-st.r.Context().Done():
		st.rec.markGone()
		return false
	case <-c:
		return true
	}
}

// drop closes the connection mid-stream, so the client sees its body end without the final
// chunk of the chunked encoding.
func (st *Stream) drop() {
	conn, _, err := st.rc.Hijack()
	if err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			panic(http.ErrAbortHandler)
		}
		return
	}
	_ = conn.Close()
}

// Common plays a step that every dialect's events share, when ev is one: a pause of
// delayMs, an SSE comment line ended by eol ("\n\n", or Gemini's "\r\n\r\n"), or raw bytes
// written verbatim (a data event when they hold a data line). handled is false for any
// other step; ok is false when the stream is over.
func (st *Stream) Common(delayMs int, comment, raw, eol string) (ok, handled bool) {
	switch {
	case delayMs > 0:
		return st.Sleep(time.Duration(delayMs) * time.Millisecond), true
	case comment != "":
		return st.Write(": "+comment+eol, false), true
	case raw != "":
		return st.Write(raw, IsData(raw)), true
	}
	return true, false
}
