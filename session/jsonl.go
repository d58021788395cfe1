package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/pi-rpc/pi-rpc/core"
)

// FsyncMode says when a file store forces its appends to stable storage.
type FsyncMode string

// The fsync modes (--fsync).
const (
	// FsyncSettled syncs after agent_settled, on a session switch and at shutdown; each entry
	// is still one write(2), which survives kill -9 (docs/sessions.md#durability).
	FsyncSettled FsyncMode = "settled"
	// FsyncEntry also syncs after every entry, which survives power loss too.
	FsyncEntry FsyncMode = "entry"
)

// AppendFile is the file a store appends to: a file opened with O_APPEND, or in tests a
// writer that fails the way a full disk does.
type AppendFile interface {
	io.Writer
	Sync() error
	Close() error
}

// FileOptions configure file stores.
type FileOptions struct {
	// NewID makes entry ids (8 hex digits); Now makes ISO timestamps. Both default to the
	// real thing and are injected by tests.
	NewID func() string
	Now   func() string
	Fsync FsyncMode
	// OpenAppend opens a session file for appending; default: O_APPEND, created if missing,
	// regular files only (see [CheckSessionPath]).
	OpenAppend func(path string) (AppendFile, error)
}

func (o FileOptions) withDefaults() FileOptions {
	if o.NewID == nil {
		o.NewID = RandomEntryID
	}
	if o.Now == nil {
		o.Now = func() string { return ISOTime(timeNow()) }
	}
	if o.Fsync == "" {
		o.Fsync = FsyncSettled
	}
	if o.OpenAppend == nil {
		o.OpenAppend = openAppend
	}
	return o
}

// RandomEntryID returns 8 random hex digits, pi's entry id (the store checks collisions).
func RandomEntryID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newEntryID(taken map[string]bool) string {
	for {
		id := RandomEntryID()
		if !taken[id] {
			taken[id] = true
			return id
		}
	}
}

// FileStore is a session kept in a JSONL file in pi's format, version 3 (docs/sessions.md). Each
// entry is written with one write(2) of its JSON and "\n" to a file opened with O_APPEND
// when it is appended, from the first user message on: until then the header and the
// entries before it (the initial model and thinking level) stay in memory, so a session
// nobody talked to leaves no file. The store holds the file's lock from the moment it
// writes (or, for an existing file, from opening). When a write fails, the entry stays in
// memory, Append returns the error once, and the session goes on memory-only.
type FileStore struct {
	lockedTree
	path    string
	header  Header
	opts    FileOptions
	lock    *Lock
	file    AppendFile
	written bool
	// needNewline says the file's last byte is not "\n" (a torn line).
	needNewline bool
	failed      error
	warnings    []string
	closed      bool
}

// ErrPersistence wraps every failure to write a session file.
var ErrPersistence = errors.New("cannot write the session file")

// NewFileStore returns a store for a new session that will be written to path: header is
// its first line (Type and Version are filled in). entries, if any, are its initial
// entries (a fork's copied branch), written at once if they include a user message.
func NewFileStore(path string, header Header, entries []*Entry, opts FileOptions) (*FileStore, error) {
	header.Type, header.Version = "session", CurrentVersion
	s := &FileStore{lockedTree: lockedTree{tree: NewTree(entries)}, path: path, header: header, opts: opts.withDefaults()}
	if hasUserMessage(entries) {
		if err := s.flushLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// OpenFileStore opens an existing session file to continue it: it takes the file's lock
// (a *LockedError if another process has it), reads it, and rewrites it by temp file and
// rename if it needs migrating. A missing or empty file is a new session at that path, as
// with pi's --session. Anything that is not a session file (a directory, a FIFO, a device, a
// file whose first line is not a session header) is refused with a *NotSessionFileError
// before the lock is taken, and left as it was.
func OpenFileStore(path, cwd string, opts FileOptions) (*FileStore, error) {
	opts = opts.withDefaults()
	if err := CheckSessionPath(path); err != nil {
		return nil, err
	}
	lock, err := AcquireLock(path)
	if err != nil {
		return nil, err
	}
	s, err := openLocked(path, cwd, opts, lock)
	if err != nil {
		_ = lock.Release()
		return nil, err
	}
	return s, nil
}

func openLocked(path, cwd string, opts FileOptions, lock *Lock) (*FileStore, error) {
	s := &FileStore{lockedTree: lockedTree{tree: NewTree(nil)}, path: path, opts: opts, lock: lock}
	data, err := readSessionFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		// A new session at this path: its file is written (appended to, when it exists
		// empty) with the first user message.
		s.header = Header{Type: "session", Version: CurrentVersion, ID: NewSessionID(), Timestamp: opts.Now(), Cwd: cwd}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	l, nodes := parseLazy(data)
	if !l.HasHeader {
		// The file changed since CheckSessionPath: refuse it all the same.
		return nil, &NotSessionFileError{File: path, Reason: "its first line is not a session header"}
	}
	s.warnings = l.Warnings
	s.tree = newTreeOfLinked(nodes, l)
	s.header = l.Header
	// A newer version keeps its number: the file is read as version 3 but never rewritten,
	// and the header does not claim otherwise.
	if l.Migrated {
		if err := s.rewriteLocked(); err != nil {
			return nil, err
		}
		return s, nil
	}
	s.written = true
	s.needNewline = l.NeedsNewline
	return s, nil
}

func hasUserMessage(entries []*Entry) bool {
	for _, e := range entries {
		if holdsMessage[*core.UserMessage](e) {
			return true
		}
	}
	return false
}

// SessionID implements [Store].
func (s *FileStore) SessionID() string { return s.header.ID }

// File implements [Store].
func (s *FileStore) File() string { return s.path }

// Header returns the session's header.
func (s *FileStore) Header() Header { return s.header }

// Warnings returns what was skipped or repaired when the file was read, and the entries whose
// body turned out corrupt when first decoded (see [Tree]).
func (s *FileStore) Warnings() []string {
	return append(slices.Clone(s.warnings), s.CorruptEntries()...)
}

// Failed returns the write error that made the session memory-only, if any.
func (s *FileStore) Failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Append implements [Store]. The entry joins the tree even when writing it fails; the
// failure is returned once, and later entries are kept in memory only.
func (s *FileStore) Append(e *Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	FillEntry(e, s.tree, s.opts.NewID, s.opts.Now)
	s.tree.add(e)
	if s.failed != nil || s.closed {
		return nil
	}
	if !s.written {
		if !holdsMessage[*core.UserMessage](e) {
			return nil
		}
		return s.flushLocked()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return s.failLocked(err)
	}
	return s.writeLocked(line)
}

// flushLocked writes the header and every entry so far, as one write: the first user
// message has arrived (or a fork copied one).
func (s *FileStore) flushLocked() error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return s.failLocked(err)
	}
	if err := checkStillNew(s.path); err != nil {
		return s.failLocked(err)
	}
	if s.lock == nil {
		lock, err := AcquireLock(s.path)
		if err != nil {
			return s.failLocked(err)
		}
		s.lock = lock
	}
	buf, err := s.contentLocked()
	if err != nil {
		return s.failLocked(err)
	}
	s.written = true
	return s.writeLocked(buf[:len(buf)-1])
}

