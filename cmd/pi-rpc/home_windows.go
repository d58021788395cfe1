package main

import "os"

// piHome is the home directory pi's files are under: %USERPROFILE%, as Node's os.homedir()
// says it on Windows (a HOME that Git Bash or MSYS2 set is not pi's home there).
func piHome(getenv func(string) string) string {
	home := getenv("USERPROFILE")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return home
}
