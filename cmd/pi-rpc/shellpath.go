package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// readShellPath reads shellPath from settings.json in home ($PI_RPC_HOME; pi's agent directory
// in pi mode), pi's setting for the shell that runs the bash tool's and the bash method's
// commands (docs/configuration.md, "Windows"). The file is optional and its other keys are
// not read here; "" means the shell is found as pi finds it.
func readShellPath(home string) (string, error) {
	path := filepath.Join(home, "settings.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var st struct {
		ShellPath string `json:"shellPath"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return st.ShellPath, nil
}
