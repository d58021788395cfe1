package testkit

import (
	"fmt"
	"time"

	"github.com/pi-rpc/pi-rpc/session"
)

// MemoryStore is a session store in memory for a test's session: its entry ids count up from
// 00000001 and every entry is stamped with the time at, so that what a test records of the
// session (events, transcripts, goldens) is the same on every run.
func MemoryStore(sessionID string, at time.Time) *session.MemoryStore {
	n := 0
	return session.NewMemoryStore(sessionID, func() string { n++; return fmt.Sprintf("%08x", n) }, func() string { return session.ISOTime(at) })
}
