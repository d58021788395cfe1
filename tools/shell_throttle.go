package tools

import (
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
)

// throttle spaces OnUpdate calls at least interval apart, pi's 100 ms, so a chatty command
// does not flood the client; each call carries the whole current tail (replace semantics).
type throttle struct {
	clock    clock.Clock
	interval time.Duration
	acc      *outputAccumulator
	emit     func(ShellSnapshot)

	mu       sync.Mutex // guards the fields below
	last     time.Time
	pending  bool // output arrived since the last emit
	timerSet bool
	timer    clock.Timer
	done     bool

	emitMu sync.Mutex // serialises calls to emit
}

func (t *throttle) dirty() {
	if t.emit == nil {
		return
	}
	t.mu.Lock()
	t.pending = true
	if t.done || t.timerSet {
		t.mu.Unlock()
		return
	}
	wait := t.interval - t.clock.Now().Sub(t.last)
	if t.last.IsZero() || wait <= 0 {
		t.mu.Unlock()
		t.fire()
		return
	}
	t.timerSet = true
	t.timer = t.clock.AfterFunc(wait, func() {
		t.mu.Lock()
		t.timerSet = false
		t.mu.Unlock()
		t.fire()
	})
	t.mu.Unlock()
}

// fire emits a snapshot if output is pending and the throttle is still open.
func (t *throttle) fire() {
	t.emitMu.Lock()
	defer t.emitMu.Unlock()
	t.mu.Lock()
	if t.done || !t.pending {
		t.mu.Unlock()
		return
	}
	t.pending = false
	t.last = t.clock.Now()
	t.mu.Unlock()
	t.emit(t.acc.snapshot())
}

// finish emits what is still pending and closes the throttle: no call happens after it.
func (t *throttle) finish() {
	if t.emit == nil {
		return
	}
	t.mu.Lock()
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
	t.fire()
	t.emitMu.Lock()
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
	t.emitMu.Unlock()
}
