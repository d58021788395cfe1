//go:build !windows

package shellfind

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Find picks the shell as pi does: the configured one, /bin/bash, bash on PATH, sh.
func Find(configured string) (string, error) {
	if configured != "" {
		if _, err := os.Stat(configured); err != nil {
			if p, lerr := exec.LookPath(configured); lerr == nil {
				return p, nil
			}
			return "", fmt.Errorf("spawn %s ENOENT", configured)
		}
		return configured, nil
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash", nil
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "", errors.New("no shell found: need /bin/bash, bash or sh on PATH")
}
