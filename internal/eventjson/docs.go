package eventjson

import "strings"

// Doc is what the documentation of a JSON-RPC field says beyond its name: package protocol's
// documentation types (protocol/events_gen.go, written from this description by
// protocol/internal/genevents) carry it, and schema.json and the TypeScript types follow
// from them.
type Doc struct {
	// Type is the field's Go type in package protocol: "string", "[]Message",
	// "*AssistantMessage".
	Type string
	// Comment is the field's doc comment, starting with its Go name; "" for none.
	Comment string
	// Schema is the field's jsonschema struct tag, such as "enum=a,enum=b"; "" for none.
	Schema string
}

// typeDoc is what the documentation type of an event or assistant-message step says beyond
// its fields.
type typeDoc struct {
	// goName names the type in package protocol.
	goName string
	// comment is its doc comment, starting with goName.
	comment string
	// embed is the Go type (in package protocol) embedded after "type" whose fields are a
	// session event's: its payload's; "" for none.
	embed string
	// envelope is the embedded envelope type: runEnvelope, envelope, or "" for a step.
	envelope string
	// sessionID is the doc comment of the sessionId the event carries after the envelope
	// on a connection with one session (on one with several, every event carries it); ""
	// when it carries none.
	sessionID string
}

// The envelopes of protocol/events.go.
const (
	// runEnvelope is the core events': seq and runId.
	runEnvelope = "RunEnvelope"
	// envelope is the session events': seq and, during a run, runId.
	envelope = "Envelope"
)

// TypeDoc documents an event or assistant-message step of the JSON-RPC dialect: its
// documentation type in package protocol holds "type" (with its value as the schema's
// enum), Embed, Fields, Envelope and sessionId, in that order.
type TypeDoc struct {
	// Type is the value of the "type" field: agent_start, text_delta.
	Type string
	// GoName names the documentation type.
	GoName string
	// Comment is the type's doc comment.
	Comment string
	// Embed is a Go type embedded after "type" (a session event's payload), "" for none.
	Embed string
	// Fields are the fields the JSON-RPC dialect writes, in order.
	Fields []FieldDoc
	// Envelope is the envelope type embedded after the fields, "" for a step.
	Envelope string
	// SessionID is the doc comment of sessionId, after the envelope; "" when the event
	// carries none.
	SessionID string
}

// FieldDoc documents a field of a [TypeDoc].
type FieldDoc struct {
	// Name is the JSON name.
	Name string
	// GoName is the Go field name: Name with its first letter upper-cased and a final "Id"
	// written "ID".
	GoName string
	Doc
	// OmitEmpty says the field may be absent.
	OmitEmpty bool
}

// goName is a JSON field name as a Go field name: toolCallId is ToolCallID.
func goName(name string) string {
	if name == "" {
		return ""
	}
	n := strings.ToUpper(name[:1]) + name[1:]
	if s, ok := strings.CutSuffix(n, "Id"); ok {
		n = s + "ID"
	}
	return n
}

func (d typeDoc) typeDoc(typ string, fields []FieldDoc) TypeDoc {
	return TypeDoc{Type: typ, GoName: d.goName, Comment: d.comment, Embed: d.embed, Fields: fields,
		Envelope: d.envelope, SessionID: d.sessionID}
}

// fieldDocs documents the JSON-RPC fields of a field list.
func fieldDocs[E, C any](l *fieldList[E, C]) []FieldDoc {
	if l == nil {
		return nil
	}
	var out []FieldDoc
	for _, f := range l.fields {
		if f.in&JSONRPC != 0 {
			out = append(out, FieldDoc{Name: f.name, GoName: goName(f.name), Doc: f.doc, OmitEmpty: f.omit != nil})
		}
	}
	return out
}

// EventDocs documents every event the JSON-RPC dialect writes, core's and the session's, in
// the order of docs/events.md.
func EventDocs() []TypeDoc {
	var out []TypeDoc
	for _, ce := range coreEvents {
		out = append(out, ce.doc.typeDoc(string(ce.t), fieldDocs(coreFields(ce.t))))
	}
	for i := range sessionEvents {
		se := &sessionEvents[i]
		if se.in&JSONRPC != 0 {
			out = append(out, se.doc.typeDoc(se.t, se.fields))
		}
	}
	return out
}

// StepDocs documents the assistant-message steps of a JSON-RPC message_update, in order.
func StepDocs() []TypeDoc {
	out := make([]TypeDoc, 0, len(documentedSteps))
	for _, s := range documentedSteps {
		out = append(out, s.doc.typeDoc(string(s.t), fieldDocs(assistantFields(s.t))))
	}
	return out
}

// CarriesSessionID reports whether an event of type t carries sessionId on a connection
// with one session. The encoder asks for every event: a scan of the few types (whose lengths
// mostly differ from t's) costs less than hashing t for a map.
func CarriesSessionID(t string) bool {
	for _, s := range sessionIDTypes {
		if s == t {
			return true
		}
	}
	return false
}

var sessionIDTypes = func() []string {
	var types []string
	for _, d := range EventDocs() {
		if d.SessionID != "" {
			types = append(types, d.Type)
		}
	}
	return types
}()
