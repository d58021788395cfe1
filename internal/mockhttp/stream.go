package mockhttp

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// Pacing is the part of a scripted response that shapes its stream: stall or drop before the
// data event that would exceed a count, a pause before each data event (ChunkDelayMs), and a
// rate (ChunkIntervalUs).
type Pacing struct {
	StallAfter, DropAfter, ChunkDelayMs int
	// ChunkIntervalUs, when positive, writes data event k (from 0) no earlier than k times
	// this many microseconds after the first: a steady rate, as a model streams tokens, that
	// a late event does not slow down (the next ones catch up) and that can be finer than
	// the timer's granularity on average.
	ChunkIntervalUs int
}

// Head is what a scripted response says before (or instead of) its stream.
type Head struct {
	Headers            map[string]string
	RetryAfter         string
	StallBeforeHeaders bool
	Status             int
	// WriteError, when set, writes the provider's error body with the status (500 when
	// Status is 0) instead of a stream.
	WriteError  func(w http.ResponseWriter, status int)
	Body        string
	ContentType string
	KeepAlive   string
}

// Stream writes one scripted response and applies its faults.
type Stream struct {
	w       http.ResponseWriter
	r       *http.Request
	rc      *http.ResponseController
	rec     *Request
	release chan struct{}
	pace    Pacing
	note    func(time.Duration)
	events  int
	// first is when the first data event was written (ChunkIntervalUs' schedule).
	first time.Time
}

// Open writes the head: headers, an optional stall before them, then either the error body
// or the plain body (false: nothing more to stream), or the event-stream head, flushed, and
// the keep-alive comment (true: the caller streams its events).
func (st *Stream) Open(h Head) bool {
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
	if h.WriteError != nil {
		if status == 0 {
			status = http.StatusInternalServerError
		}
		h.WriteError(st.w, status)
		return false
	}
	if status == 0 {
		status = http.StatusOK
	}
	if h.Body != "" || status >= 400 {
		st.w.Header().Set("Content-Type", or(h.ContentType, "text/plain; charset=utf-8"))
		st.w.WriteHeader(status)
		_, _ = st.w.Write([]byte(h.Body))
		return false
	}
	st.rc = http.NewResponseController(st.w)
	st.w.Header().Set("Content-Type", or(h.ContentType, "text/event-stream; charset=utf-8"))
	st.w.Header().Set("Cache-Control", "no-cache")
	st.w.WriteHeader(status)
	if !st.Flush() {
		return false
	}
	return h.KeepAlive == "" || st.Write(": "+h.KeepAlive+"\n\n", false)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Write sends bytes and flushes. Data events are counted for DropAfter and StallAfter, which
// apply before the event that would exceed them, and are paced by ChunkDelayMs and
// ChunkIntervalUs. False means
// the stream is over (the client went away, or a fault ended it).
func (st *Stream) Write(s string, data bool) bool {
	if data {
		if n := st.pace.StallAfter; n > 0 && st.events == n && !st.Stall() {
			return false
		}
		if n := st.pace.DropAfter; n > 0 && st.events == n {
			st.drop()
			return false
		}
		if d := st.pace.ChunkDelayMs; d > 0 && !st.Sleep(time.Duration(d)*time.Millisecond) {
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
	iv := st.pace.ChunkIntervalUs
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
func (st *Stream) Stall() bool {
	select {
	case <-st.r.Context().Done():
		st.rec.markGone()
		return false
	case <-st.release:
		return true
	}
}

// Sleep pauses, noticing a client that goes away meanwhile.
func (st *Stream) Sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-st.r.Context().Done():
		st.rec.markGone()
		return false
	case <-t.C:
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
