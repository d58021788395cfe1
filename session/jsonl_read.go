package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// CurrentVersion is the session format version pi-rpc writes (pi's CURRENT_SESSION_VERSION).
const CurrentVersion = 3

// Header is a session file's first line (docs/sessions.md#the-format). It is not part of the tree.
type Header struct {
	Type      string `json:"type"`
	Version   int    `json:"version,omitempty"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
	// ParentSession is the file this session was forked from.
	ParentSession string `json:"parentSession,omitempty"`
}

// Loaded is a session file as read: its header, its entries in file order (their parent ids
// repaired), and what was wrong with it.
type Loaded struct {
	Header Header
	// HasHeader is false when the first line is not a session header (pi then treats the
	// file as empty); Header is then zero.
	HasHeader bool
	Entries   []*Entry
	// Warnings describe every skipped line and repaired entry, one line each, for the
	// caller to log or report.
	Warnings []string
	// NeedsNewline says the data does not end in "\n": the next append must start with one so
	// that a torn line is never joined to a new entry.
	NeedsNewline bool
	// Migrated says the entries were upgraded from an older format version (v1 or v2); a
	// writer rewrites the file (temp file and rename) before appending.
	Migrated bool
	// byID indexes the linked entries by id, for the tree (see newTreeOfLinked).
	byID map[string]*node
}

// ReadFile reads a session file without locking it (reading never locks; docs/sessions.md#locking).
// Like every session path, it is opened without blocking and must be a regular file.
func ReadFile(path string) (*Loaded, error) {
	data, err := readSessionFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data), nil
}

// parallelThreshold is the size above which lines are decoded on several goroutines: a
// 50 MB file decodes in a fraction of the time, and small files don't pay for goroutines.
const parallelThreshold = 1 << 20

// Parse reads session file content. It never fails and never panics: a torn or corrupt line
// is skipped with a warning, an entry whose parent was lost is attached to the previous valid
// entry, and content without a header yields HasHeader false. Entries keep their line in Raw,
// sharing data's memory (data must not be modified afterwards).
func Parse(data []byte) *Loaded {
	l, nodes := parse(data, false)
	l.byID = nil // only a tree keeps the index
	l.Entries = make([]*Entry, len(nodes))
	for i, n := range nodes {
		l.Entries[i] = n.e
	}
	return l
}

// parseLazy is [Parse] that decodes each line's head only (type, id, parent id, and a message
// entry's role): the bodies are decoded by the tree when first needed. A line that is not
// JSON, or whose head is wrong, is skipped at once as Parse skips it; a body that is wrong in
// any other way is reported when it is decoded. Loaded.Entries stays nil.
func parseLazy(data []byte) (*Loaded, []*node) { return parse(data, true) }

func parse(data []byte, lazy bool) (*Loaded, []*node) {
	l := &Loaded{}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		l.NeedsNewline = true
	}
	lines := splitLines(data)
	first := 0
	for first < len(lines) && isBlank(lines[first].text) {
		first++
	}
	if first == len(lines) {
		return l, nil
	}
	if h, ok := parseHeader(lines[first].text); ok {
		l.Header, l.HasHeader = h, true
		first++
	}
	lines = lines[first:]
	version := CurrentVersion
	if l.HasHeader {
		version = l.Header.Version
		if version == 0 {
			version = 1
		}
	}
	if version < CurrentVersion {
		l.Migrated = true
		lines = migrate(lines, version, l)
		l.Header.Version = CurrentVersion
	} else if version > CurrentVersion {
		l.Warnings = append(l.Warnings, fmt.Sprintf("session format version %d is newer than %d: read as version %d (what this version does not know is ignored); the file is never rewritten", version, CurrentVersion, CurrentVersion))
	}
	decoded := decodeLines(lines, len(data) >= parallelThreshold, lazy)
	nodes := make([]*node, 0, len(lines))
	last := len(lines) - 1
	for i, ln := range lines {
		d := decoded[i]
		switch {
		case d.blank:
			continue
		case d.err != nil && i == last && l.NeedsNewline:
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: incomplete last line (%d bytes) skipped: the process writing it was interrupted", ln.no, len(ln.text)))
			continue
		case d.err != nil:
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: corrupt line skipped: %v", ln.no, d.err))
			continue
		}
		nodes = append(nodes, d.node)
	}
	return l, link(nodes, l)
}

// line is one line of a file: its 1-based number and its bytes without the newline.
type line struct {
	no   int
	text []byte
}

func splitLines(data []byte) []line {
	n := bytes.Count(data, []byte{'\n'}) + 1
	lines := make([]line, 0, n)
	for no := 1; len(data) > 0; no++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, line{no, data})
			break
		}
		lines = append(lines, line{no, data[:i]})
		data = data[i+1:]
	}
	return lines
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// parseHeader accepts a line as a header the way pi does: type "session" and a string id.
func parseHeader(b []byte) (Header, bool) {
	var probe struct {
		Type string           `json:"type"`
		ID   *json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Type != "session" || probe.ID == nil || len(*probe.ID) == 0 || (*probe.ID)[0] != '"' {
		return Header{}, false
	}
	var h Header
	if json.Unmarshal(b, &h) != nil {
		return Header{}, false
	}
	return h, true
}

type decodedLine struct {
	node  *node
	err   error
	blank bool
}

// decodeLines decodes every line, in parallel chunks for large files. Lines are independent,
// so only linking (done after) needs file order.
func decodeLines(lines []line, parallel, lazy bool) []decodedLine {
	out := make([]decodedLine, len(lines))
	workers := runtime.GOMAXPROCS(0)
	if !parallel || workers < 2 || len(lines) < 2*workers {
		sc := &entryScratch{}
		for i := range lines {
			out[i] = decodeLine(lines[i].text, sc, lazy)
		}
		return out
	}
	var wg sync.WaitGroup
	chunk := (len(lines) + workers - 1) / workers
	for start := 0; start < len(lines); start += chunk {
		end := min(start+chunk, len(lines))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &entryScratch{}
			for i := start; i < end; i++ {
				out[i] = decodeLine(lines[i].text, sc, lazy)
			}
		}()
	}
	wg.Wait()
	return out
}

func decodeLine(b []byte, sc *entryScratch, lazy bool) decodedLine {
	b = bytes.TrimRight(b, "\r")
	if isBlank(b) {
		return decodedLine{blank: true}
	}
	if lazy {
		n, err := decodeHead(b, sc)
		if err != nil {
			// Report the line as Parse does (the same checks, in the same words).
			if ferr := (&Entry{}).decodeWith(b, sc); ferr != nil {
				err = ferr
			}
			return decodedLine{err: err}
		}
		return decodedLine{node: n}
	}
	e := &Entry{}
	if err := e.decodeWith(b, sc); err != nil {
		return decodedLine{err: err}
	}
	if e.ID == "" {
		return decodedLine{err: fmt.Errorf("entry of type %q has no id", e.Type)}
	}
	// The file's buffer is kept anyway: share it rather than copy the line.
	e.Raw = b
	return decodedLine{node: &node{ID: e.ID, ParentID: e.ParentID, Type: e.Type, raw: b, e: e}}
}

// lineHead is what a lazy loader decodes of a line.
type lineHead struct {
	entryHead
	Message *messageHead `json:"message"`
	// parent and message are what ParentID and Message point at when headScanner sets them, so
	// that scanning a head into a reused lineHead allocates nothing.
	parent  string
	message messageHead
}

// messageHead is what a lazy loader decodes of a message entry's message.
type messageHead struct {
	Role string `json:"role"`
}

// decodeHead decodes a line's head and checks what decoding it in full would check first:
// a known type, an id, and a message entry's message with a role.
func decodeHead(b []byte, sc *entryScratch) (*node, error) {
	h := &sc.head
	*h = lineHead{}
	if err := sc.heads.scan(b, h); err != nil {
		return nil, err
	}
	t, ok := entryTypes[h.Type]
	if !ok {
		return nil, fmt.Errorf("session: unknown entry type %q", h.Type)
	}
	if t == EntryMessage && (h.Message == nil || h.Message.Role == "") {
		return nil, errors.New("session: message entry without a message")
	}
	if h.ID == "" {
		return nil, fmt.Errorf("entry of type %q has no id", t)
	}
	n := &node{ID: h.ID, Type: t, raw: b}
	if h.ParentID != nil {
		n.ParentID = *h.ParentID
	}
	return n, nil
}

// entryTypes maps each known type to its constant, so that heads share one string per type.
var entryTypes = map[sessionapi.EntryType]sessionapi.EntryType{
	EntryMessage: EntryMessage, EntryThinkingLevelChange: EntryThinkingLevelChange,
	EntryModelChange: EntryModelChange, EntryCompaction: EntryCompaction,
	EntryBranchSummary: EntryBranchSummary, EntryCustom: EntryCustom,
	EntryCustomMessage: EntryCustomMessage, EntryLabel: EntryLabel, EntrySessionInfo: EntrySessionInfo,
	EntryUsage: EntryUsage, EntryContextEdit: EntryContextEdit,
}

// link drops entries whose id repeats an earlier one and attaches every entry whose parent
// is not in the file, or is itself, to the previous valid entry (docs/sessions.md#durability),
// with a warning: a lost line then costs only itself, not the rest of its branch, and a corrupt
// self-reference does not cut the branch off from what came before it (pi makes it a root,
// which drops every earlier message from the context).
func link(nodes []*node, l *Loaded) []*node {
	// One map serves both passes and then the tree: the first entry of each id.
	byID := make(map[string]*node, len(nodes))
	for _, n := range nodes {
		if _, dup := byID[n.ID]; !dup {
			byID[n.ID] = n
		}
	}
	out := nodes[:0]
	for _, n := range nodes {
		if byID[n.ID] != n {
			l.Warnings = append(l.Warnings, fmt.Sprintf("entry %s: duplicate id, later copy skipped", n.ID))
			continue
		}
		if n.ParentID != "" && (n.ParentID == n.ID || byID[n.ParentID] == nil) {
			prev := ""
			if len(out) > 0 {
				prev = out[len(out)-1].ID
			}
			problem := fmt.Sprintf("parent %s is missing", n.ParentID)
			if n.ParentID == n.ID {
				problem = "it names itself as its parent"
			}
			if prev == "" {
				l.Warnings = append(l.Warnings, fmt.Sprintf("entry %s: %s; it becomes a root", n.ID, problem))
			} else {
				l.Warnings = append(l.Warnings, fmt.Sprintf("entry %s: %s; attached to the previous entry %s", n.ID, problem, prev))
			}
			n.ParentID = prev
			// The line is an object (its head decoded), so it always takes the new field;
			// should it not, the old line stays the one to decode.
			if raw := setRawField(n.raw, "parentId", prev); raw != nil {
				n.raw = raw
			}
			if n.e != nil {
				n.e.ParentID, n.e.Raw = prev, n.raw
			}
		}
		out = append(out, n)
	}
	l.byID = byID
	return out
}

// setRawField returns raw with one top-level field replaced ("" writes null), keeping every
// other field, so that a repaired entry still carries what this version does not know. It
// returns nil (the entry is then marshalled from its fields) if raw is not an object.
func setRawField(raw json.RawMessage, key, value string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if value == "" {
		m[key] = json.RawMessage("null")
	} else {
		b, _ := json.Marshal(value)
		m[key] = b
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// migrate upgrades v1 and v2 entry lines to v3 (pi's migrateV1ToV2 and migrateV2ToV3): v1
// entries gain ids chained in file order and a compaction's firstKeptEntryIndex (an index
// into the file's entries, header included) becomes firstKeptEntryId; v2's message role
// hookMessage becomes custom. Lines that are not JSON objects are left for the decoder to
// reject.
func migrate(lines []line, version int, l *Loaded) []line {
	objs := make([]map[string]json.RawMessage, len(lines))
	for i, ln := range lines {
		var m map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimRight(ln.text, "\r"), &m) == nil {
			objs[i] = m
		}
	}
	if version < 2 {
		taken := map[string]bool{}
		prev := ""
		for _, m := range objs {
			if m == nil {
				continue
			}
			id := newEntryID(taken)
			m["id"] = jsonString(id)
			if prev == "" {
				m["parentId"] = json.RawMessage("null")
			} else {
				m["parentId"] = jsonString(prev)
			}
			prev = id
		}
		for _, m := range objs {
			if m == nil || string(m["type"]) != `"compaction"` {
				continue
			}
			var idx *int
			if json.Unmarshal(m["firstKeptEntryIndex"], &idx) == nil && idx != nil {
				// The index counts the header as entry 0.
				if j := *idx - 1; j >= 0 && j < len(objs) && objs[j] != nil {
					m["firstKeptEntryId"] = objs[j]["id"]
				}
				delete(m, "firstKeptEntryIndex")
			}
		}
	}
	for _, m := range objs {
		if m == nil || string(m["type"]) != `"message"` {
			continue
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(m["message"], &msg) == nil && string(msg["role"]) == `"hookMessage"` {
			msg["role"] = jsonString("custom")
			m["message"], _ = json.Marshal(msg)
		}
	}
	out := make([]line, len(lines))
	for i, ln := range lines {
		out[i] = ln
		if objs[i] != nil {
			out[i].text, _ = json.Marshal(objs[i])
		}
	}
	l.Warnings = append(l.Warnings, fmt.Sprintf("session format version %d migrated to %d", version, CurrentVersion))
	return out
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
