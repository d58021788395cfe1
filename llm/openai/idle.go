package openai

import "github.com/pi-rpc/pi-rpc/llm/internal/idle"

// DefaultIdleTimeout is how long a response may stay silent before the stream fails
// (docs/configuration.md, --idle-timeout).
const DefaultIdleTimeout = idle.DefaultTimeout
