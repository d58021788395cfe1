package shellfind

import (
	"os"
	"os/exec"
)

// Find finds bash as pi does on Windows ([windowsShell]).
func Find(configured string) (string, error) {
	return windowsShell(configured, os.Getenv, func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && !st.IsDir()
	}, exec.LookPath)
}
