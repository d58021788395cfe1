// Command genschema writes protocol/schema.json from the Go types of package protocol (and the
// core and session types they use), with their doc comments as descriptions. It runs from
// go generate ./protocol; TestSchemaUpToDate runs the same code in memory and fails when the
// file is stale.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

const module = "github.com/pi-rpc/pi-rpc"

func main() {
	out := flag.String("o", "schema.json", "output file")
	flag.Parse()
	data, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}

// errorCodes pairs each error code with its name (data.kind for application errors).
var errorCodes = []struct {
	code int
	name string
}{
	{protocol.CodeParseError, "parseError"},
	{protocol.CodeInvalidRequest, "invalidRequest"},
	{protocol.CodeMethodNotFound, "methodNotFound"},
	{protocol.CodeInvalidParams, "invalidParams"},
	{protocol.CodeInternalError, "internalError"},
	{protocol.CodeCancelled, "requestCancelled"},
	{protocol.CodeBusy, "busy"},
	{protocol.CodeInvalidState, "invalidState"},
	{protocol.CodeNotFound, "notFound"},
	{protocol.CodeProviderNotConfigured, "providerNotConfigured"},
	{protocol.CodeShuttingDown, "shuttingDown"},
	{protocol.CodeTimeout, "timeout"},
}

// docTypes are the documentation types whose definitions unions refer to by name, so they
// must be reflected even when no field reaches them.
var docTypes = []any{
	protocol.TextContent{}, protocol.ThinkingContent{}, protocol.ImageContent{}, protocol.ToolCall{},
	protocol.Content{}, protocol.UserContent{}, protocol.AssistantContent{},
	protocol.UserMessage{}, protocol.AssistantMessage{}, protocol.ToolResultMessage{},
	protocol.BashExecutionMessage{}, protocol.CustomMessage{}, protocol.BranchSummaryMessage{},
	protocol.CompactionSummaryMessage{}, protocol.SystemMessage{}, protocol.Message{}, protocol.ToolResult{},
	protocol.AssistantMessageEvent{}, protocol.Event{},
	protocol.PermissionRequestParams{}, protocol.PermissionRequestResult{}, protocol.ErrorData{},
}

// coreRefs maps core types that marshal themselves to the documentation type of their JSON.
var coreRefs = map[reflect.Type]string{
	reflect.TypeFor[core.Message]():                  "Message",
	reflect.TypeFor[core.Content]():                  "Content",
	reflect.TypeFor[core.ToolResult]():               "ToolResult",
	reflect.TypeFor[core.AssistantEvent]():           "AssistantMessageEvent",
	reflect.TypeFor[core.Event]():                    "Event",
	reflect.TypeFor[core.UserMessage]():              "UserMessage",
	reflect.TypeFor[core.AssistantMessage]():         "AssistantMessage",
	reflect.TypeFor[core.ToolResultMessage]():        "ToolResultMessage",
	reflect.TypeFor[core.BashExecutionMessage]():     "BashExecutionMessage",
	reflect.TypeFor[core.CustomMessage]():            "CustomMessage",
	reflect.TypeFor[core.BranchSummaryMessage]():     "BranchSummaryMessage",
	reflect.TypeFor[core.CompactionSummaryMessage](): "CompactionSummaryMessage",
	reflect.TypeFor[core.SystemMessage]():            "SystemMessage",
}

// enum is a named string type with a closed set of values, given its own definition.
type enum struct {
	t      reflect.Type
	values []string
}

func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

var enums = []enum{
	{reflect.TypeFor[core.ThinkingLevel](), strs(core.ThinkingLevels...)},
	{reflect.TypeFor[core.QueueMode](), strs(core.QueueOneAtATime, core.QueueAll)},
	{reflect.TypeFor[core.ExecutionMode](), strs(core.ExecutionParallel, core.ExecutionSequential)},
	{reflect.TypeFor[core.StopReason](), strs(core.StopReasonStop, core.StopReasonLength, core.StopReasonToolUse, core.StopReasonError, core.StopReasonAborted)},
	{reflect.TypeFor[sessionapi.Outcome](), strs(session.OutcomeCompleted, session.OutcomeAborted, session.OutcomeFailed, session.OutcomeCancelled)},
	{reflect.TypeFor[sessionapi.SettleErrorKind](), strs(session.SettleErrorProvider, session.SettleErrorOverflow, session.SettleErrorAuth, session.SettleErrorPersistence)},
	{reflect.TypeFor[sessionapi.CompactionReason](), strs(session.CompactionManual, session.CompactionThreshold, session.CompactionOverflow)},
}

