// Package proctree runs a command and everything it starts as one unit that can be ended
// together: a process group on Unix, a Job Object on Windows. The bash tool, the user's bash
// method and MCP stdio servers use it, so that no grandchild outlives an abort, a timeout or
// a server's close.
//
// Use: [Prepare] the command's SysProcAttr before Start, then [Attach] the started process.
// [Tree.Terminate] asks the tree to end (SIGTERM to the group; on Windows, which has no such
// request, TerminateJobObject), [Tree.Kill] ends it (SIGKILL; TerminateJobObject),
// [Tree.Alive] reports whether any of it is left and [Tree.Release] is called once the
// caller is done with it.
package proctree
