package tools

import (
	"path/filepath"
	"testing"
)

// TestWithinWindows: confinement compares paths as Windows does: without regard to case,
// across the \\?\ long-path forms, and never across drives or shares.
func TestWithinWindows(t *testing.T) {
	for _, tc := range []struct {
		p, dir string
		want   bool
	}{
		{`C:\Repo`, `C:\Repo`, true},
		{`c:\repo`, `C:\Repo`, true},
		{`C:\REPO\src\main.go`, `C:\Repo`, true},
		{`\\?\C:\Repo\a.txt`, `C:\Repo`, true},
		{`C:\Repo\a.txt`, `\\?\c:\repo`, true},
		{`\\server\share\repo\x`, `\\server\share\repo`, true},
		{`\\?\UNC\server\share\repo\x`, `\\server\share\repo`, true},
		{`C:\Repository`, `C:\Repo`, false},
		{`C:\Other\a.txt`, `C:\Repo`, false},
		{`D:\Repo\a.txt`, `C:\Repo`, false},
		{`\\server\other\repo\x`, `\\server\share\repo`, false},
	} {
		if got := within(tc.p, tc.dir); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
}

// TestResolveWindowsRoot: tools resolve a model's path against the cwd with its drive: a
// relative path and one climbing back in are the same file, so c:\repo\..\Repo\a is C:\Repo\a
// for the write confinement.
func TestResolveWindowsRoot(t *testing.T) {
	dir := t.TempDir()
	e := &env{cwd: dir}
	if got := e.resolve(`sub\..\a.txt`); !within(got, dir) {
		t.Errorf("resolve: %s is not within %s", got, dir)
	}
	r, err := resolvePath(e.resolve("missing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !within(r.path, dir) {
		t.Errorf("resolvePath(missing) = %s, not within %s", r.path, dir)
	}
}

// TestResolveRootedOnCwdDrive: a path rooted without a drive (/etc/x, as a model trained on
// Unix writes it) is on the working directory's drive, as Windows and pi resolve it, so the
// write confinement refuses it; it is not the directory etc under the working directory.
func TestResolveRootedOnCwdDrive(t *testing.T) {
	dir := t.TempDir()
	e := &env{cwd: dir}
	want := filepath.VolumeName(dir) + `\etc\x`
	for _, p := range []string{"/etc/x", `\etc\x`} {
		if got := e.resolve(p); got != want || within(got, dir) {
			t.Errorf("resolve(%q) = %s (within %s: %v), want %s outside it", p, got, dir, within(got, dir), want)
		}
	}
	if got, want := e.resolve(`sub\a.txt`), filepath.Join(dir, "sub", "a.txt"); got != want {
		t.Errorf("resolve(sub\\a.txt) = %s, want %s", got, want)
	}
}
