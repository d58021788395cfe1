package session

import "time"

// isoLayout is the timestamp format of session entries: ISO-8601 with milliseconds, UTC, as
// JavaScript's Date.toISOString writes it.
const isoLayout = "2006-01-02T15:04:05.000Z"

// ISOTime formats t as a session-entry timestamp.
func ISOTime(t time.Time) string { return t.UTC().Format(isoLayout) }

// isoMillis parses an entry timestamp to Unix milliseconds (0 if unparsable).
func isoMillis(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
