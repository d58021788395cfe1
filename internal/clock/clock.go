// Package clock is the one time source of pi-rpc: the agent loop's abandon timer, the session's
// retry waits and timestamps, the providers' idle timers and the bash tool's updates and kill
// timers all read it. It is injected so tests control time: internal/testkit.Clock is the fake,
// and inside a testing/synctest bubble [System] is already fake.
package clock

import "time"

// Clock is a time source.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d, like [time.AfterFunc].
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of [*time.Timer] that callers of [Clock.AfterFunc] use.
type Timer interface {
	// Stop prevents the timer from firing; it reports whether that stopped it.
	Stop() bool
	// Reset makes the timer fire d from now; it reports whether it had been active.
	Reset(d time.Duration) bool
}

// System is the real clock.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time                            { return time.Now() }
func (system) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// After returns a channel that receives c's time once d has passed on c, like [time.After],
// for a select that waits on a timer among other things.
func After(c Clock, d time.Duration) <-chan time.Time {
	if c == System {
		return time.After(d)
	}
	ch := make(chan time.Time, 1) // buffered: the timer never blocks on a receiver that left
	c.AfterFunc(d, func() { ch <- c.Now() })
	return ch
}
