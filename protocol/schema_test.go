package protocol_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

const schemaURL = "https://github.com/pi-rpc/pi-rpc/protocol/schema.json"

// schemaDoc returns schema.json decoded; strict adds additionalProperties:false to every
// object schema that lists properties, so that validating against it also catches fields
// the schema does not document.
func schemaDoc(t *testing.T, strict bool) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(protocol.SchemaJSON()))
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	if strict {
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if _, ok := v["properties"]; ok {
					if _, ok := v["additionalProperties"]; !ok {
						v["additionalProperties"] = false
					}
				}
				for _, c := range v {
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(doc)
	}
	return doc.(map[string]any)
}

// compiler compiles definitions of schema.json.
type compiler struct {
	t *testing.T
	c *jsonschema.Compiler
}

func newCompiler(t *testing.T, strict bool) *compiler {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, schemaDoc(t, strict)); err != nil {
		t.Fatal(err)
	}
	return &compiler{t, c}
}

func (c *compiler) def(name string) *jsonschema.Schema {
	c.t.Helper()
	s, err := c.c.Compile(schemaURL + "#/$defs/" + name)
	if err != nil {
		c.t.Fatalf("compile $defs/%s: %v", name, err)
	}
	return s
}

func defs(t *testing.T) map[string]any {
	t.Helper()
	return schemaDoc(t, false)["$defs"].(map[string]any)
}

func TestSchemaJSONIsTheFile(t *testing.T) {
	want, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(protocol.SchemaJSON(), want) {
		t.Fatal("SchemaJSON() differs from schema.json")
	}
	// The whole document is a valid JSON Schema (the compiler checks it against the
	// 2020-12 metaschema).
	newCompiler(t, false).def("Event")
}

// TestMethodsCovered checks that every method constant of methods.go is in the schema's
// method tables, and that the tables name only defined types.
func TestMethodsCovered(t *testing.T) {
	consts := stringConsts(t, "methods.go", "Method")
	doc := schemaDoc(t, false)
	tables := map[string]map[string]any{}
	for _, k := range []string{"methods", "serverRequests", "serverNotifications"} {
		tables[k] = doc[k].(map[string]any)
	}
	for name, value := range consts {
		found := false
		for _, tab := range tables {
			if _, ok := tab[value]; ok {
				found = true
			}
		}
		if !found {
			t.Errorf("%s (%q) is in no method table of schema.json: add it to protocol.MethodTypes", name, value)
		}
	}
	d := defs(t)
	for k, tab := range tables {
		for m, v := range tab {
			entry := v.(map[string]any)
			for _, part := range []string{"params", "result"} {
				r, ok := entry[part].(map[string]any)
				if !ok {
					continue
				}
				name := strings.TrimPrefix(r["$ref"].(string), "#/$defs/")
				if _, ok := d[name]; !ok {
					t.Errorf("%s.%s.%s refers to undefined %s", k, m, part, name)
				}
			}
			_, hasResult := entry["result"]
			if notif, _ := entry["notification"].(bool); notif == hasResult {
				t.Errorf("%s.%s: notification %v but result present %v", k, m, notif, hasResult)
			}
		}
	}
	for _, m := range []string{protocol.MethodExit, protocol.MethodCancelRequest} {
		if tables["methods"][m].(map[string]any)["notification"] != true {
			t.Errorf("%s is not marked as a notification", m)
		}
	}
}

// stringConsts returns the string constants of a Go file whose names start with prefix.
func stringConsts(t *testing.T, file, prefix string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[n.Name] = v
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s constants in %s", prefix, file)
	}
	return out
}

// TestEventTypesComplete checks that EventTypes lists every core event and every session
// event constant, and that the Event union lists exactly their definitions.
func TestEventTypesComplete(t *testing.T) {
	want := map[string]bool{}
	for _, typ := range core.EventTypes {
		want[string(typ)] = true
	}
	for _, v := range stringConsts(t, "../sessionapi/events.go", "Event") {
		want[v] = true
	}
	// entry_appended is pi mode's alone: the session emits it only with pi 1.6.0's entries
	// (session.Config.SystemMessages), which the JSON-RPC front end does not write.
	delete(want, sessionapi.EventEntryAppended)
	got := map[string]bool{}
	for _, typ := range protocol.EventTypes {
		if got[typ] {
			t.Errorf("EventTypes lists %s twice", typ)
		}
		got[typ] = true
		if !want[typ] {
			t.Errorf("EventTypes lists %s, which neither core nor session defines", typ)
		}
	}
	for typ := range want {
		if !got[typ] {
			t.Errorf("event %s is missing from protocol.EventTypes", typ)
		}
	}
	union := defs(t)["Event"].(map[string]any)["oneOf"].([]any)
	if len(union) != len(protocol.EventTypes) {
		t.Errorf("Event union has %d variants, EventTypes %d", len(union), len(protocol.EventTypes))
	}
	for i, typ := range protocol.EventTypes {
		name := reflect.TypeOf(protocol.EventDocTypes[typ]).Name()
		if i < len(union) && union[i].(map[string]any)["$ref"] != "#/$defs/"+name {
			t.Errorf("Event union variant %d is %v, want %s", i, union[i], name)
		}
	}
}

