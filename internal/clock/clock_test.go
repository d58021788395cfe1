package clock_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// After on the system clock waits d, as time.After does (synctest makes the wait virtual).
func TestAfterSystem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		<-clock.After(clock.System, 3*time.Second)
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("After waited %v, want 3s", got)
		}
	})
}

// After on another clock fires through its AfterFunc and delivers that clock's time.
func TestAfterUsesTheClock(t *testing.T) {
	c := testkit.NewClock()
	ch := clock.After(c, time.Minute)
	if d := <-c.Armed; d != time.Minute {
		t.Fatalf("armed %v, want 1m", d)
	}
	c.Advance(time.Second)
	select {
	case <-ch:
		t.Fatal("fired before its time")
	default:
	}
	c.Advance(time.Minute)
	if got, want := <-ch, testkit.Epoch.Add(61*time.Second); !got.Equal(want) {
		t.Errorf("After delivered %v, want the clock's time %v", got, want)
	}
}
