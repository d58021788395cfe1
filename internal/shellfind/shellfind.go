// Package shellfind finds the shell pi-rpc runs commands with (the bash tool, the user's bash
// method, models.json "!command" values on Windows) the way pi finds it on each platform.
package shellfind

import (
	"errors"
	"fmt"
	"strings"
)

// windowsShell picks the shell on Windows as pi does: the configured one (shellPath in
// settings.json), else Git for Windows' bash.exe where its installers put it (for all users
// under %ProgramFiles% and %ProgramFiles(x86)%, for one user under
// %LOCALAPPDATA%\Programs), else bash.exe on PATH (MSYS2, Cygwin, WSL's launcher). The error,
// when none is found, names every place it looked. getenv, exists and lookPath are os.Getenv,
// a regular-file test and exec.LookPath in the binary.
func windowsShell(configured string, getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) (string, error) {
	if configured != "" {
		if exists(configured) {
			return configured, nil
		}
		if p, err := lookPath(configured); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("shell not found: shellPath %s does not exist (set shellPath in settings.json to your bash.exe)", configured)
	}
	places := gitBashPlaces(getenv)
	for _, p := range places {
		if exists(p) {
			return p, nil
		}
	}
	if p, err := lookPath("bash.exe"); err == nil {
		return p, nil
	}
	var b strings.Builder
	b.WriteString("no bash shell found. pi-rpc runs commands with bash; it looked for Git for Windows' bash.exe in:\n")
	for _, p := range places {
		b.WriteString("  " + p + "\n")
	}
	b.WriteString("and for bash.exe on PATH. Install Git for Windows (https://git-scm.com/download/win), put your bash.exe (MSYS2, Cygwin) on PATH, or set shellPath in settings.json to it.")
	return "", errors.New(b.String())
}

// gitBashPlaces are where Git for Windows' installers put bash.exe, for the environment
// variables that are set.
func gitBashPlaces(getenv func(string) string) []string {
	var out []string
	for _, base := range []struct{ env, sub string }{
		{"ProgramFiles", `\Git\bin\bash.exe`},
		{"ProgramFiles(x86)", `\Git\bin\bash.exe`},
		{"LOCALAPPDATA", `\Programs\Git\bin\bash.exe`},
	} {
		if d := getenv(base.env); d != "" {
			out = append(out, strings.TrimRight(d, `\`)+base.sub)
		}
	}
	return out
}
