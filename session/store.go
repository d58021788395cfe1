package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"runtime"
	"slices"
	"strings"
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
//
// An entry read from a large file is held as its line and its head (id, parent id, type)
// only, and decoded the first time it is asked for (see docs/sessions.md, "Performance"):
// walking a branch needs the heads alone, so opening a session and answering for one branch
// never decodes the entries off it.
type Tree struct {
	nodes []*node
	byID  map[string]*node
	leaf  string
	// corrupt describes every entry whose body failed to decode when it was first needed.
	corrupt []string
}

// node is one entry of a tree: its head, always, and the entry itself once decoded.
type node struct {
	ID       string
	ParentID string
	Type     sessionapi.EntryType
	// raw is the entry's line (nil for an entry made in this process); e is the decoded
	// entry, nil until it is first needed.
	raw []byte
	e   *Entry
}

// NewTree returns a tree holding entries (in file order); the leaf is the last entry.
func NewTree(entries []*Entry) *Tree {
	t := &Tree{byID: make(map[string]*node, len(entries)), nodes: make([]*node, 0, len(entries))}
	for _, e := range entries {
		t.add(e)
	}
	return t
}

// newTreeOfLinked is newTreeOf with the index the loader built while linking (l.byID).
func newTreeOfLinked(nodes []*node, l *Loaded) *Tree {
	if l.byID == nil || len(l.byID) != len(nodes) {
		return newTreeOf(nodes)
	}
	t := &Tree{byID: l.byID, nodes: nodes}
	if len(nodes) > 0 {
		t.leaf = nodes[len(nodes)-1].ID
	}
	l.byID = nil
	return t
}

// newTreeOf returns a tree of nodes as a loader made them (in file order, linked).
func newTreeOf(nodes []*node) *Tree {
	t := &Tree{byID: make(map[string]*node, len(nodes)), nodes: nodes}
	for _, n := range nodes {
		t.byID[n.ID] = n
		t.leaf = n.ID
	}
	return t
}

func (t *Tree) add(e *Entry) {
	n := &node{ID: e.ID, ParentID: e.ParentID, Type: e.Type, raw: e.Raw, e: e}
	t.nodes = append(t.nodes, n)
	t.byID[e.ID] = n
	t.leaf = e.ID
}

// entry returns n's entry, decoding it on first use. A body that does not decode yields an
// entry with its head only (a message entry then has no message, and adds nothing to the
// context), and the failure is recorded once in corrupt.
func (t *Tree) entry(n *node) *Entry {
	if n.e != nil {
		return n.e
	}
	e, err := decodeBody(n.raw)
	t.settle(n, e, err)
	return n.e
}

// settle makes e, decoded from n's line with err, n's entry.
func (t *Tree) settle(n *node, e *Entry, err error) {
	if err != nil {
		t.corrupt = append(t.corrupt, fmt.Sprintf("entry %s: corrupt %s entry, read without its content: %v", n.ID, n.Type, err))
		e = &Entry{Type: n.Type, ID: n.ID, Timestamp: e.Timestamp}
	}
	// The head is the loader's: it may have repaired the parent id (the line says so too).
	e.ID, e.ParentID, e.Raw = n.ID, n.ParentID, n.raw
	n.e = e
}

// parallelDecode is the number of pending entries above which decodeAll uses every core.
const parallelDecode = 1024

// decodeAll decodes the pending entries of nodes, on several goroutines when they are many (a
// long branch read for the first time); the results are recorded in order as entry does.
func (t *Tree) decodeAll(nodes []*node) {
	var pending []*node
	for _, n := range nodes {
		if n.e == nil {
			pending = append(pending, n)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(pending) < parallelDecode || workers < 2 {
		return // entry decodes them one by one
	}
	type result struct {
		e   *Entry
		err error
	}
	results := make([]result, len(pending))
	var wg sync.WaitGroup
	chunk := (len(pending) + workers - 1) / workers
	for start := 0; start < len(pending); start += chunk {
		end := min(start+chunk, len(pending))
		wg.Go(func() {
			for i := start; i < end; i++ {
				results[i].e, results[i].err = decodeBody(pending[i].raw)
			}
		})
	}
	wg.Wait()
	for i, n := range pending {
		t.settle(n, results[i].e, results[i].err)
	}
}

// get returns the entry with id (decoded), or nil.
func (t *Tree) get(id string) *Entry {
	if n := t.byID[id]; n != nil {
		return t.entry(n)
	}
	return nil
}

// all returns every entry in file order, decoded.
func (t *Tree) all() []*Entry {
	out := make([]*Entry, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = t.entry(n)
	}
	return out
}

// Path returns the entries from the root to id (inclusive), following parent ids. An unknown
// id gives the path to the last entry. Only the entries on the path are decoded.
func (t *Tree) Path(id string) []*Entry {
	nodes := t.pathNodes(id)
	t.decodeAll(nodes)
	path := make([]*Entry, len(nodes))
	for i, n := range nodes {
		path[i] = t.entry(n)
	}
	return path
}

// pathNodes is [Tree.Path] over heads only.
func (t *Tree) pathNodes(id string) []*node {
	n := t.byID[id]
	if n == nil {
		if len(t.nodes) == 0 {
			return nil
		}
		n = t.nodes[len(t.nodes)-1]
	}
	// A path is at most every entry long; a longer walk is a parent cycle (a damaged file),
	// cut where it closes. Counting steps costs nothing, a set of seen ids a map as large as
	// the file. The path gets that bound as its capacity at once (8 bytes an entry, as
	// t.nodes holds): grown by append, a 10,000-entry branch allocated four times its final
	// size per getEntries, and on a heap just opened that is all fresh pages, each a page
	// fault (docs/benchmarks.md, issue 30's scenario 7).
	path := make([]*node, 0, len(t.nodes))
	for steps := 0; n != nil && steps <= len(t.nodes); steps++ {
		path = append(path, n)
		if n.ParentID == "" {
			break
		}
		n = t.byID[n.ParentID]
	}
	slices.Reverse(path)
	if len(path) > len(t.nodes) {
		path = dedupeCycle(path)
	}
	return path
}

// dedupeCycle keeps a cyclic walk's entries up to the first repeat (rare: a damaged file).
func dedupeCycle(path []*node) []*node {
	seen := make(map[*node]bool, len(path))
	for i := len(path) - 1; i >= 0; i-- {
		if seen[path[i]] {
			return path[i+1:]
		}
		seen[path[i]] = true
	}
	return path
}

// sessionName is [SessionName] decoding only the latest session_info entry.
func (t *Tree) sessionName() string {
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if t.nodes[i].Type == EntrySessionInfo {
			return strings.TrimSpace(t.entry(t.nodes[i]).Name)
		}
	}
	return ""
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
	return s.tree.all()
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
	return s.tree.get(id)
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
				e.ID = fmt.Sprintf("%s-%d", id, len(t.nodes))
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

// BranchPage is [PageBranch] over the current branch without decoding it: entries read from
// the file are answered with their lines (getEntries).
func (s *lockedTree) BranchPage(since string, limit int) (EntriesPage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var path []*node
	if s.tree.leaf != "" {
		path = s.tree.pathNodes(s.tree.leaf)
	}
	return pageOf(path, since, limit, func(n *node) string { return n.ID }, func(n *node) (json.RawMessage, error) {
		if n.raw != nil {
			return n.raw, nil
		}
		return json.Marshal(s.tree.entry(n))
	})
}

// CorruptEntries describes the entries whose body failed to decode when first needed.
func (s *lockedTree) CorruptEntries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tree.corrupt)
}
