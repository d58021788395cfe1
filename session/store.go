package session

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Store persists one session's entries as they are created (docs/sessions.md): every Append is
// durable on its own (one write per entry for the file store), and Sync forces what was
// appended to stable storage. The supervisor is the only writer; readers may call the query
// methods from any goroutine.
type Store interface {
	// SessionID is the session's id (the header id of a file).
	SessionID() string
	// File is the session file's path, or "" for a store that keeps nothing on disk.
	File() string
	// Append adds e as a child of the current leaf and makes it the leaf. It fills in ID,
	// ParentID and Timestamp when they are empty.
	Append(e *Entry) error
	// Entries returns every entry in file order.
	Entries() []*Entry
	// Leaf is the id of the current leaf, "" when the session has no entry.
	Leaf() string
	// SetLeaf moves the leaf to an existing entry ("" for none): the next append forks there.
	SetLeaf(id string) error
	// Entry returns the entry with id, or nil.
	Entry(id string) *Entry
	// Branch returns the entries from the root to the leaf.
	Branch() []*Entry
	// Sync forces appended entries to stable storage.
	Sync() error
	// Close releases the store (for a file: its lock).
	Close() error
}

// ErrEntryNotFound is returned for an unknown entry id.
var ErrEntryNotFound = errors.New("entry not found")

// Tree is the in-memory session tree that stores share: entries in file order, an index by
// id, and the leaf. It is not safe for concurrent use on its own; stores guard it.
type Tree struct {
	entries []*Entry
	byID    map[string]*Entry
	leaf    string
}

// NewTree returns a tree holding entries (in file order); the leaf is the last entry.
func NewTree(entries []*Entry) *Tree {
	t := &Tree{byID: make(map[string]*Entry, len(entries))}
	for _, e := range entries {
		t.add(e)
	}
	return t
}

func (t *Tree) add(e *Entry) {
	t.entries = append(t.entries, e)
	t.byID[e.ID] = e
	t.leaf = e.ID
}

// Path returns the entries from the root to id (inclusive), following parent ids. An unknown
// id gives the path to the last entry.
func (t *Tree) Path(id string) []*Entry {
	e := t.byID[id]
	if e == nil {
		if len(t.entries) == 0 {
			return nil
		}
		e = t.entries[len(t.entries)-1]
	}
	var path []*Entry
	// A path is at most every entry long; a longer walk is a parent cycle (a damaged file),
	// cut where it closes. Counting steps costs nothing, a set of seen ids a map as large as
	// the file.
	for steps := 0; e != nil && steps <= len(t.entries); steps++ {
		path = append(path, e)
		if e.ParentID == "" {
			break
		}
		e = t.byID[e.ParentID]
	}
	slices.Reverse(path)
	if len(path) > len(t.entries) {
		path = dedupeCycle(path)
	}
	return path
}

// dedupeCycle keeps a cyclic walk's entries up to the first repeat (rare: a damaged file).
func dedupeCycle(path []*Entry) []*Entry {
	seen := make(map[*Entry]bool, len(path))
	for i := len(path) - 1; i >= 0; i-- {
		if seen[path[i]] {
			return path[i+1:]
		}
		seen[path[i]] = true
	}
	return path
}

// lockedTree is the part both stores share: the session tree behind a mutex, and the
// queries of [Store] over it.
type lockedTree struct {
	mu   sync.Mutex
	tree *Tree
}

// Entries implements [Store].
func (s *lockedTree) Entries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tree.entries)
}

// Leaf implements [Store].
func (s *lockedTree) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.leaf
}

// SetLeaf implements [Store].
func (s *lockedTree) SetLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != "" && s.tree.byID[id] == nil {
		return fmt.Errorf("%w: %s", ErrEntryNotFound, id)
	}
	s.tree.leaf = id
	return nil
}

// Entry implements [Store].
func (s *lockedTree) Entry(id string) *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.byID[id]
}

// Branch implements [Store].
func (s *lockedTree) Branch() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.pathTo(s.tree.leaf)
}

// MemoryStore keeps a session in memory only (--no-session, and tests).
type MemoryStore struct {
	lockedTree
	id     string
	newID  func() string
	now    func() string
	failed error
}

// NewMemoryStore returns an empty in-memory session. newID makes entry ids (8 hex digits)
// and now makes ISO timestamps; both are injected so tests are deterministic.
func NewMemoryStore(sessionID string, newID func() string, now func() string) *MemoryStore {
	return &MemoryStore{lockedTree: lockedTree{tree: NewTree(nil)}, id: sessionID, newID: newID, now: now}
}

// SessionID implements [Store].
func (s *MemoryStore) SessionID() string { return s.id }

// File implements [Store].
func (s *MemoryStore) File() string { return "" }

// FailAppends makes every later Append fail with err, to test persistence failures.
func (s *MemoryStore) FailAppends(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = err
}

// Append implements [Store].
func (s *MemoryStore) Append(e *Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	FillEntry(e, s.tree, s.newID, s.now)
	s.tree.add(e)
	return nil
}

// FillEntry gives e an id unique in the tree, the current leaf as parent and a timestamp,
// where they are empty.
func FillEntry(e *Entry, t *Tree, newID func() string, now func() string) {
	if e.ID == "" {
		for i := 0; ; i++ {
			id := newID()
			if _, taken := t.byID[id]; !taken {
				e.ID = id
				break
			}
			if i > 100 {
				e.ID = fmt.Sprintf("%s-%d", id, len(t.entries))
				break
			}
		}
	}
	if e.ParentID == "" && e.ID != t.leaf {
		e.ParentID = t.leaf
	}
	if e.Timestamp == "" {
		e.Timestamp = now()
	}
}

// Sync implements [Store].
func (s *MemoryStore) Sync() error { return nil }

// Close implements [Store].
func (s *MemoryStore) Close() error { return nil }

// Branch returns the path from the root to the store's leaf.
func Branch(s Store) []*Entry { return s.Branch() }

func (t *Tree) pathTo(leaf string) []*Entry {
	if leaf == "" {
		return nil
	}
	return t.Path(leaf)
}
