package shellfind

import (
	"errors"
	"strings"
	"testing"
)

// fakeWindows is a Windows machine's environment, files and PATH for windowsShell.
type fakeWindows struct {
	env   map[string]string
	files map[string]bool
	path  map[string]string // name -> what LookPath finds
}

func (f fakeWindows) find(configured string) (string, error) {
	return windowsShell(configured, func(k string) string { return f.env[k] },
		func(p string) bool { return f.files[p] },
		func(name string) (string, error) {
			if p, ok := f.path[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		})
}

var stdEnv = map[string]string{
	"ProgramFiles":      `C:\Program Files`,
	"ProgramFiles(x86)": `C:\Program Files (x86)`,
	"LOCALAPPDATA":      `C:\Users\u\AppData\Local`,
}

// TestWindowsShellOrder: shellPath first, then Git for Windows' bash.exe under
// %ProgramFiles%, %ProgramFiles(x86)% and %LOCALAPPDATA%\Programs, then bash.exe on PATH.
func TestWindowsShellOrder(t *testing.T) {
	all := map[string]bool{
		`C:\Program Files\Git\bin\bash.exe`:                  true,
		`C:\Program Files (x86)\Git\bin\bash.exe`:            true,
		`C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`: true,
		`D:\msys64\usr\bin\bash.exe`:                         true,
	}
	onPath := map[string]string{"bash.exe": `C:\cygwin\bin\bash.exe`}
	for _, tc := range []struct {
		name       string
		configured string
		drop       []string
		path       map[string]string
		want       string
	}{
		{"shellPath", `D:\msys64\usr\bin\bash.exe`, nil, onPath, `D:\msys64\usr\bin\bash.exe`},
		{"program files", "", nil, onPath, `C:\Program Files\Git\bin\bash.exe`},
		{"program files x86", "", []string{`C:\Program Files\Git\bin\bash.exe`}, onPath, `C:\Program Files (x86)\Git\bin\bash.exe`},
		{"per-user install", "", []string{`C:\Program Files\Git\bin\bash.exe`, `C:\Program Files (x86)\Git\bin\bash.exe`}, onPath, `C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`},
		{"PATH", "", []string{`C:\Program Files\Git\bin\bash.exe`, `C:\Program Files (x86)\Git\bin\bash.exe`, `C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`}, onPath, `C:\cygwin\bin\bash.exe`},
		{"shellPath on PATH", "bash.exe", []string{`C:\Program Files\Git\bin\bash.exe`}, onPath, `C:\cygwin\bin\bash.exe`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]bool{}
			for k := range all {
				files[k] = true
			}
			for _, d := range tc.drop {
				delete(files, d)
			}
			got, err := fakeWindows{env: stdEnv, files: files, path: tc.path}.find(tc.configured)
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestWindowsShellNotFound: with no bash anywhere the error names every place looked in and
// what to do.
func TestWindowsShellNotFound(t *testing.T) {
	_, err := fakeWindows{env: stdEnv}.find("")
	if err == nil {
		t.Fatal("found a shell on an empty machine")
	}
	for _, want := range []string{
		`C:\Program Files\Git\bin\bash.exe`,
		`C:\Program Files (x86)\Git\bin\bash.exe`,
		`C:\Users\u\AppData\Local\Programs\Git\bin\bash.exe`,
		"bash.exe on PATH",
		"shellPath in settings.json",
		"https://git-scm.com/download/win",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
}

// TestWindowsShellPathMissing: a shellPath that does not exist is an error naming it, not a
// silent fall-back to another bash.
func TestWindowsShellPathMissing(t *testing.T) {
	_, err := fakeWindows{env: stdEnv, files: map[string]bool{`C:\Program Files\Git\bin\bash.exe`: true}}.find(`E:\nope\bash.exe`)
	if err == nil || !strings.Contains(err.Error(), `shellPath E:\nope\bash.exe does not exist`) {
		t.Fatalf("got %v", err)
	}
}
