// Package testkit holds test helpers shared by several packages' tests.
package testkit

import (
	"sync"
	"time"
)

// Epoch is the fixed time of every test clock, so transcripts are deterministic.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is a core.Clock whose timers fire only when the test says so. After announces each
// new timer on Armed, so a test can wait for the code under test to start waiting, without
// sleeping.
type Clock struct {
	mu     sync.Mutex
	timers []chan time.Time
	// Armed receives the duration of every timer created.
	Armed chan time.Duration
}

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return &Clock{Armed: make(chan time.Duration, 64)} }

// Now returns Epoch.
func (c *Clock) Now() time.Time { return Epoch }

// After returns a channel that receives when Fire is called.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.timers = append(c.timers, ch)
	c.mu.Unlock()
	c.Armed <- d
	return ch
}

// Fire fires every armed timer.
func (c *Clock) Fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.timers {
		ch <- Epoch
	}
	c.timers = nil
}
