// Package tools implements pi-rpc's built-in coding tools — read, write, edit, bash, grep,
// find and ls — with pi's parameters, limits, continuation hints and error messages
// (pi's core/tools/*.ts), so a model prompted for pi behaves the same, plus the default system
// prompt.
//
// Everything is in Go: grep, find and ls walk the tree themselves (.gitignore-aware, hidden
// files included, .git skipped) with parallel directory reads and searches but a
// deterministic output order, instead of shelling out to ripgrep and fd.
//
// Tools report failure by returning an error whose message is what the model sees. They
// honour cancellation: file tools check ctx between steps and return "Operation aborted";
// write and edit check it just before the final rename, so an abandoned write leaves the old
// file intact; bash kills its whole process group ([RunShell]).
//
// File tools open only regular files (and directories where they list them): devices, FIFOs,
// sockets and /proc/<pid>/fd links are refused before anything is read or written, and the
// check is repeated on the opened descriptor (special.go, docs/tools.md "Special files").
// Writes and edits are confined to the working directory (after resolving symlinks) unless
// [Options.AllowOutsideCwd] is set, go through a symlink only to a regular file, and are
// serialised per real path. bash is not confined
// and not sandboxed: it runs with the server's user and environment.
//
// [Options.Access] moves file text and commands to a client (an ACP editor's buffers and
// terminals, access.go); the checks above are still made on disk first.
//
// Concurrency: the tools returned by [New] are safe for concurrent use; the agent runs a
// batch of calls in parallel.
package tools
