package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/session"
)

// within runs f and fails the test if it has not returned in 10 s: a guard against an open
// that blocks (a FIFO), not a synchronisation.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: it blocked", what)
	}
}

// Every way the store opens a session path refuses what is not a session file, names the
// file and says why, and leaves it as it was: no bytes, mode or owner changed, no lock file.
func TestNotASessionFileIsRefusedAndUntouched(t *testing.T) {
	dir := t.TempDir()
	for _, p := range testkit.NotASessionPaths(t, dir) {
		t.Run(p.Name, func(t *testing.T) {
			opens := map[string]func() error{
				"OpenFileStore": func() error {
					st, err := session.OpenFileStore(p.Path, "/w", fileOpts())
					if err == nil {
						_ = st.Close()
					}
					return err
				},
				"OpenInMemory": func() error { _, err := session.OpenInMemory(p.Path, fileOpts()); return err },
				"ReadFile": func() error {
					// Reading a regular file is harmless: it is read as one without a header.
					l, err := session.ReadFile(p.Path)
					if err == nil && !l.HasHeader {
						return &session.NotSessionFileError{File: p.Path, Reason: "no header; left as it was"}
					}
					return err
				},
			}
			for name, open := range opens {
				var err error
				within(t, name, func() { err = open() })
				if !session.IsNotSessionFile(err) {
					t.Fatalf("%s: err = %v, want a NotSessionFileError", name, err)
				}
				if !strings.Contains(err.Error(), p.Path) || !strings.Contains(err.Error(), "left as it was") {
					t.Fatalf("%s: the error does not name the file and say it is untouched: %v", name, err)
				}
				p.Check(t)
			}
		})
	}
}

// The error says why: what kind of file it is, or that its first line is not a header.
func TestNotASessionFileSaysWhy(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{
		"text":            "its first line is not a session header",
		"blank-lines":     "its first line is not a session header",
		"json-not-header": "its first line is not a session header",
		"symlink-to-text": "its first line is not a session header",
		"fifo":            "it is a named pipe (FIFO), not a regular file",
		"directory":       "it is a directory, not a regular file",
		"dev-zero":        "it is a character device, not a regular file",
	}
	for _, p := range testkit.NotASessionPaths(t, dir) {
		err := session.CheckSessionPath(p.Path)
		if err == nil || !strings.Contains(err.Error(), want[p.Name]) {
			t.Errorf("%s: %v, want %q", p.Name, err, want[p.Name])
		}
	}
}

// A symlink to a real session file is that session: it opens and continues.
func TestSymlinkToSessionFileOpens(t *testing.T) {
	testkit.SkipUnderWine(t, "Wine makes a Unix symlink, not the reparse point Windows opens through")
	path, _ := sampleFile(t)
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	st, err := session.OpenFileStore(link, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.SessionID() != "sess-1" {
		t.Fatalf("session id %q", st.SessionID())
	}
}

// A new session's file is created with its first user message; if another program wrote a
// file at that path in the meantime, the session refuses to write over it and goes on in
// memory, the file untouched.
func TestNewSessionDoesNotWriteOverAFileMadeSince(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.jsonl")
	st, err := session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := os.WriteFile(path, []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = st.Append(userEntry("hi"))
	if !session.IsNotSessionFile(err) {
		t.Fatalf("append: %v, want a NotSessionFileError", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "someone else's\n" {
		t.Fatalf("the file was written: %q", got)
	}
	if len(st.Entries()) != 1 {
		t.Fatalf("the entry is not kept in memory: %d entries", len(st.Entries()))
	}
}

// Migrating an old file rewrites it by rename, keeping its permission bits.
func TestMigrationKeepsTheFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.jsonl")
	v1 := `{"type":"session","id":"old","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
	if err := os.WriteFile(path, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != testkit.KeptMode(0o644) {
		t.Fatalf("mode %v after migration, want %v", fi.Mode().Perm(), testkit.KeptMode(0o644))
	}
	if l, _ := session.ReadFile(path); l.Header.Version != session.CurrentVersion {
		t.Fatalf("not migrated: version %d", l.Header.Version)
	}
}

// Special files named like sessions in the session directory are passed over by listing and
// --continue, without blocking on them.
func TestSpecialFilesInTheSessionDirAreSkipped(t *testing.T) {
	path, _ := sampleFile(t)
	dir := filepath.Dir(path)
	testkit.Mkfifo(t, filepath.Join(dir, "zz-fifo.jsonl"), 0o600)
	if err := os.Mkdir(filepath.Join(dir, "zz-dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	cat := &session.Catalog{Dir: dir, CustomDir: true, Cwd: "/w", Options: fileOpts()}
	within(t, "List", func() {
		infos, _, err := cat.List("/w", "", 0)
		if err != nil || len(infos) != 1 || infos[0].File != path {
			t.Errorf("List = %+v, %v; want the one session", infos, err)
		}
	})
	within(t, "Continue", func() {
		st, err := cat.Continue()
		if err != nil || st == nil || st.File() != path {
			t.Errorf("Continue = %v, %v; want the session file", st, err)
			return
		}
		_ = st.Close()
	})
}