// contentLocked is the whole file: the header and every entry, one line each.
func (s *FileStore) contentLocked() ([]byte, error) {
	buf, err := json.Marshal(s.header)
	if err != nil {
		return nil, err
	}
	buf = append(buf, '\n')
	for _, n := range s.tree.nodes {
		line := n.raw
		if line == nil {
			var err error
			if line, err = json.Marshal(n.e); err != nil {
				return nil, err
			}
		}
		buf = append(append(buf, line...), '\n')
	}
	return buf, nil
}

// writeLocked appends line and "\n" in one write, preceded by "\n" when the file ends in a
// torn line.
func (s *FileStore) writeLocked(line []byte) error {
	if s.file == nil {
		f, err := s.opts.OpenAppend(s.path)
		if err != nil {
			return s.failLocked(err)
		}
		s.file = f
	}
	buf := make([]byte, 0, len(line)+2)
	if s.needNewline {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	n, err := s.file.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 {
			// Part of the line reached the file: it now ends torn.
			s.needNewline = buf[n-1] != '\n'
		}
		return s.failLocked(err)
	}
	s.needNewline = false
	if s.opts.Fsync == FsyncEntry {
		if err := s.file.Sync(); err != nil {
			return s.failLocked(err)
		}
	}
	return nil
}

func (s *FileStore) failLocked(err error) error {
	s.failed = fmt.Errorf("%w %s: %w", ErrPersistence, s.path, err)
	if s.file != nil {
		_ = s.file.Close()
		s.file = nil
	}
	return s.failed
}

// rewriteLocked replaces the file with the store's content by writing a temp file in the
// same directory, syncing it and renaming it over the file (a file is only ever rewritten
// this way; docs/sessions.md#the-format).
func (s *FileStore) rewriteLocked() error {
	buf, err := s.contentLocked()
	if err != nil {
		return err
	}
	if err := atomicWriteFile(s.path, buf); err != nil {
		return err
	}
	s.written = true
	s.needNewline = false
	return nil
}

// atomicWriteFile replaces path with data by temp file and rename; the new file keeps the
// old one's permission bits.
func atomicWriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if fi, serr := os.Stat(path); serr == nil {
		_ = tmp.Chmod(fi.Mode().Perm())
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return renameError(err, path)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Sync implements [Store]: it forces what was written to stable storage.
func (s *FileStore) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil || s.failed != nil {
		return nil
	}
	if err := s.file.Sync(); err != nil {
		return s.failLocked(err)
	}
	return nil
}

// Close implements [Store]: it syncs, closes the file and releases the lock. Later appends
// stay in memory.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.file != nil {
		if s.failed == nil {
			errs = append(errs, s.file.Sync())
		}
		errs = append(errs, s.file.Close())
		s.file = nil
	}
	errs = append(errs, s.lock.Release())
	s.lock = nil
	return errors.Join(errs...)
}
