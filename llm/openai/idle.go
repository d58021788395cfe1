package openai

import "github.com/pi-rpc/pi-rpc/llm/internal/idle"

// DefaultIdleTimeout is how long a response may stay silent before the stream fails
// (docs/configuration.md, --idle-timeout).
const DefaultIdleTimeout = idle.DefaultTimeout

// Clock is the time source of a [Provider]: message timestamps, Retry-After dates and the
// idle timer. It is injectable so tests control time; inside a testing/synctest bubble the
// real clock is already fake.
type Clock = idle.Clock

// Timer is the part of [*time.Timer] the idle timer uses.
type Timer = idle.Timer

// SystemClock is the real [Clock].
type SystemClock = idle.SystemClock
