package testkit

import (
	"strings"
	"testing"
	"time"
)

// The manual clock fires timers in time order as Advance passes them, honours Stop and Reset,
// and Fire fires whatever is left.
func TestClockTimers(t *testing.T) {
	c := NewClock()
	var got []string
	c.AfterFunc(2*time.Second, func() { got = append(got, "b") })
	c.AfterFunc(time.Second, func() { got = append(got, "a") })
	stopped := c.AfterFunc(time.Second, func() { got = append(got, "stopped") })
	reset := c.AfterFunc(time.Second, func() { got = append(got, "reset") })
	late := c.AfterFunc(time.Hour, func() { got = append(got, "late") })
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop reports true once, then false")
	}
	if !reset.Reset(3 * time.Second) {
		t.Error("Reset of an armed timer reports true")
	}
	c.Advance(3 * time.Second)
	if want := "a b reset"; strings.Join(got, " ") != want {
		t.Errorf("after 3s fired %q, want %q", strings.Join(got, " "), want)
	}
	if !c.Now().Equal(Epoch.Add(3 * time.Second)) {
		t.Errorf("Now = %v", c.Now())
	}
	c.Fire()
	if want := "a b reset late"; strings.Join(got, " ") != want {
		t.Errorf("after Fire fired %q, want %q", strings.Join(got, " "), want)
	}
	if late.Stop() {
		t.Error("Stop after firing reports false")
	}
	if n := len(c.Armed); n != 5 {
		t.Errorf("Armed holds %d announcements, want 5", n)
	}
}
