package session

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// timeNow is the wall clock of file names and timestamps; tests replace it.
var timeNow = time.Now

// NewSessionID returns a session id: a UUIDv7, as pi makes them, so ids sort by creation.
func NewSessionID() string { return uuid.Must(uuid.NewV7()).String() }

// EncodeCwd is pi's directory name for a cwd's sessions: the path without its leading
// separator, with "/", "\" and ":" replaced by "-", between "--" and "--".
func EncodeCwd(cwd string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(cwd, "/"), `\`)
	p = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(p)
	return "--" + p + "--"
}

// FileName is pi's session file name: the creation time in ISO form with ":" and "." made
// "-", then "_", the session id and ".jsonl".
func FileName(created time.Time, id string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(ISOTime(created))
	return ts + "_" + id + ".jsonl"
}

// Catalog is where this process's sessions live and how they are opened: the directory for
// the cwd (pi's layout under $PI_RPC_HOME/sessions, or --session-dir), the file options,
// and what a resumed session needs to restore its model. A Catalog with Memory set keeps
// sessions in memory only (--no-session).
type Catalog struct {
	// Root is the directory holding one directory per cwd ($PI_RPC_HOME/sessions).
	Root string
	// Dir is this cwd's session directory: Root/EncodeCwd(Cwd), or --session-dir.
	Dir string
	// CustomDir says Dir was given with --session-dir: every cwd's sessions share it.
	CustomDir bool
	Cwd       string
	Memory    bool
	Options   FileOptions
	// ResolveModel finds a model recorded in a session among the configured providers; nil
	// or false when it is not configured here (the current model is kept then).
	ResolveModel func(provider, modelID string) (core.Model, core.Provider, bool)
	// ModelFromFlags says --model was given: it wins over the model a session recorded.
	ModelFromFlags bool
	// ThinkingFromFlags says --thinking was given: it wins over the session's level.
	ThinkingFromFlags bool
}

// DirFor is the session directory of a cwd.
func (c *Catalog) DirFor(cwd string) string {
	if c.CustomDir || cwd == "" || cwd == c.Cwd {
		return c.Dir
	}
	return filepath.Join(c.Root, EncodeCwd(cwd))
}

// Create returns the store of a new, empty session (its file appears with the first user
// message). parentSession is the file it was forked from, if any.
func (c *Catalog) Create(parentSession string, entries []*Entry) (Store, error) {
	return c.CreateWithID(NewSessionID(), parentSession, entries)
}

// CreateWithID is Create with a session id the caller chose (pi 1.6.0's --session-id).
func (c *Catalog) CreateWithID(id, parentSession string, entries []*Entry) (Store, error) {
	now := timeNow()
	if c.Memory {
		opts := c.Options.withDefaults()
		m := NewMemoryStore(id, opts.NewID, opts.Now)
		for _, e := range entries {
			_ = m.Append(e)
		}
		return m, nil
	}
	h := Header{ID: id, Timestamp: ISOTime(now), Cwd: c.Cwd, ParentSession: parentSession}
	return NewFileStore(filepath.Join(c.Dir, FileName(now, id)), h, entries, c.Options)
}

// ErrSessionNotFound is returned when a session reference matches no file.
var ErrSessionNotFound = errors.New("session not found")

// Resolve turns a --session / openSession reference into a file: an existing path (or one
// ending in .jsonl, which may not exist yet), else a session id or a unique prefix of one
// among this cwd's sessions, then among every cwd's.
func (c *Catalog) Resolve(ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("%w: empty reference", ErrSessionNotFound)
	}
	if strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl") {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return filepath.Abs(ref)
	}
	dirs := []string{c.Dir}
	if !c.CustomDir && c.Root != "" {
		if all, err := os.ReadDir(c.Root); err == nil {
			for _, d := range all {
				if p := filepath.Join(c.Root, d.Name()); d.IsDir() && p != c.Dir {
					dirs = append(dirs, p)
				}
			}
		}
	}
	for _, dir := range dirs {
		var matches []string
		for _, f := range sessionFiles(dir) {
			id := fileSessionID(f)
			if id == ref {
				return f, nil
			}
			if strings.HasPrefix(id, ref) {
				matches = append(matches, f)
			}
		}
		switch len(matches) {
		case 1:
			return matches[0], nil
		case 0:
		default:
			return "", fmt.Errorf("session id prefix %q is ambiguous: %d sessions match", ref, len(matches))
		}
	}
	return "", fmt.Errorf("%w: no session file or id matches %q", ErrSessionNotFound, ref)
}

// fileSessionID is the session id in a file name (after the last "_"), or the header's
// when the name does not follow pi's pattern.
func fileSessionID(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if i := strings.LastIndexByte(base, '_'); i >= 0 {
		return base[i+1:]
	}
	return base
}

// FindID returns this cwd's session file whose session id is exactly id, if there is one.
func (c *Catalog) FindID(id string) (string, bool) {
	for _, f := range sessionFiles(c.Dir) {
		if fileSessionID(f) == id {
			return f, true
		}
	}
	return "", false
}

// sessionFiles lists the .jsonl files of a directory.
func sessionFiles(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, d.Name()))
		}
	}
	return out
}

// Open opens a session to continue it. The file is locked for this process; a *LockedError
// says another process has it.
func (c *Catalog) Open(ref string) (Store, error) {
	path, err := c.Resolve(ref)
	if err != nil {
		return nil, err
	}
	return OpenFileStore(path, c.Cwd, c.Options)
}

// Continue opens the most recent session of this cwd that no other process holds (pi's
// --continue, which picks the newest file by mtime), or returns nil if there is none.
func (c *Catalog) Continue() (Store, error) {
	type cand struct {
		path  string
		mtime time.Time
	}
	var cands []cand
	for _, f := range sessionFiles(c.Dir) {
		fi, err := os.Stat(f)
		if err != nil || !hasSessionHeader(f) {
			continue
		}
		cands = append(cands, cand{f, fi.ModTime()})
	}
	slices.SortFunc(cands, func(a, b cand) int { return b.mtime.Compare(a.mtime) })
	for _, cd := range cands {
		s, err := OpenFileStore(cd.path, c.Cwd, c.Options)
		if IsLocked(err) {
			continue
		}
		return s, err
	}
	return nil, nil
}

// hasSessionHeader checks the first line the way pi's isValidSessionFile does; an empty file
// has none.
func hasSessionHeader(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() > 0 && CheckSessionPath(path) == nil
}

// ReadInfo reads a session file's summary without locking it; false if it is not a session
// file.
func ReadInfo(path string) (sessionapi.SessionInfo, bool) {
	l, err := ReadFile(path)
	if err != nil || !l.HasHeader {
		return sessionapi.SessionInfo{}, false
	}
	info := sessionapi.SessionInfo{ID: l.Header.ID, File: path, Cwd: l.Header.Cwd}
	var last int64
	for _, e := range l.Entries {
		if e.Type == EntrySessionInfo {
			info.Name = strings.TrimSpace(e.Name)
		}
		if e.Type != EntryMessage {
			continue
		}
		info.MessageCount++
		var ts int64
		switch m := e.Message.(type) {
		case *core.UserMessage:
			ts = m.Timestamp
			if t := messageText(m.Content, " "); info.FirstMessage == "" && t != "" {
				info.FirstMessage = t
			}
		case *core.AssistantMessage:
			ts = m.Timestamp
		default:
			continue
		}
		if ts == 0 {
			ts = isoMillis(e.Timestamp)
		}
		last = max(last, ts)
	}
	if info.FirstMessage == "" {
		info.FirstMessage = "(no messages)"
	}
	switch {
	case last > 0:
		info.Modified = ISOTime(time.UnixMilli(last))
	case isoMillis(l.Header.Timestamp) != 0:
		info.Modified = ISOTime(time.UnixMilli(isoMillis(l.Header.Timestamp)))
	default:
		if fi, err := os.Stat(path); err == nil {
			info.Modified = ISOTime(fi.ModTime())
		}
	}
	return info, true
}

// messageText joins a message's text blocks with sep.
func messageText(content []core.Content, sep string) string {
	var parts []string
	for i := range content {
		if content[i].Type == core.ContentText {
			parts = append(parts, content[i].Text)
		}
	}
	return strings.Join(parts, sep)
}

// List returns a cwd's sessions ("" for this one), newest first, a page at a time: limit
// sessions after cursor (the nextCursor of the previous page), and the cursor of the next
// page ("" after the last). Files that are not sessions are left out.
func (c *Catalog) List(cwd, cursor string, limit int) ([]sessionapi.SessionInfo, string, error) {
	if limit <= 0 {
		limit = 50
	}
	if cwd == "" {
		cwd = c.Cwd
	}
	var after *sessionapi.SessionInfo
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		mod, file, ok := strings.Cut(string(raw), "\x00")
		if err != nil || !ok {
			return nil, "", fmt.Errorf("invalid cursor %q", cursor)
		}
		after = &sessionapi.SessionInfo{Modified: mod, File: file}
	}
	var all []sessionapi.SessionInfo
	for _, f := range sessionFiles(c.DirFor(cwd)) {
		info, ok := ReadInfo(f)
		if !ok || (c.CustomDir && info.Cwd != cwd) {
			continue
		}
		all = append(all, info)
	}
	order := func(a, b sessionapi.SessionInfo) int {
		return cmp.Or(strings.Compare(b.Modified, a.Modified), strings.Compare(a.File, b.File))
	}
	slices.SortFunc(all, order)
	if after != nil {
		i, _ := slices.BinarySearchFunc(all, *after, order)
		for i < len(all) && order(all[i], *after) <= 0 {
			i++
		}
		all = all[i:]
	}
	next := ""
	if len(all) > limit {
		all = all[:limit]
		last := all[limit-1]
		next = base64.RawURLEncoding.EncodeToString([]byte(last.Modified + "\x00" + last.File))
	}
	if all == nil {
		all = []sessionapi.SessionInfo{}
	}
	return all, next, nil
}
