package providertest

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// IdleScenario names what the mock behind the [Mock.Idle] suite's provider plays.
type IdleScenario int

const (
	// StallMidStream streams "abcd" in chunks of 2 and goes silent after the first delta.
	StallMidStream IdleScenario = iota
	// StallBeforeHeaders never sends its headers.
	StallBeforeHeaders
	// KeepAlive waits a minute ten times, each followed by the dialect's keep-alive, then
	// streams "done".
	KeepAlive
	// Steady streams "abcd" in chunks of 2.
	Steady
)

// Idle runs the idle-timeout suite in fake time: a silent backend fails the stream after
// the idle timeout with a retryable error naming the duration; keep-alives (m.KeepAlive)
// and a slow consumer do not.
func (m Mock[R]) Idle(t *testing.T) {
	req := func() *core.Request { return HiRequest(m.Model) }
	d := m.Describe
	t.Run("silence mid-stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := m.PipeProvider(t, 120*time.Second, m.IdleResponse(StallMidStream))
			start := time.Now()
			got, final := Run(t, context.Background(), p, req(), d.Event)
			DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: No data from provider for 120s"})
			if d := time.Since(start); d != 120*time.Second {
				t.Errorf("failed after %v, want 2m0s", d)
			}
			if final.Failure.Kind != core.ErrorRetryable {
				t.Errorf("kind = %s, want retryable", final.Failure.Kind)
			}
		})
	})
	t.Run("silence before headers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := m.PipeProvider(t, 90*time.Second, m.IdleResponse(StallBeforeHeaders))
			got, _ := Run(t, context.Background(), p, req(), d.Event)
			DiffLines(t, got, []string{d.Start(core.StopReasonError), "error error retryable: No data from provider for 90s"})
		})
	})
	t.Run(m.KeepAliveName, func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := m.PipeProvider(t, 120*time.Second, m.IdleResponse(KeepAlive))
			got, _ := Run(t, context.Background(), p, req(), d.Event)
			if m.CheckKeepAlive == nil {
				DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "done"`, `text_end 0 "done"`, "done stop"})
				return
			}
			m.CheckKeepAlive(t, got)
		})
	})
	t.Run("a slow consumer pauses the timer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := m.PipeProvider(t, 120*time.Second, m.IdleResponse(Steady))
			var got []string
			for ev := range p.Stream(context.Background(), req()) {
				got = append(got, d.Event(ev))
				if ev.Type == core.EventTextDelta {
					time.Sleep(10 * time.Minute) // the consumer is blocked, e.g. on a client that stopped reading
				}
			}
			DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "done stop"})
		})
	})
}

// IdleResponse is what the mock plays in scenario sc: [Mock.Text] with the scenario's
// faults (StallMidStream stalls after the dialect's first text delta), or m.KeepAlive.
func (m Mock[R]) IdleResponse(sc IdleScenario) R {
	switch sc {
	case StallMidStream:
		return m.Text("abcd", mockhttp.Faults{StallAfter: m.Preamble + 1})
	case StallBeforeHeaders:
		return m.Text("x", mockhttp.Faults{StallBeforeHeaders: true})
	case KeepAlive:
		return m.KeepAlive
	}
	return m.Text("abcd", mockhttp.Faults{})
}

// Beats are the KeepAlive scenario's steps in a dialect's events: ten times wait (a
// minute's pause) then beat (its keep-alive), then done (the text "done").
func Beats[E any](wait, beat, done E) []E {
	var evs []E
	for range 10 {
		evs = append(evs, wait, beat)
	}
	return append(evs, done)
}
