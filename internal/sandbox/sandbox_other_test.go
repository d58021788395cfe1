//go:build !linux

package sandbox

import (
	"errors"
	"testing"
)

// TestNewRefusesWithoutLinux: on macOS and Windows every --sandbox mode but off refuses to
// start with ErrUnsupported, which says to start without --sandbox; off is no sandbox.
func TestNewRefusesWithoutLinux(t *testing.T) {
	for _, m := range []Mode{ModeReadOnly, ModeWorkspaceWrite} {
		if c, err := New(Options{Mode: m}); !errors.Is(err, ErrUnsupported) || c != nil {
			t.Errorf("%s: %v, %v", m, c, err)
		}
	}
	if c, err := New(Options{Mode: ModeOff}); err != nil || c != nil {
		t.Errorf("off: %v, %v", c, err)
	}
}
