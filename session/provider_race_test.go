package session_test

import "testing"

// setModel (SetProvider) is allowed while a compaction runs; the compaction takes its provider
// under the lock (it used to read it after releasing it: a data race under -race).
func TestSetProviderDuringCompaction(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := twoExchanges(t, heldReply("## Goal\nsummary", started, release))
	run, err := h.sup.Compact("")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _, _ = run.Result() }()
	// the setModel handler runs on the read goroutine, concurrently with the compaction
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				h.sup.SetProvider(h.model)
			}
		}
	}()
	<-started
	close(stop)
	close(release)
	<-done
}
