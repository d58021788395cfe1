// Package pimode is the front end that speaks pi's own RPC protocol (`pi --mode rpc`, pi
// 0.73.1 plus the later additions current clients rely on) over the session engine, so that
// programs written for pi — pi's RpcClient, pi-acp, third-party SDKs — can run pi-rpc by
// changing only the command. docs/pi-compat.md describes the wire and every difference.
//
// The pieces: the transport's strict-LF line reader and bad-input classification
// (internal/transport), one ordered writer over the transport's that is the engine's event
// sink and also carries responses (writer.go), pi's event shapes (encode.go), the command
// table (commands.go: one package-level map literal, as rpc's and acp's method tables) with
// the input commands, the other commands by concern (settings.go: state, model, thinking,
// queue modes, toggles; sessions.go: session files, forks, compaction, the tree; bash.go;
// slash.go) and the extension-UI confirm dialogs that ask for tool approval (approval.go). The session served, the model catalogue and set_model's orchestration are
// a session.Host's (Options.Host); the package words the host's errors as pi does. It
// imports the engine, never the JSON-RPC front end.
package pimode
