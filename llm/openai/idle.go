package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is how long a response may stay silent before the stream fails
// (docs/configuration.md#network-behaviour).
const DefaultIdleTimeout = 120 * time.Second

// Clock is the time source of a [Provider]: message timestamps, Retry-After dates and the
// idle timer. It is injectable so tests control time; inside a testing/synctest bubble the
// real clock is already fake.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d, like [time.AfterFunc].
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of [*time.Timer] the idle timer uses.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// SystemClock is the real [Clock].
type SystemClock struct{}

// Now implements [Clock].
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc implements [Clock].
func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// errIdle is the cancellation cause when the idle timer fires.
var errIdle = errors.New("openai: idle timeout")

// watchdog cancels a request that has been waiting for the server longer than its timeout.
// The request goroutine arms it before sending, touches it on every body read that returns
// bytes, and pauses it while the consumer handles an event (the consumer's slowness is not
// the server's silence). All methods except fire run on the request goroutine.
type watchdog struct {
	d      time.Duration
	timer  Timer
	cancel context.CancelCauseFunc
	fired  atomic.Bool
}

// newWatchdog arms a watchdog; a d <= 0 disables it (every method is then a no-op).
func newWatchdog(clock Clock, d time.Duration, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{d: d, cancel: cancel}
	if d > 0 {
		w.timer = clock.AfterFunc(d, w.fire)
	}
	return w
}

func (w *watchdog) fire() {
	w.fired.Store(true)
	w.cancel(errIdle)
}

// touch restarts the countdown: the server just sent something.
func (w *watchdog) touch() {
	if w != nil && w.timer != nil && !w.fired.Load() {
		w.timer.Reset(w.d)
	}
}

// pause stops the countdown while the consumer is busy.
func (w *watchdog) pause() {
	if w != nil && w.timer != nil {
		w.timer.Stop()
	}
}

// stop disarms the watchdog for good.
func (w *watchdog) stop() { w.pause() }

// expired reports whether the watchdog cancelled the request.
func (w *watchdog) expired() bool { return w.fired.Load() }

// message is the error text for an expiry, naming the real timeout.
func (w *watchdog) message() string {
	return fmt.Sprintf("No data from provider for %ss", strconv.FormatFloat(w.d.Seconds(), 'f', -1, 64))
}

// idleBody resets the watchdog on every read that returns bytes (SSE comments included) and
// keeps the first bytes of the body for error messages about bodies that are not streams.
type idleBody struct {
	rc   io.ReadCloser
	w    *watchdog
	head []byte
	// sawEOF records that the body ended cleanly.
	sawEOF bool
}

const headSize = 512

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.touch()
		if len(b.head) < headSize {
			b.head = append(b.head, p[:min(n, headSize-len(b.head))]...)
		}
	}
	if errors.Is(err, io.EOF) {
		b.sawEOF = true
	}
	return n, err
}

func (b *idleBody) Close() error { return b.rc.Close() }
