package mockhttp

// ToolCall is a scripted tool call whose arguments stream in fragments, as the OpenAI and
// Anthropic dialects script it (toolCalls); Gemini's calls also carry a thought signature.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolCallStart is the explicit step that starts a tool call; Index names the call for the
// [ArgsFragment] steps that follow.
type ToolCallStart struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Name  string `json:"name"`
}

// ArgsFragment is the explicit step that streams a fragment of the arguments of the tool
// call started with the same Index.
type ArgsFragment struct {
	Index    int    `json:"index"`
	Fragment string `json:"fragment"`
}

// Fragments is the steps that stream text in pieces of size characters ([Split]), each made
// by step.
func Fragments[E any](text string, size int, step func(string) E) []E {
	var evs []E
	for _, s := range Split(text, size) {
		evs = append(evs, step(s))
	}
	return evs
}

// CallSteps is the steps that stream calls one after another: each call's start (made by
// start), then its arguments in pieces of size characters (made by args).
func CallSteps[E any](calls []ToolCall, size int, start func(*ToolCallStart) E, args func(*ArgsFragment) E) []E {
	var evs []E
	for i, tc := range calls {
		evs = append(evs, start(&ToolCallStart{Index: i, ID: tc.ID, Name: tc.Name}))
		for _, f := range Split(tc.Arguments, size) {
			evs = append(evs, args(&ArgsFragment{Index: i, Fragment: f}))
		}
	}
	return evs
}

// PlaySteps plays a response's steps with step, stopping at the first that ends the stream
// (false), and reports whether all were played. The steps are the scripted events, or, when
// the response scripts none, those generate derives from its shorthand fields (reasoning,
// text, toolCalls).
func PlaySteps[E any](events []E, generate func() []E, step func(E) bool) bool {
	if events == nil {
		events = generate()
	}
	for _, ev := range events {
		if !step(ev) {
			return false
		}
	}
	return true
}

// Reason is a response's finish or stop reason: the scripted one, else tools when the
// response calls a tool, else plain.
func Reason(scripted, plain, tools string, callsTools bool) string {
	switch {
	case scripted != "":
		return scripted
	case callsTools:
		return tools
	}
	return plain
}

// Tokens is the token count a mock reports for chars bytes of prompt or output when the
// script gives no usage: one per four bytes, and at least one.
func Tokens(chars int) int { return chars/4 + 1 }

// RequestedModel is the model a request's JSON body names (Gemini's requests name it in
// the path instead).
func RequestedModel(rec *Request) string {
	m, _ := rec.Decoded["model"].(string)
	return m
}
