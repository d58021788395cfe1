package testkit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// NotASession is a path that exists and is not a pi session file, which every way of naming
// a session file must refuse and leave as it was (docs/sessions.md, "Which files pi-rpc
// writes"). Check says whether it is still so.
type NotASession struct {
	// Name says what the path is, for subtests: "text", "fifo", "dev-zero", ...
	Name string
	Path string
	// content and mode are what Check compares (content only for the regular files).
	content []byte
	mode    os.FileMode
	uid     uint32
	regular bool
}

// NotASessionPaths makes, in dir, one of each kind of path a client might name as a session
// file by mistake: a text file, a file of blank lines, a JSON file whose first line is not a
// session header, a symlink to the text file, a FIFO, a directory, and /dev/zero (on Windows,
// which has no FIFOs or /dev/zero, the symlink only where the user may create one). Each regular
// file has mode 0644, so that a chmod shows.
func NotASessionPaths(t *testing.T, dir string) []*NotASession {
	t.Helper()
	var out []*NotASession
	add := func(name, path string) {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		p := &NotASession{Name: name, Path: path, mode: fi.Mode()}
		p.uid, _ = fileOwner(fi)
		if fi.Mode().IsRegular() {
			p.regular = true
			if p.content, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, p)
	}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o644); err != nil { // past the umask
			t.Fatal(err)
		}
		return path
	}
	text := write("notes.txt", "my notes\nsecond line\n")
	add("text", text)
	add("blank-lines", write("blank.jsonl", "\n\n"))
	add("json-not-header", write("other.jsonl", `{"type":"message","id":"a1b2c3d4"}`+"\n"))
	link := filepath.Join(dir, "link.jsonl")
	switch err := os.Symlink(text, link); {
	case UnderWine():
		// Wine makes a Unix symlink, which its GetFileAttributesEx then does not find: not
		// the reparse point Windows makes, so that kind is left out under Wine.
		t.Log("skipped under Wine: a symbolic link to a file")
	case err == nil:
		add("symlink-to-text", link)
	case !symlinksMayFail:
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := mkfifo(fifo); err == nil {
		add("fifo", fifo)
	} else if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.jsonl")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	add("directory", sub)
	if devZero != "" {
		add("dev-zero", devZero)
	}
	return out
}

// Check fails the test if the path changed: its content (for regular files), its mode or owner,
// or a lock sidecar (path + ".lock") or temp file appeared beside it.
func (p *NotASession) Check(t *testing.T) {
	t.Helper()
	fi, err := os.Lstat(p.Path)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	if fi.Mode() != p.mode {
		t.Errorf("%s: mode %v, was %v", p.Name, fi.Mode(), p.mode)
	}
	if uid, ok := fileOwner(fi); ok && uid != p.uid {
		t.Errorf("%s: owner %d, was %d", p.Name, uid, p.uid)
	}
	if p.regular {
		got, err := os.ReadFile(p.Path)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if !bytes.Equal(got, p.content) {
			t.Errorf("%s: content changed to %q", p.Name, got)
		}
	}
	if _, err := os.Lstat(p.Path + ".lock"); err == nil {
		t.Errorf("%s: a lock file %s.lock was left", p.Name, p.Path)
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(p.Path), "."+filepath.Base(p.Path)+".tmp*")); len(tmp) > 0 {
		t.Errorf("%s: temp files left: %v", p.Name, tmp)
	}
}
