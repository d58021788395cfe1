package providertest

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// IdleScenario names what the mock behind an [Idle] suite's provider plays.
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

// Idle is a provider's side of the idle-timeout test: its [Mock], and what its mock plays
// in the KeepAlive scenario.
type Idle[R any] struct {
	Mock Mock[R]
	// KeepAlive is the response of the KeepAlive scenario (see [Beats]).
	KeepAlive R
	// KeepAliveName names the KeepAlive subtest; CheckKeepAlive checks its events (when
	// nil: the text "done" and a clean end).
	KeepAliveName  string
	CheckKeepAlive func(t *testing.T, got []string)
}

// Run runs the suite in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; keep-alives and a slow consumer do
// not.
func (s Idle[R]) Run(t *testing.T) {
	req := func() *core.Request { return HiRequest(s.Mock.Model) }
	d := s.Mock.Describe
	t.Run("silence mid-stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := s.Mock.PipeProvider(t, 120*time.Second, s.Response(StallMidStream))
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
			p := s.Mock.PipeProvider(t, 90*time.Second, s.Response(StallBeforeHeaders))
			got, _ := Run(t, context.Background(), p, req(), d.Event)
			DiffLines(t, got, []string{d.Start(core.StopReasonError), "error error retryable: No data from provider for 90s"})
		})
	})
	t.Run(s.KeepAliveName, func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := s.Mock.PipeProvider(t, 120*time.Second, s.Response(KeepAlive))
			got, _ := Run(t, context.Background(), p, req(), d.Event)
			if s.CheckKeepAlive == nil {
				DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "done"`, `text_end 0 "done"`, "done stop"})
				return
			}
			s.CheckKeepAlive(t, got)
		})
	})
	t.Run("a slow consumer pauses the timer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := s.Mock.PipeProvider(t, 120*time.Second, s.Response(Steady))
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

// Response is what the mock plays in scenario sc: [Mock.Text] with the scenario's faults
// (StallMidStream stalls after the dialect's first text delta), or KeepAlive.
func (s Idle[R]) Response(sc IdleScenario) R {
	m := s.Mock
	switch sc {
	case StallMidStream:
		return m.Text("abcd", mockhttp.Faults{StallAfter: m.Preamble + 1})
	case StallBeforeHeaders:
		return m.Text("x", mockhttp.Faults{StallBeforeHeaders: true})
	case KeepAlive:
		return s.KeepAlive
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
