package protocol

import (
	"encoding/json"

	"github.com/invopop/jsonschema"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Session method names (docs/protocol.md#session-methods; compact is in methods.go).
const (
	MethodNewSession      = "newSession"
	MethodListSessions    = "listSessions"
	MethodOpenSession     = "openSession"
	MethodForkSession     = "forkSession"
	MethodGetTree         = "getTree"
	MethodGetEntries      = "getEntries"
	MethodNavigateTree    = "navigateTree"
	MethodSetLabel        = "setLabel"
	MethodSetSessionName  = "setSessionName"
	MethodGetSessionStats = "getSessionStats"
)

// ListSessionsParams are listSessions' params.
type ListSessionsParams struct {
	SessionParams
	// Cwd selects another working directory's sessions; default the server's.
	Cwd string `json:"cwd,omitempty"`
	// Cursor is the previous page's nextCursor.
	Cursor string `json:"cursor,omitempty"`
	// Limit is the page size, default 50.
	Limit int `json:"limit,omitempty"`
}

// ListSessionsResult is listSessions' result: sessions newest first, and the cursor of the
// next page when there is one.
type ListSessionsResult struct {
	Sessions   []sessionapi.SessionInfo `json:"sessions"`
	NextCursor string                   `json:"nextCursor,omitempty"`
}

// OpenSessionParams are openSession's params.
type OpenSessionParams struct {
	SessionParams
	// Session is a session file path, or a session id or a unique prefix of one.
	Session string `json:"session"`
}

// ForkSessionParams are forkSession's params.
type ForkSessionParams struct {
	SessionParams
	// EntryID is a user message entry: the new session holds the branch before it.
	EntryID string `json:"entryId"`
}

// GetEntriesParams are getEntries' params.
type GetEntriesParams struct {
	SessionParams
	// Since is an entry id of the current branch: only the entries after it are returned
	// (a previous page's nextCursor, or the last entry a client has).
	Since string `json:"since,omitempty"`
	// Limit caps the number of entries; 0 returns the rest of the branch.
	Limit int `json:"limit,omitempty"`
}

// EntriesResult is getEntries' result: the branch's entries, and the cursor of the next page
// (pass it as since) when limit cut the branch short.
type EntriesResult struct {
	Entries    []SessionEntry `json:"entries"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// SessionEntry is one session entry exactly as pi's session file (version 3) holds it: type,
// 8-hex id, parentId (null for a root), ISO timestamp, and the fields of its type (message,
// thinkingLevel, provider/modelId, summary/firstKeptEntryId/tokensBefore, fromId,
// customType/data/content/display, targetId/label, name). See docs/sessions.md.
type SessionEntry json.RawMessage

// MarshalJSON writes the entry's JSON as it is.
func (e SessionEntry) MarshalJSON() ([]byte, error) { return json.RawMessage(e).MarshalJSON() }

// UnmarshalJSON keeps the entry's JSON as it is.
func (e *SessionEntry) UnmarshalJSON(b []byte) error {
	*e = append((*e)[:0], b...)
	return nil
}

// JSONSchema describes the fields every entry has.
func (SessionEntry) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("type", &jsonschema.Schema{Type: "string", Enum: []any{"message", "thinking_level_change", "model_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info", "usage", "context_edit"}})
	props.Set("id", &jsonschema.Schema{Type: "string"})
	props.Set("parentId", &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}})
	props.Set("timestamp", &jsonschema.Schema{Type: "string"})
	return &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"type", "id", "parentId", "timestamp"}}
}

// NavigateTreeParams are navigateTree's params.
type NavigateTreeParams struct {
	SessionParams
	EntryID string `json:"entryId"`
	// Summarize asks the model to summarise the branch being left into a branch_summary
	// entry at the new position.
	Summarize bool `json:"summarize,omitempty"`
}

// SetLabelParams are setLabel's params.
type SetLabelParams struct {
	SessionParams
	EntryID string `json:"entryId"`
	// Label is the new label; absent or empty clears it.
	Label string `json:"label,omitempty"`
}

// SetSessionNameParams are setSessionName's params.
type SetSessionNameParams struct {
	SessionParams
	// Name is trimmed; empty clears the name.
	Name string `json:"name"`
}

// SessionNameResult is setSessionName's result: the name in force.
type SessionNameResult struct {
	Name string `json:"name"`
}

// The session methods join the schema's method table.
func init() {
	MethodTypes = append(MethodTypes,
		MethodType{MethodNewSession, "Switches to a new, empty session (refused while busy).", SessionParams{}, sessionapi.SessionRef{}, false},
		MethodType{MethodListSessions, "Lists a working directory's sessions, newest first, a page at a time.", ListSessionsParams{}, ListSessionsResult{}, false},
		MethodType{MethodOpenSession, "Switches to an existing session by file or id (refused while busy; -32011 if another process holds it).", OpenSessionParams{}, sessionapi.SessionRef{}, false},
		MethodType{MethodForkSession, "Starts a new session holding the branch before a user message, and returns that message's text.", ForkSessionParams{}, sessionapi.ForkResult{}, false},
		MethodType{MethodGetTree, "Returns every entry of the session, flat, with labels and the leaf.", SessionParams{}, sessionapi.TreeView{}, false},
		MethodType{MethodGetEntries, "Returns the current branch's entries from the root (compacted ones included), a page at a time.", GetEntriesParams{}, EntriesResult{}, false},
		MethodType{MethodNavigateTree, "Moves the leaf to another entry of the session, optionally summarising the branch left.", NavigateTreeParams{}, sessionapi.NavigateResult{}, false},
		MethodType{MethodSetLabel, "Sets or clears an entry's label.", SetLabelParams{}, Empty{}, false},
		MethodType{MethodSetSessionName, "Names the session (empty clears the name).", SetSessionNameParams{}, SessionNameResult{}, false},
		MethodType{MethodGetSessionStats, "Returns message counts, token and cost totals and context usage of the current context.", SessionParams{}, sessionapi.Stats{}, false},
	)
}