// thinkingLevelMap is core.Model's map from level to provider value, whose values may be null.
var thinkingLevelMap = reflect.TypeFor[map[core.ThinkingLevel]*string]()

var marshalerType = reflect.TypeFor[json.Marshaler]()

func ref(name string) *jsonschema.Schema { return &jsonschema.Schema{Ref: "#/$defs/" + name} }

// generator holds one generation's state.
type generator struct {
	r *jsonschema.Reflector
	// named records the type behind every definition name, to catch two types sharing one.
	named map[string]reflect.Type
	errs  []error
}

// generate returns schema.json's content. It reads doc comments from the source tree of the
// module, found from the working directory.
func generate() ([]byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	g := &generator{named: map[string]reflect.Type{}}
	g.r = &jsonschema.Reflector{
		AllowAdditionalProperties: true,
		Anonymous:                 true,
		Mapper:                    g.mapType,
		Namer:                     g.name,
	}
	if err := g.addComments(root, "protocol", "core", "session", "sessionapi"); err != nil {
		return nil, err
	}
	defs, err := g.definitions()
	if err != nil {
		return nil, err
	}
	return g.document(defs)
}

// moduleRoot returns the module's root directory relative to the working directory.
func moduleRoot() (string, error) {
	dir := "."
	for range 8 {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+module+"\n")) {
			return dir, nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", errors.New("cannot find the module root (go.mod of " + module + ") above the working directory")
}

// addComments reads the doc comments of the named packages (and their subdirectories).
// AddGoComments keys a package by path.Join(base, directory walked), so base is the import
// path of the working directory and each package is walked by its path relative to it.
func (g *generator) addComments(root string, pkgs ...string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(absRoot, wd)
	if err != nil {
		return err
	}
	base := module + "/" + filepath.ToSlash(rel)
	for _, p := range pkgs {
		if err := g.r.AddGoComments(base, filepath.Join(root, p)); err != nil {
			return fmt.Errorf("reading doc comments of %s: %w", p, err)
		}
	}
	slashKeys(g.r.CommentMap)
	for k, v := range g.r.CommentMap {
		g.r.CommentMap[k] = strings.Join(strings.Fields(v), " ")
	}
	return nil
}

