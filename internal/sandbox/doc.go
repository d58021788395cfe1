// Package sandbox runs the model's shell commands confined by the kernel (docs/permissions.md,
// "The sandbox"): Landlock for the file system (and TCP), a new user and network namespace for
// the network. It holds the start-up probe of what the kernel offers ([Probe]), the policy a
// session's commands run under ([Sandbox]: its write set, its environment, how a command is
// wrapped) and the launcher ([Launch]), which pi-rpc runs as itself with the hidden first
// argument [LauncherArg]: it sets PR_SET_NO_NEW_PRIVS, brings up the loopback interface of a
// fresh network namespace, applies the Landlock ruleset, drops every capability and execs the
// shell.
//
// The package knows no protocol and no engine; cmd/pi-rpc builds a [Sandbox] per working
// directory and hands it to the tools (which wrap bash with it and refuse writes it would
// refuse) and to the user's bash method.
package sandbox
