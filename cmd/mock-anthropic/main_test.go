package main

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp/commandtest"
)

func TestHelp(t *testing.T) {
	commandtest.Help(t, command, "redactedThinking", "stopReason", "stallAfter")
}

func TestFlagErrors(t *testing.T) { commandtest.FlagErrors(t, command) }