// slashKeys gives the comment map the keys the reflector looks up. AddGoComments joins base
// and the walked directory with path.Join, which on Windows keeps the directory's
// backslashes as they are (base/..\..\protocol.Type), so no description was found there;
// such keys become /-separated and cleaned (module/protocol.Type), as on Unix.
func slashKeys(m map[string]string) {
	for k, v := range m {
		if strings.Contains(k, `\`) {
			delete(m, k)
			m[path.Clean(strings.ReplaceAll(k, `\`, "/"))] = v
		}
	}
}

func (g *generator) name(t reflect.Type) string {
	name := t.Name()
	if name == "" {
		return ""
	}
	if _, ok := coreRefs[t]; ok {
		return name
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map, reflect.Array:
		if prev, ok := g.named[name]; ok && prev != t {
			g.errs = append(g.errs, fmt.Errorf("definition name %s is used by both %v and %v", name, prev, t))
		}
		g.named[name] = t
	}
	return name
}

func (g *generator) mapType(t reflect.Type) *jsonschema.Schema {
	if name, ok := coreRefs[t]; ok {
		return ref(name)
	}
	for _, e := range enums {
		if e.t == t {
			return ref(t.Name())
		}
	}
	if t == thinkingLevelMap {
		return &jsonschema.Schema{
			Type: "object",
			AdditionalProperties: &jsonschema.Schema{OneOf: []*jsonschema.Schema{
				{Type: "string"}, {Type: "null"},
			}},
		}
	}
	if t.PkgPath() != "" && !strings.HasPrefix(t.PkgPath(), module+"/protocol") &&
		(t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)) {
		g.errs = append(g.errs, fmt.Errorf("%v marshals itself, so its Go fields do not describe its JSON: add a documentation type in protocol/messages.go and map it in genschema's coreRefs", t))
	}
	return nil
}

// definitions reflects every method's params and result, every event and every
// documentation type into one set of definitions.
func (g *generator) definitions() (jsonschema.Definitions, error) {
	var roots []any
	for _, list := range [][]protocol.MethodType{protocol.MethodTypes, protocol.ServerRequestTypes, protocol.ServerNotificationTypes} {
		for _, m := range list {
			roots = append(roots, m.Params, m.Result)
		}
	}
	for _, typ := range protocol.EventTypes {
		roots = append(roots, protocol.EventDocTypes[typ])
	}
	roots = append(roots, protocol.AssistantEventDocTypes...)
	roots = append(roots, docTypes...)
	var fields []reflect.StructField
	seen := map[reflect.Type]bool{}
	for _, v := range roots {
		if v == nil {
			continue
		}
		t := reflect.TypeOf(v)
		if seen[t] {
			continue
		}
		seen[t] = true
		fields = append(fields, reflect.StructField{
			Name: "F" + strconv.Itoa(len(fields)),
			Type: t,
			Tag:  reflect.StructTag(`json:"f` + strconv.Itoa(len(fields)) + `"`),
		})
	}
	s := g.r.ReflectFromType(reflect.StructOf(fields))
	if len(g.errs) > 0 {
		return nil, errors.Join(g.errs...)
	}
	defs := s.Definitions
	for _, e := range enums {
		values := make([]any, len(e.values))
		for i, v := range e.values {
			values[i] = v
		}
		defs[e.t.Name()] = &jsonschema.Schema{Type: "string", Enum: values, Description: g.comment(e.t)}
	}
	for name, d := range defs {
		if d.Description == "" {
			if t, ok := g.named[name]; ok {
				d.Description = g.comment(t)
			}
		}
	}
	return defs, nil
}

func (g *generator) comment(t reflect.Type) string {
	return g.r.CommentMap[t.PkgPath()+"."+t.Name()]
}

// methodEntry is a method in the document's method tables.
type methodEntry struct {
	Description  string             `json:"description,omitempty"`
	Params       *jsonschema.Schema `json:"params,omitempty"`
	Result       *jsonschema.Schema `json:"result,omitempty"`
	Notification bool               `json:"notification,omitempty"`
}

// document is schema.json's top level, in output order.
type document struct {
	Schema              string                 `json:"$schema"`
	ID                  string                 `json:"$id"`
	Title               string                 `json:"title"`
	Description         string                 `json:"description"`
	ProtocolVersion     int                    `json:"protocolVersion"`
	Methods             map[string]methodEntry `json:"methods"`
	ServerRequests      map[string]methodEntry `json:"serverRequests"`
	ServerNotifications map[string]methodEntry `json:"serverNotifications"`
	Events              *jsonschema.Schema     `json:"events"`
	EventTypes          []string               `json:"eventTypes"`
	Errors              map[string]string      `json:"errors"`
	Defs                jsonschema.Definitions `json:"$defs"`
}

func typeRef(v any) *jsonschema.Schema {
	if v == nil {
		return nil
	}
	return ref(reflect.TypeOf(v).Name())
}

func table(list []protocol.MethodType) map[string]methodEntry {
	m := make(map[string]methodEntry, len(list))
	for _, t := range list {
		m[t.Name] = methodEntry{
			Description:  t.Description,
			Params:       typeRef(t.Params),
			Result:       typeRef(t.Result),
			Notification: t.Notification,
		}
	}
	return m
}

func (g *generator) document(defs jsonschema.Definitions) ([]byte, error) {
	doc := document{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		ID:     "https://github.com/pi-rpc/pi-rpc/protocol/schema.json",
		Title:  "pi-rpc protocol",
		Description: "JSON-RPC 2.0 over stdio. methods: client-to-server requests and notifications " +
			"(params and result by reference to $defs); serverRequests: server-to-client requests; " +
			"serverNotifications: server-to-client notifications, the event notification carrying " +
			"one Event as its params; errors: error codes and their names (data.kind of " +
			"application errors). Generated from the Go types of package protocol; do not edit.",
		ProtocolVersion:     protocol.ProtocolVersion,
		Methods:             table(protocol.MethodTypes),
		ServerRequests:      table(protocol.ServerRequestTypes),
		ServerNotifications: table(protocol.ServerNotificationTypes),
		Events:              ref("Event"),
		EventTypes:          protocol.EventTypes,
		Errors:              map[string]string{},
		Defs:                defs,
	}
	for _, e := range errorCodes {
		doc.Errors[strconv.Itoa(e.code)] = e.name
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	out := unescapeHTML(buf.Bytes())
	if err := checkRefs(out, defs); err != nil {
		return nil, err
	}
	return out, nil
}

// unescapeHTML undoes the \u003c, \u003e and \u0026 escapes that the reflector's own
// json.Marshal adds to descriptions, leaving every other escape alone.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

var refPattern = regexp.MustCompile(`"\$ref": "#/\$defs/([^"]+)"`)

// checkRefs fails on a reference to a definition that does not exist (a union naming a
// documentation type that was not reflected).
func checkRefs(out []byte, defs jsonschema.Definitions) error {
	var missing []string
	for _, m := range refPattern.FindAllSubmatch(out, -1) {
		if _, ok := defs[string(m[1])]; !ok {
			missing = append(missing, string(m[1]))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("references to undefined definitions: %v", missing)
	}
	return nil
}
