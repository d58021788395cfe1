package openai

import "github.com/pi-rpc/pi-rpc/internal/shellfind"

// valueShell is the shell a models.json "!command" runs with: Windows has no sh, so bash,
// found as the bash tool finds it (Git for Windows' bash.exe, else bash.exe on PATH).
func valueShell() (string, error) { return shellfind.Find("") }
