//go:build !windows

package main

import "os"

// piHome is the home directory pi's files are under: $HOME, as Node's os.homedir() says it.
func piHome(getenv func(string) string) string {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return home
}
