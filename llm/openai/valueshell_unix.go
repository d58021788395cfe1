//go:build !windows

package openai

// valueShell is the shell a models.json "!command" runs with: sh, as pi's.
func valueShell() (string, error) { return "sh", nil }
