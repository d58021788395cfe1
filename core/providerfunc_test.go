package core

import (
	"context"
	"iter"
)

// ProviderFunc adapts a function to [Provider], for the tests in core_test (no caller outside
// tests needs it).
type ProviderFunc func(ctx context.Context, req *Request) iter.Seq[AssistantEvent]

// Stream implements [Provider].
func (f ProviderFunc) Stream(ctx context.Context, req *Request) iter.Seq[AssistantEvent] {
	return f(ctx, req)
}