var (
	reserved = map[string]bool{"type": true, "seq": true, "runId": true, "sessionId": true}
	// sessionIDEvents are the events that carry sessionId
	// (docs/events.md#envelope-fields-and-reserved-names).
	sessionIDEvents = map[string]bool{"agent_start": true, "agent_settled": true, "session_changed": true}
	envelopeTypes   = map[reflect.Type]bool{
		reflect.TypeFor[protocol.Envelope]():    true,
		reflect.TypeFor[protocol.RunEnvelope](): true,
	}
)

// TestEventEnvelope walks every event type: its schema declares type (a single-value enum
// naming the event) and seq, runId everywhere (required on core events), sessionId exactly
// on the events that carry it; and no event declares a field of its own under a reserved
// name.
func TestEventEnvelope(t *testing.T) {
	d := defs(t)
	coreTypes := map[string]bool{}
	for _, typ := range core.EventTypes {
		coreTypes[string(typ)] = true
	}
	for _, typ := range protocol.EventTypes {
		doc := protocol.EventDocTypes[typ]
		rt := reflect.TypeOf(doc)
		def, ok := d[rt.Name()].(map[string]any)
		if !ok {
			t.Errorf("%s: no definition %s", typ, rt.Name())
			continue
		}
		props := def["properties"].(map[string]any)
		var required []string
		for _, r := range def["required"].([]any) {
			required = append(required, r.(string))
		}
		tp, _ := props["type"].(map[string]any)
		if tp == nil || !reflect.DeepEqual(tp["enum"], []any{typ}) {
			t.Errorf("%s: type property %v, want enum [%s]", typ, tp, typ)
		}
		if sp, _ := props["seq"].(map[string]any); sp == nil || sp["type"] != "integer" {
			t.Errorf("%s: seq property %v, want an integer", typ, props["seq"])
		}
		if _, ok := props["runId"]; !ok {
			t.Errorf("%s: no runId property", typ)
		}
		for _, r := range []string{"type", "seq"} {
			if !slices.Contains(required, r) {
				t.Errorf("%s: %s is not required", typ, r)
			}
		}
		if coreTypes[typ] != slices.Contains(required, "runId") {
			t.Errorf("%s: runId required %v, want %v (core events always belong to a run)", typ, !coreTypes[typ], coreTypes[typ])
		}
		_, hasSession := props["sessionId"]
		if hasSession != sessionIDEvents[typ] || (hasSession && !slices.Contains(required, "sessionId")) {
			t.Errorf("%s: sessionId declared %v (required %v), want %v", typ, hasSession, slices.Contains(required, "sessionId"), sessionIDEvents[typ])
		}
		checkReserved(t, typ, rt, 0)
	}
}

// checkReserved fails on a field named type, seq, runId or sessionId anywhere in an event
// type except the event's own type and sessionId fields and its envelope.
func checkReserved(t *testing.T, event string, rt reflect.Type, depth int) {
	t.Helper()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if envelopeTypes[ft] {
				if depth > 0 {
					t.Errorf("%s: envelope %s embedded below the top level", event, ft.Name())
				}
				continue
			}
			checkReserved(t, event, ft, depth+1)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !reserved[name] {
			continue
		}
		ok := depth == 0 && ((name == "type" && f.Name == "Type") || (name == "sessionId" && f.Name == "SessionID" && sessionIDEvents[event]))
		if !ok {
			t.Errorf("%s: field %s uses the reserved name %q (docs/events.md)", event, f.Name, name)
		}
	}
}

// hasNull reports the JSON path of the first null in v, or "". A model's thinkingLevelMap
// is the one place where null is a value (it marks a level unsupported).
func hasNull(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case map[string]any:
		if strings.HasSuffix(path, ".thinkingLevelMap") {
			return ""
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := hasNull(v[k], path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, c := range v {
			if p := hasNull(c, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// eventValidator validates event notifications' params against the schema.
type eventValidator struct {
	t     *testing.T
	union *jsonschema.Schema
	exact *compiler
	seen  map[string]int
}

func newEventValidator(t *testing.T) *eventValidator {
	return &eventValidator{t: t, union: newCompiler(t, false).def("Event"), exact: newCompiler(t, true), seen: map[string]int{}}
}

// check validates one event against the Event union, against its own definition with
// undocumented fields forbidden, and for nulls.
func (ev *eventValidator) check(source string, data []byte) {
	t := ev.t
	t.Helper()
	inst := decode(t, data)
	obj, ok := inst.(map[string]any)
	if !ok {
		t.Errorf("%s: event is not an object: %s", source, data)
		return
	}
	typ, _ := obj["type"].(string)
	ev.seen[typ]++
	if err := ev.union.Validate(inst); err != nil {
		t.Errorf("%s: %s does not match the Event union: %v\n%s", source, typ, err, data)
	}
	doc, ok := protocol.EventDocTypes[typ]
	if !ok {
		t.Errorf("%s: unknown event type %q", source, typ)
		return
	}
	if err := ev.exact.def(reflect.TypeOf(doc).Name()).Validate(inst); err != nil {
		t.Errorf("%s: %s has fields schema.json does not document: %v\n%s", source, typ, err, data)
	}
	if p := hasNull(inst, "$"); p != "" {
		t.Errorf("%s: %s has null at %s: %s", source, typ, p, data)
	}
}
