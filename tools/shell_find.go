package tools

import "github.com/pi-rpc/pi-rpc/internal/shellfind"

// resolveShell picks the shell as pi does on this platform ([shellfind.Find]).
func resolveShell(configured string) (string, error) { return shellfind.Find(configured) }
