// Package testkit holds test helpers shared by several packages' tests.
package testkit

import (
	"slices"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
)

// Epoch is the fixed time of every test clock, so transcripts are deterministic.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is the fake [clock.Clock] of tests. Its time stands still until Advance moves it. A
// clock from NewClock fires its timers only when the test says so (Advance past them, or
// Fire), and announces each new timer on Armed, so a test can wait for the code under test
// to start waiting, without sleeping. A clock from Immediate fires every timer at once, and
// one from Fixed on the real clock: they serve tests that only need steady timestamps.
type Clock struct {
	mode   timerMode
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// Armed receives the duration of every timer a NewClock creates (up to 64 unread).
	Armed chan time.Duration
}

type timerMode int

const (
	manualTimers timerMode = iota
	immediateTimers
	realTimers
)

// NewClock returns a clock at Epoch whose timers wait for Advance or Fire.
func NewClock() *Clock { return &Clock{now: Epoch, Armed: make(chan time.Duration, 64)} }

// Immediate returns a clock standing at now whose timers fire as soon as they are armed, so
// retries do not wait.
func Immediate(now time.Time) *Clock { return &Clock{mode: immediateTimers, now: now} }

// Fixed returns a clock standing at now whose timers run on the real clock.
func Fixed(now time.Time) *Clock { return &Clock{mode: realTimers, now: now} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arms a timer that calls f, on the goroutine of the Advance or Fire that passes it.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	switch c.mode {
	case immediateTimers:
		return time.AfterFunc(0, f)
	case realTimers:
		return time.AfterFunc(d, f)
	}
	c.mu.Lock()
	t := &fakeTimer{c: c, f: f}
	t.arm(d)
	c.mu.Unlock()
	select {
	case c.Armed <- d:
	default: // nobody is counting
	}
	return t
}

// Advance moves the clock's time by d and fires, in time order, every timer it passes.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	c.fire(func(t *fakeTimer) bool { return !t.at.After(c.now) })
}

// Fire fires every armed timer, whatever its time.
func (c *Clock) Fire() { c.fire(func(*fakeTimer) bool { return true }) }

func (c *Clock) fire(due func(*fakeTimer) bool) {
	c.mu.Lock()
	var fired, waiting []*fakeTimer
	for _, t := range c.timers {
		switch {
		case !t.active:
		case due(t):
			t.active = false
			fired = append(fired, t)
		default:
			waiting = append(waiting, t)
		}
	}
	c.timers = waiting
	c.mu.Unlock()
	slices.SortStableFunc(fired, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range fired {
		t.f()
	}
}

// fakeTimer is a timer of a manual Clock; its fields are guarded by the clock's mutex.
type fakeTimer struct {
	c      *Clock
	at     time.Time
	f      func()
	active bool
}

// arm schedules t d after the clock's time; the caller holds the clock's mutex.
func (t *fakeTimer) arm(d time.Duration) {
	t.at = t.c.now.Add(d)
	if !t.active {
		t.active = true
		t.c.timers = append(t.c.timers, t)
	}
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.arm(d)
	return was
}
