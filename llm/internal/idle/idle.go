// Package idle holds the idle timer that every streaming provider under llm/ uses: a
// watchdog that cancels a request once the server has been silent longer than a timeout, and
// the response-body wrapper that feeds it. It counts only time spent waiting for the server:
// the provider pauses it while its consumer handles an event, so a consumer that is slow
// because its own client stopped reading never makes the provider give up.
package idle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
)

// DefaultTimeout is how long a response may stay silent before the stream fails (see
// docs/configuration.md, --idle-timeout).
const DefaultTimeout = 120 * time.Second

// ErrIdle is the cancellation cause when the idle timer fires.
var ErrIdle = errors.New("idle timeout")

// Watchdog cancels a request that has been waiting for the server longer than its timeout.
// The request goroutine arms it before sending, touches it on every body read that returns
// bytes, and pauses it while the consumer handles an event. All methods except the timer's
// callback run on the request goroutine; every method is safe on a nil Watchdog.
type Watchdog struct {
	d      time.Duration
	timer  clock.Timer
	cancel context.CancelCauseFunc
	fired  atomic.Bool
}

// NewWatchdog arms a watchdog; a d <= 0 disables it (every method is then a no-op).
func NewWatchdog(c clock.Clock, d time.Duration, cancel context.CancelCauseFunc) *Watchdog {
	w := &Watchdog{d: d, cancel: cancel}
	if d > 0 {
		w.timer = c.AfterFunc(d, w.fire)
	}
	return w
}

func (w *Watchdog) fire() {
	w.fired.Store(true)
	w.cancel(ErrIdle)
}

// Touch restarts the countdown: the server just sent something.
func (w *Watchdog) Touch() {
	if w != nil && w.timer != nil && !w.fired.Load() {
		w.timer.Reset(w.d)
	}
}

// Pause stops the countdown while the consumer is busy.
func (w *Watchdog) Pause() {
	if w != nil && w.timer != nil {
		w.timer.Stop()
	}
}

// Stop disarms the watchdog for good.
func (w *Watchdog) Stop() { w.Pause() }

// Expired reports whether the watchdog cancelled the request.
func (w *Watchdog) Expired() bool { return w != nil && w.fired.Load() }

// Message is the error text for an expiry, naming the real timeout.
func (w *Watchdog) Message() string {
	return fmt.Sprintf("No data from provider for %ss", strconv.FormatFloat(w.d.Seconds(), 'f', -1, 64))
}

// Body resets the watchdog on every read that returns bytes (SSE comments included) and
// keeps the first bytes of the body for error messages about bodies that are not streams.
type Body struct {
	RC io.ReadCloser
	W  *Watchdog
	// Head holds the body's first HeadSize bytes.
	Head []byte
}

// HeadSize is how much of a body [Body] keeps.
const HeadSize = 512

// Read implements [io.Reader].
func (b *Body) Read(p []byte) (int, error) {
	n, err := b.RC.Read(p)
	if n > 0 {
		b.W.Touch()
		if len(b.Head) < HeadSize {
			b.Head = append(b.Head, p[:min(n, HeadSize-len(b.Head))]...)
		}
	}
	return n, err
}

// Close implements [io.Closer].
func (b *Body) Close() error { return b.RC.Close() }
